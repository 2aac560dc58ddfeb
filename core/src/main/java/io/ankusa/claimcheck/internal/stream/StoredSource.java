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
 * the source's bytes (counted against the limit), compressed with zstd when asked, and the CRC32C
 * and count of what comes out; one instance is one check-in, read by one thread.
 *
 * <p>Memory is bounded: zstd is fed {@value #STEP} bytes of the source at a time, and only what it
 * emitted for them is held.
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
  private final OutputStream zstd;
  private final byte[] step;
  private long raw;
  private long stored;
  private boolean sourceEnded;

  StoredSource(InputStream source, Codec codec, long maxBytes) throws IOException {
    this.source = source;
    this.maxBytes = maxBytes;
    if (codec == Codec.ZSTD) {
      this.pending = new Pending();
      this.zstd =
          new ZstdOutputStreamNoFinalizer(pending, RecyclingBufferPool.INSTANCE, ZSTD_LEVEL);
      this.step = new byte[STEP];
    } else if (codec == Codec.NONE) {
      this.pending = null;
      this.zstd = null;
      this.step = null;
    } else {
      throw new IllegalArgumentException(
          "a streamed claim is stored as none or zstd, not " + codec);
    }
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
    int n = zstd == null ? readRaw(b, off, len) : readCompressed(b, off, len);
    if (n > 0) {
      crc.update(b, off, n);
      stored += n;
      if (stored > maxBytes) {
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

  private int readCompressed(byte[] b, int off, int len) throws IOException {
    while (pending.available() == 0) {
      if (sourceEnded) {
        return -1;
      }
      int n = source.read(step, 0, step.length);
      if (n < 0) {
        sourceEnded = true;
        zstd.close(); // writes the frame's end
      } else if (n > 0) {
        count(n);
        zstd.write(step, 0, n);
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
    if (zstd != null && !sourceEnded) {
      sourceEnded = true;
      zstd.close(); // releases the native context
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
