package io.ankusa.claimcheck.internal.compress;

import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects a claim's decompressed bytes up to a hard bound; not thread-safe (one per inflation).
 *
 * <p>Memory follows the bytes actually produced, never a length read from the input: the first
 * chunk is small (unless the caller knows the exact size is plausible), later chunks grow
 * geometrically to {@value #MAX_CHUNK} bytes, and no chunk reaches past the bound. A write past the
 * bound throws {@link CorruptPackException} at once, so a decompression bomb costs at most the
 * bound. Invariants: {@code size <= bound}; {@code size} is the sum of {@code filled} over the
 * closed chunks plus {@code pos}; {@code pos <= current.length}.
 */
final class InflateSink {

  /** The largest chunk once the output has grown. */
  static final int MAX_CHUNK = 4 << 20;

  private final int bound;
  private final String what;
  private final boolean boundIsReadLimit;
  private final List<byte[]> chunks = new ArrayList<>();
  private final List<Integer> filled = new ArrayList<>();
  private byte[] current;
  private int pos;
  private int size;

  /**
   * Creates a sink accepting at most {@code bound} bytes; {@code firstChunk} is the first
   * allocation (clamped to 1..bound); {@code what} names the bound in the overflow message.
   */
  InflateSink(int bound, int firstChunk, String what, boolean boundIsReadLimit) {
    if (bound < 0) {
      throw new IllegalArgumentException("bound " + bound + " is negative");
    }
    this.bound = bound;
    this.what = what;
    this.boundIsReadLimit = boundIsReadLimit;
    this.current = new byte[Math.max(0, Math.min(bound, Math.max(1, firstChunk)))];
  }

  /** The bytes collected so far. */
  int size() {
    return size;
  }

  /** Whether the bound is reached: any further byte is an overflow. */
  boolean full() {
    return size == bound;
  }

  /**
   * Makes room for {@code wanted} contiguous bytes (fewer when the bound is nearer), allocating a
   * new chunk if the current one has too little; returns the room, at least 1 unless {@link
   * #full()}. Write into {@link #buffer()} at {@link #position()}, then call {@link #advance}.
   */
  int reserve(int wanted) {
    int room = Math.min(wanted, bound - size);
    if (room > 0 && current.length - pos < room) {
      nextChunk(room);
    }
    return Math.max(0, room);
  }

  /**
   * Like {@link #reserve} but content with any free room in the current chunk (for streams, which
   * fill what they are given): returns 1..{@code wanted} bytes, or 0 when {@link #full()}.
   */
  int room(int wanted) {
    if (current.length - pos > 0) {
      return Math.min(wanted, current.length - pos);
    }
    return reserve(wanted);
  }

  private void nextChunk(int room) {
    if (pos > 0) {
      chunks.add(current);
      filled.add(pos);
    }
    int grown = (int) Math.min(MAX_CHUNK, Math.max(current.length, 1) * 2L);
    current = new byte[Math.min(bound - size, Math.max(room, grown))];
    pos = 0;
  }

  byte[] buffer() {
    return current;
  }

  int position() {
    return pos;
  }

  /** Records {@code n} bytes written at {@link #position()} (within the last reservation). */
  void advance(int n) {
    if (n < 0 || n > current.length - pos) {
      throw new IllegalArgumentException("advance " + n + " past the reserved room");
    }
    pos += n;
    size += n;
  }

  /** Copies {@code b[off, off + len)} in; throws {@link CorruptPackException} past the bound. */
  void write(byte[] b, int off, int len) {
    if (len > bound - size) {
      throw overflow();
    }
    while (len > 0) {
      int n = room(len);
      System.arraycopy(b, off, current, pos, n);
      advance(n);
      off += n;
      len -= n;
    }
  }

  /** The failure for output past the bound. */
  RuntimeException overflow() {
    String message = "the claim inflates past " + bound + " bytes (" + what + ")";
    return boundIsReadLimit
        ? new PastReadLimitException(message + ": its ref does not record its uncompressed length")
        : new CorruptPackException(message + ": a damaged claim or a decompression bomb");
  }

  /** Returns the collected bytes as one array of exactly {@link #size()} bytes. */
  byte[] toByteArray() {
    if (chunks.isEmpty() && pos == current.length) {
      return current;
    }
    byte[] out = new byte[size];
    int at = 0;
    for (int i = 0; i < chunks.size(); i++) {
      System.arraycopy(chunks.get(i), 0, out, at, filled.get(i));
      at += filled.get(i);
    }
    System.arraycopy(current, 0, out, at, pos);
    return out;
  }
}
