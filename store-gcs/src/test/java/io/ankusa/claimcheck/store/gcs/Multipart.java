package io.ankusa.claimcheck.store.gcs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Splits a {@code multipart/related} body into its parts' bodies (headers dropped); stateless. */
final class Multipart {

  private Multipart() {}

  static List<byte[]> parts(byte[] body, String boundary) {
    byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.US_ASCII);
    List<byte[]> parts = new ArrayList<>();
    int at = indexOf(body, delimiter, 0);
    while (at >= 0) {
      int start = at + delimiter.length;
      if (start + 1 < body.length && body[start] == '-' && body[start + 1] == '-') {
        break; // the closing delimiter
      }
      int next = indexOf(body, delimiter, start);
      if (next < 0) {
        break;
      }
      int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), start);
      int contentStart = headersEnd + 4;
      int contentEnd = next - 2; // the CRLF before the delimiter
      parts.add(Arrays.copyOfRange(body, contentStart, Math.max(contentStart, contentEnd)));
      at = next;
    }
    return parts;
  }

  private static int indexOf(byte[] hay, byte[] needle, int from) {
    outer:
    for (int i = from; i <= hay.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
