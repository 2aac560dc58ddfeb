package io.ankusa.claimcheck.internal.crypto;

import com.google.crypto.tink.subtle.AesGcmHkdfStreaming;
import com.google.crypto.tink.subtle.StreamSegmentDecrypter;
import com.google.crypto.tink.subtle.StreamSegmentEncrypter;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Objects;

/**
 * The segmented AEAD of envelopes with AEAD id 2: Tink's {@code AesGcmHkdfStreaming} (HKDF-SHA256
 * from the data key, a random 32-byte salt per envelope, AES-256-GCM per segment of {@value
 * #SEGMENT} ciphertext bytes); stateless and thread-safe.
 *
 * <p>Layout after the envelope header: Tink's stream header (40 bytes: its length, the salt, a
 * 7-byte nonce prefix), then segment 0 ({@value #SEGMENT} − 40 bytes), segments of {@value
 * #SEGMENT} bytes, and a last, shorter or equal one; each segment is its plaintext and a 16-byte
 * tag. In stream coordinates (0 = the stream header's first byte) segment {@code i} ends at {@code
 * (i + 1) × SEGMENT}, or at the stream's end for the last. A segment's nonce is the prefix, its
 * index and a last-segment flag, so segments swapped, dropped or cut at a boundary fail.
 *
 * <p>Why segments of 32 KiB, not Tink's 1 MiB templates: on JDK 17 one AES-GCM call over a
 * multi-hundred-KiB buffer runs the JDK's Java GHASH (about 60 MB/s on the build machine) where
 * calls of up to 64 KiB run its intrinsic (GB/s, once warm); 32 KiB warms within seconds, costs 16
 * bytes per segment (0.05 %), and bounds a streamed redeem's buffer to one segment.
 *
 * <p>Nonces are never reused: each envelope derives its own AES key from a fresh random salt
 * (collisions at 2^-128 per pair), and within one key each segment's nonce is distinct by index.
 */
final class Segmented {

  /** Ciphertext bytes per segment. */
  static final int SEGMENT = 32 << 10;

  /** The tag each segment adds. */
  static final int TAG = 16;

  /** Plaintext bytes per full segment. */
  static final int PLAIN_SEGMENT = SEGMENT - TAG;

  /** Tink's stream header: its length byte, a 32-byte salt, a 7-byte nonce prefix. */
  static final int STREAM_HEADER = 1 + 32 + 7;

  private Segmented() {}

  /** The segmented AEAD of a 32-byte data key. */
  static AesGcmHkdfStreaming of(byte[] key) {
    try {
      return new AesGcmHkdfStreaming(key, "HmacSha256", 32, SEGMENT, 0);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("not an AES-256 data key", e);
    }
  }

  /** The stream's length (header included) for {@code plain} plaintext bytes. */
  static long streamLength(long plain) {
    return GEOMETRY.expectedCiphertextSize(plain);
  }

  /** Only its lengths are used: a key of zeros encrypts nothing. */
  private static final AesGcmHkdfStreaming GEOMETRY = of(new byte[32]);

  /** {@code header} followed by the stream of {@code plain} under {@code ad}. */
  static byte[] seal(AesGcmHkdfStreaming aead, byte[] header, byte[] ad, byte[] plain) {
    byte[] out = new byte[sealedLength(header.length, plain.length)];
    sealInto(aead, header, ad, plain, out, 0);
    return out;
  }

  /**
   * The length of {@code header} followed by the stream of {@code plain} plaintext bytes; throws
   * {@link IllegalArgumentException} when it would not fit in one array.
   */
  static int sealedLength(int header, int plain) {
    long total = header + streamLength(plain);
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a claim of " + plain + " bytes is too long");
    }
    return (int) total;
  }

  /**
   * Writes {@code header} followed by the stream of {@code plain} under {@code ad} into exactly
   * {@code out[at, at + sealedLength(header.length, plain.length))} and returns that length; throws
   * {@link IndexOutOfBoundsException} before writing anything when the slot does not fit in {@code
   * out}. Bytes outside the slot are not touched.
   */
  static int sealInto(
      AesGcmHkdfStreaming aead, byte[] header, byte[] ad, byte[] plain, byte[] out, int at) {
    int length = sealedLength(header.length, plain.length);
    Objects.checkFromIndexSize(at, length, out.length);
    int end = at + length;
    System.arraycopy(header, 0, out, at, header.length);
    int w = at + header.length;
    try {
      StreamSegmentEncrypter enc = aead.newStreamSegmentEncrypter(ad);
      ByteBuffer h = enc.getHeader();
      h.get(out, w, STREAM_HEADER);
      w += STREAM_HEADER;
      int p = 0;
      int room = PLAIN_SEGMENT - STREAM_HEADER;
      while (true) {
        int n = Math.min(room, plain.length - p);
        boolean last = p + n == plain.length;
        if (w + n + TAG > end) { // the geometry disagrees with Tink's: never write past the slot
          throw new IllegalStateException("segment past the slot's " + length + " bytes");
        }
        ByteBuffer ct = ByteBuffer.wrap(out, w, n + TAG);
        enc.encryptSegment(ByteBuffer.wrap(plain, p, n), last, ct);
        p += n;
        w += n + TAG;
        if (last) {
          break;
        }
        room = PLAIN_SEGMENT;
      }
      if (w != end) {
        throw new IllegalStateException("segmented " + (w - at) + " of " + length + " bytes");
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM refused to encrypt", e);
    }
    return length;
  }

  /**
   * The plaintext of the stream at {@code stored[from, stored.length)} under {@code ad}; throws
   * {@link GeneralSecurityException} when any segment fails (tampered, truncated, re-ordered, or
   * bound to another context).
   */
  static byte[] open(AesGcmHkdfStreaming aead, byte[] ad, byte[] stored, int from)
      throws GeneralSecurityException {
    int length = stored.length - from;
    if (length < STREAM_HEADER + TAG) {
      throw new GeneralSecurityException("a segmented envelope of " + length + " bytes");
    }
    long segments = segments(length);
    long plainLength = plainLength(length);
    if (plainLength < 0) {
      throw new GeneralSecurityException("a last segment shorter than its tag");
    }
    byte[] out = new byte[(int) plainLength];
    StreamSegmentDecrypter dec = aead.newStreamSegmentDecrypter();
    dec.init(ByteBuffer.wrap(stored, from, STREAM_HEADER), ad);
    int at = STREAM_HEADER;
    int p = 0;
    for (int i = 0; i < segments; i++) {
      int end = (int) Math.min((long) (i + 1) * SEGMENT, length);
      int n = end - at;
      if (n < TAG) {
        throw new GeneralSecurityException("segment " + i + " is shorter than its tag");
      }
      dec.decryptSegment(
          ByteBuffer.wrap(stored, from + at, n),
          i,
          i == segments - 1,
          ByteBuffer.wrap(out, p, n - TAG));
      p += n - TAG;
      at = end;
    }
    return out;
  }

  /** The plaintext length of a well-formed stream of {@code length} bytes (header included). */
  static long plainLength(long length) {
    return length - STREAM_HEADER - segments(length) * TAG;
  }

  /** How many segments a stream of {@code length} bytes (header included, at least 1) has. */
  static long segments(long length) {
    return Math.max(1, (length + SEGMENT - 1) / SEGMENT);
  }
}
