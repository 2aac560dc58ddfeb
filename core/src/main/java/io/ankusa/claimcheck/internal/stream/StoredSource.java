package io.ankusa.claimcheck.internal.stream;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.ankusa.claimcheck.ref.Codec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.CRC32C;

/**
 * The bytes a streamed check-in stores, read from the caller's source as the store asks for them:
 * the source's bytes (counted against the limit), compressed with zstd when asked, then sealed into
 * an envelope of segments when the tenant encrypts (compressed, then encrypted), and the CRC32C and
 * count of what comes out; one instance is one check-in, read by one thread.
 *
 * <p>Memory is bounded: zstd and the sealer are fed {@value #STEP} bytes of the source at a time,
 * and only what they emitted for them (at most a segment more) is held.
 */
final class StoredSource extends InputStream {

  /** How much of the source is compressed at a time. */
  static final int STEP = 64 << 10;

  /** zstd as the whole-claim writer writes it (level 3). */
  private static final int ZSTD_LEVEL = 3;

  /** Thrown from a read once the source passes the limit; the check-in is then refused. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(String message) {
      super(message);
    }
  }

  private final InputStream source;
  private final long maxBytes;
  private final CRC32C crc = new CRC32C();
  private final Pending pending;
  private final OutputStream head;
  private final long storedMax;
  private final byte[] step;
  private long raw;
  private long stored;
  private boolean sourceEnded;

  /**
   * The stored bytes of {@code source} as {@code codec}, sealed by {@code seal} unless it is null;
   * at most {@code maxBytes} read ({@code storedMax} stored).
   */
  StoredSource(InputStream source, Codec codec, long maxBytes, long storedMax, Seal seal)
      throws IOException {
    this.source = source;
    this.maxBytes = maxBytes;
    this.storedMax = storedMax;
    if (codec != Codec.ZSTD && codec != Codec.NONE) {
      throw new IllegalArgumentException(
          "a streamed claim is stored as none or zstd, not " + codec);
    }
    if (codec == Codec.NONE && seal == null) {
      this.pending = null;
      this.head = null;
      this.step = null;
      return;
    }
    this.pending = new Pending();
    OutputStream sink = seal == null ? pending : seal.open(pending);
    this.head =
        codec == Codec.ZSTD
            ? new ZstdOutputStreamNoFinalizer(sink, RecyclingBufferPool.INSTANCE, ZSTD_LEVEL)
            : sink;
    this.step = new byte[STEP];
  }

  /** Opens the sealing stream in front of the stored bytes' sink. */
  interface Seal {
    OutputStream open(OutputStream sink) throws IOException;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    int n = head == null ? readRaw(b, off, len) : readPushed(b, off, len);
    if (n > 0) {
      crc.update(b, off, n);
      stored += n;
      if (stored > storedMax) {
        throw tooLarge(stored + " stored bytes");
      }
    }
    return n;
  }

  private int readRaw(byte[] b, int off, int len) throws IOException {
    int n = source.read(b, off, len);
    if (n > 0) {
      count(n);
    }
    return n;
  }

  private int readPushed(byte[] b, int off, int len) throws IOException {
    while (pending.available() == 0) {
      if (sourceEnded) {
        return -1;
      }
      int n = source.read(step, 0, step.length);
      if (n < 0) {
        sourceEnded = true;
        head.close(); // writes the frame's end, the last segment
      } else if (n > 0) {
        count(n);
        head.write(step, 0, n);
      }
    }
    return pending.take(b, off, len);
  }

  private void count(int n) throws TooLarge {
    raw += n;
    if (raw > maxBytes) {
      throw tooLarge(raw + " bytes");
    }
  }

  private TooLarge tooLarge(String what) {
    return new TooLarge("the stream passed " + what + ", more than the limit of " + maxBytes);
  }

  /** Whether any byte was read from the source: a store that read it ends the failover. */
  boolean started() {
    return raw > 0 || sourceEnded;
  }

  long rawLength() {
    return raw;
  }

  long storedLength() {
    return stored;
  }

  int checksum() {
    return (int) crc.getValue();
  }

  @Override
  public void close() throws IOException {
    if (head != null && !sourceEnded) {
      sourceEnded = true;
      head.close(); // releases the native context
    }
  }

  /** What zstd emitted and the store has not read yet. */
  private static final class Pending extends ByteArrayOutputStream {
    private int taken;

    int available() {
      return count - taken;
    }

    int take(byte[] b, int off, int len) {
      int n = Math.min(len, available());
      System.arraycopy(buf, taken, b, off, n);
      taken += n;
      if (taken == count) {
        reset();
        taken = 0;
      }
      return n;
    }
  }
}
