package io.ankusa.claimcheck.store.gcs;

import com.google.cloud.ReadChannel;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Target;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One ranged media GET ({@code alt=media}, {@code Range: bytes=offset-last}) through the SDK's
 * unbuffered read channel, its answer checked against what was asked; one use, on its call's
 * thread.
 *
 * <p>The answer (as the {@link Exchange} saw it) must be GCS's {@code 206} with {@code
 * x-goog-generation} and {@code Content-Range: bytes offset-end/size}, {@code end} the last byte
 * asked for or the object's last byte, and carry exactly that many bytes; anything else — another
 * range, a body shorter or longer, a 200 (the whole object) — is {@code UNAVAILABLE}: never wrong
 * bytes, never a final answer. A 416 (which the SDK turns into an empty read) is no bytes only
 * after a second look: the object's metadata says it ends at or before the offset.
 */
final class RangeRead {

  private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)");

  private final Storage storage;
  private final BlobId id;
  private final long offset;
  private final int length;
  private final String where;

  RangeRead(Storage storage, BlobId id, long offset, int length, Target target) {
    this.storage = storage;
    this.id = id;
    this.offset = offset;
    this.length = length;
    this.where = target.where(GcsFailures.Op.GET);
  }

  /** Reads the range; {@code size} is the second look (the object's size from its metadata). */
  byte[] read(Exchange exchange, LongSupplier size) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length);
    int seen;
    ReadChannel r = storage.reader(id);
    try {
      r.setChunkSize(0); // unbuffered: the bytes go straight into buf
      r.seek(offset);
      r.limit(offset + length);
      while (buf.hasRemaining() && r.read(buf) >= 0) {
        // read until the range is full or the answer ends
      }
      seen = exchange.answers();
      if (!buf.hasRemaining() && r.read(ByteBuffer.allocate(1)) > 0) {
        // (the SDK stops at the range's end; a byte more would be a longer body than asked)
        throw bad("the body is longer than the " + length + " bytes asked for");
      }
    } finally {
      r.close(); // the SDK's failures come wrapped in IOException: classified by their cause
    }
    if (seen == 0) {
      throw bad("no answer was seen");
    }
    if (exchange.status() == 416) {
      long objectSize = size.getAsLong();
      if (objectSize <= offset) {
        return new byte[0];
      }
      throw bad("answered 416 though the object holds " + objectSize + " bytes");
    }
    int expected = expected(exchange);
    if (buf.position() != expected) {
      throw bad(expected + " bytes announced but the body has " + buf.position());
    }
    return buf.position() == length ? buf.array() : Arrays.copyOf(buf.array(), buf.position());
  }

  /** The number of bytes a good answer carries, or a {@link StoreException} for a bad one. */
  private int expected(Exchange exchange) {
    if (exchange.status() != 206) {
      throw bad("answered a ranged read with HTTP " + exchange.status() + ", not 206");
    }
    if (exchange.header("x-goog-generation") == null) {
      throw bad("a 206 without x-goog-generation: not GCS's answer");
    }
    String contentRange = exchange.header("content-range");
    Matcher m = contentRange == null ? null : CONTENT_RANGE.matcher(contentRange.trim());
    if (m == null || !m.matches()) {
      throw bad("a 206 without a Content-Range");
    }
    long first = Long.parseLong(m.group(1));
    long last = Long.parseLong(m.group(2));
    long size = Long.parseLong(m.group(3));
    long wantedLast = Math.min(offset + length, size) - 1;
    if (first != offset || last != wantedLast || last < first) {
      throw bad(
          "asked for bytes " + offset + "+" + length + " but got Content-Range " + contentRange);
    }
    return (int) (last - first + 1);
  }

  private StoreException bad(String why) {
    return new StoreException(Kind.UNAVAILABLE, where + why);
  }
}
