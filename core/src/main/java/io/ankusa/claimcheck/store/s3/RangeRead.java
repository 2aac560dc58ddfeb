package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.store.InlineArrivals;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * {@link RangeBody}'s rules for a synchronous GET: reads a ranged GET's body on the calling thread
 * straight into one array sized from its {@code Content-Length}, keeping only the bytes of the
 * range asked for; stateless between calls (each {@link #transform} reads one attempt's body), so
 * thread-safe.
 *
 * <p>Invariants, as {@link RangeBody}'s: what is kept never exceeds the range's {@code length},
 * whatever the answer announces; of a {@code 200} only the bytes from {@code offset} on are kept;
 * every body byte is counted, kept or not, so {@link RangeResponses} can check the body against its
 * headers; each kept byte is copied once, from the socket's stream into the answer, and the calling
 * thread's {@link InlineArrivals} watcher sees the answer fill.
 */
final class RangeRead implements ResponseTransformer<GetObjectResponse, RangeBody.Answer> {

  private final long offset;
  private final int length;

  RangeRead(long offset, int length) {
    this.offset = offset;
    this.length = length;
  }

  @Override
  public RangeBody.Answer transform(GetObjectResponse r, AbortableInputStream in)
      throws IOException {
    boolean whole = r.sdkHttpResponse() != null && r.sdkHttpResponse().statusCode() == 200;
    long skip = whole ? offset : 0;
    Long announced = r.contentLength();
    byte[] kept =
        announced != null && announced >= 0
            ? new byte[(int) Math.max(0, Math.min(length, announced - skip))]
            : new byte[0];
    long body = skipFully(in, skip);
    if (body < skip) {
      return new RangeBody.Answer(r, new byte[0], body); // ended before the part kept
    }
    int count = 0;
    InlineArrivals.Watcher watcher = InlineArrivals.current();
    for (; ; ) {
      if (count == kept.length) {
        if (count == length) {
          break; // the whole range is kept: the rest is only counted
        }
        int probe = in.read();
        if (probe < 0) {
          break;
        }
        body++;
        // No (or a too small) Content-Length: grow, capped at the range asked for.
        kept =
            Arrays.copyOf(
                kept, (int) Math.min(length, Math.max(count + 1L, Math.max(8192, 2L * count))));
        kept[count++] = (byte) probe;
        continue;
      }
      int n = in.read(kept, count, kept.length - count);
      if (n < 0) {
        break;
      }
      count += n;
      body += n;
      watcher = InlineArrivals.report(watcher, kept, count);
    }
    body += drain(in);
    return new RangeBody.Answer(r, count == kept.length ? kept : Arrays.copyOf(kept, count), body);
  }

  /** Reads and counts up to {@code n} bytes, returning how many there were. */
  private static long skipFully(InputStream in, long n) throws IOException {
    long done = 0;
    byte[] scratch = n > 0 ? new byte[(int) Math.min(n, 8192)] : null;
    while (done < n) {
      int r = in.read(scratch, 0, (int) Math.min(scratch.length, n - done));
      if (r < 0) {
        break;
      }
      done += r;
    }
    return done;
  }

  /** Reads the rest of the body, counting it. */
  private static long drain(InputStream in) throws IOException {
    long done = 0;
    byte[] scratch = null;
    for (; ; ) {
      if (scratch == null) {
        int b = in.read();
        if (b < 0) {
          return done;
        }
        done++;
        scratch = new byte[8192];
        continue;
      }
      int r = in.read(scratch);
      if (r < 0) {
        return done;
      }
      done += r;
    }
  }
}
