package io.ankusa.claimcheck.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection that GETs paths and reads each answer whole (status, then
 * {@code Content-Length} bytes), reconnecting when the server closes; each load client of {@link
 * GatewayLoad} has its own, so none waits for another's connection. Not thread-safe.
 */
final class RawGet implements AutoCloseable {

  private final URI base;
  private final String token;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  RawGet(URI base, String token) {
    this.base = base;
    this.token = token;
  }

  private void connect() throws IOException {
    close();
    socket = new Socket(base.getHost(), base.getPort());
    socket.setSoTimeout(60_000);
    socket.setTcpNoDelay(true);
    in = new BufferedInputStream(socket.getInputStream(), 64 << 10);
    out = socket.getOutputStream();
  }

  /** Sends {@code GET path} and reads the answer; returns its status. */
  int get(String path) throws IOException {
    if (socket == null) {
      connect();
    }
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer " + token + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    String status = line();
    if (status == null) { // closed by the server since the last answer: once more, anew
      connect();
      return get(path);
    }
    long length = 0;
    boolean close = false;
    String h;
    while ((h = line()) != null && !h.isEmpty()) {
      String lower = h.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(lower.substring(15).strip());
      } else if (lower.startsWith("connection:") && lower.contains("close")) {
        close = true;
      }
    }
    in.skipNBytes(length);
    if (close) {
      close();
    }
    return Integer.parseInt(status.substring(9, 12));
  }

  private String line() throws IOException {
    StringBuilder b = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        int n = b.length();
        return n > 0 && b.charAt(n - 1) == '\r' ? b.substring(0, n - 1) : b.toString();
      }
      b.append((char) c);
    }
    return b.length() == 0 ? null : b.toString();
  }

  @Override
  public void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // best effort
      }
      socket = null;
    }
  }
}
