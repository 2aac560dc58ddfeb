package io.ankusa.claimcheck.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.Deflater;

/**
 * Compressible values with a plaintext marker planted throughout, and the checks the encryption
 * tests make on stored bytes (issue 19): no marker anywhere, stored bytes that do not compress
 * further; stateless and thread-safe.
 */
public final class Planted {

  /** The marker planted in every {@link #value}; found in no ciphertext. */
  public static final String MARKER = "PLANTED-PLAINTEXT-MARKER-19";

  private static final byte[] MARKER_BYTES = MARKER.getBytes(StandardCharsets.US_ASCII);

  private Planted() {}

  /**
   * Returns {@code size} bytes of text for {@code seed} (the same for the same arguments): lines
   * naming the seed and the line number, each carrying {@link #MARKER}, so the value compresses
   * several times over and every stored plaintext copy of it, compressed or not, shows the marker.
   */
  public static byte[] value(int size, long seed) {
    StringBuilder b = new StringBuilder(size + 100);
    for (int line = 0; b.length() < size; line++) {
      b.append("seed=").append(seed).append(" line=").append(line).append(' ');
      b.append(MARKER).append(" the quick brown fox jumps over the lazy dog\n");
    }
    return b.substring(0, size).getBytes(StandardCharsets.US_ASCII);
  }

  /** Whether {@code bytes} hold {@link #MARKER} anywhere. */
  public static boolean hasMarker(byte[] bytes) {
    outer:
    for (int i = 0; i + MARKER_BYTES.length <= bytes.length; i++) {
      for (int j = 0; j < MARKER_BYTES.length; j++) {
        if (bytes[i + j] != MARKER_BYTES[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** The names of the {@code objects} (name to stored bytes) that hold {@link #MARKER}. */
  public static List<String> withMarker(Map<String, byte[]> objects) {
    List<String> found = new ArrayList<>();
    objects.forEach(
        (name, bytes) -> {
          if (hasMarker(bytes)) {
            found.add(name);
          }
        });
    return found;
  }

  /**
   * What is wrong with {@code stored} (object name to its bytes as the store holds them) for
   * encrypted claims; empty when nothing is. Wrong are: an object holding {@link #MARKER} (a test
   * for stored plaintext when claims are not compressed: zstd and gzip code a value's literals, so
   * a compressed plaintext hides the marker too), and an object that deflates below 97% of its size
   * (not ciphertext, which does not shrink: this one finds compressed plaintext as well).
   */
  public static List<String> notCiphertext(Map<String, byte[]> stored) {
    List<String> wrong = new ArrayList<>();
    stored.forEach(
        (name, b) -> {
          if (hasMarker(b)) {
            wrong.add(name + " holds the plaintext marker");
          }
          int deflated = deflatedSize(b);
          if (deflated < b.length * 97L / 100) {
            wrong.add(name + " deflates from " + b.length + " to " + deflated + " bytes");
          }
        });
    return wrong;
  }

  /**
   * What is wrong with {@code stored} for claims that were compressed, then encrypted, from values
   * of {@code rawBytes} in all: what {@link #notCiphertext} finds, and objects that together take a
   * quarter of {@code rawBytes} or more (sealed before they were compressed, claims of {@link
   * #value} would not have shrunk); empty when nothing is wrong.
   */
  public static List<String> notCompressedCiphertext(Map<String, byte[]> stored, long rawBytes) {
    List<String> wrong = notCiphertext(stored);
    long total = stored.values().stream().mapToLong(b -> b.length).sum();
    if (total * 4 >= rawBytes) {
      wrong.add(stored.size() + " objects take " + total + " bytes for " + rawBytes + " raw");
    }
    return wrong;
  }

  /**
   * The size of {@code bytes} deflated at the best level: about {@code bytes.length} (or a little
   * more) for ciphertext, far less for plaintext such as {@link #value}.
   */
  public static int deflatedSize(byte[] bytes) {
    Deflater d = new Deflater(Deflater.BEST_COMPRESSION);
    try {
      d.setInput(bytes);
      d.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      while (!d.finished()) {
        out.write(buf, 0, d.deflate(buf));
      }
      return out.size();
    } finally {
      d.end();
    }
  }
}
