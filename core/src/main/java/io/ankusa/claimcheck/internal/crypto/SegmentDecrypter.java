package io.ankusa.claimcheck.internal.crypto;

import com.google.crypto.tink.subtle.AesGcmHkdfStreaming;
import com.google.crypto.tink.subtle.StreamSegmentDecrypter;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

/**
 * Decrypts one encrypted streamed claim segment by segment, in object coordinates (byte 0 = the
 * envelope's first); one stream's, used by one thread at a time (not thread-safe).
 *
 * <p>The object's length comes from the ref, so which segment is the last is known without reading
 * past it: a segment decrypted as the last that was not written as the last (the stream cut at a
 * segment boundary), a segment moved, or any changed byte fails its tag.
 */
public final class SegmentDecrypter {

  /** How many of an object's first bytes {@link Encryption#openStream} needs (at most). */
  public static final int HEAD = Envelope.MAX_HEADER + Envelope.SEGMENTED_MIN_OVERHEAD;

  private final StreamSegmentDecrypter decrypter;
  private final long start;
  private final long streamLength;
  private final long segments;

  SegmentDecrypter(AesGcmHkdfStreaming aead, byte[] ad, byte[] head, int headerLength, ClaimRef ref)
      throws GeneralSecurityException {
    this.start = headerLength;
    this.streamLength = ref.length() - headerLength;
    if (streamLength < Envelope.SEGMENTED_MIN_OVERHEAD) {
      throw new GeneralSecurityException("a stream of " + streamLength + " bytes");
    }
    this.segments = Segmented.segments(streamLength);
    this.decrypter = aead.newStreamSegmentDecrypter();
    decrypter.init(ByteBuffer.wrap(head, headerLength, Segmented.STREAM_HEADER), ad);
  }

  /** How many segments the claim has. */
  public long segments() {
    return segments;
  }

  /** Where in the object segment {@code i}'s ciphertext starts. */
  public long segmentStart(long i) {
    return start + (i == 0 ? Segmented.STREAM_HEADER : i * Segmented.SEGMENT);
  }

  /** Where in the object segment {@code i}'s ciphertext ends (exclusive). */
  public long segmentEnd(long i) {
    return start + Math.min((i + 1) * Segmented.SEGMENT, streamLength);
  }

  /** The longest segment's ciphertext, in bytes. */
  public static int maxSegment() {
    return Segmented.SEGMENT;
  }

  /**
   * The plaintext of segment {@code i}, whose ciphertext is {@code b[off, off + len)}; throws
   * {@link GeneralSecurityException} when it does not verify.
   */
  public byte[] decrypt(byte[] b, int off, int len, long i) throws GeneralSecurityException {
    if (len < Segmented.TAG || i >= segments || i > Integer.MAX_VALUE) {
      throw new GeneralSecurityException("segment " + i + " of " + len + " bytes");
    }
    byte[] out = new byte[len - Segmented.TAG];
    decrypter.decryptSegment(
        ByteBuffer.wrap(b, off, len), (int) i, i == segments - 1, ByteBuffer.wrap(out));
    return out;
  }
}
