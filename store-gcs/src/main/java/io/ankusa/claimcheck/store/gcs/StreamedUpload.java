package io.ankusa.claimcheck.store.gcs;

import com.google.cloud.WriteChannel;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobWriteOption;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Op;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Target;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * One streamed put-if-absent: a resumable upload whose session is opened with {@code
 * ifGenerationMatch=0}, fed chunk by chunk from the calling thread (which this blocks), finalized
 * only once the source has given every byte; one use (not shared).
 *
 * <p>Invariants: at most one chunk (the settings' chunk size) and one read buffer are held,
 * whatever the length; every request is bounded by the request timeout; a source that fails or ends
 * early, or a chunk GCS refuses, leaves the session unfinalized — GCS creates no object for it (the
 * session expires by itself) — so no partial object is ever visible. The finalizing request carries
 * the precondition too: an object created meanwhile makes it 412, {@code ALREADY_EXISTS}.
 */
final class StreamedUpload {

  private static final int READ_BUFFER = 64 << 10;

  private final Storage storage;
  private final String bucket;
  private final Target target;
  private final int chunkSize;

  StreamedUpload(Storage storage, String bucket, Target target, int chunkSize) {
    this.storage = storage;
    this.bucket = bucket;
    this.target = target;
    this.chunkSize = chunkSize;
  }

  /** Writes the source; returns its length once GCS holds the whole object. */
  long run(InputStream source, long length, Duration requestTimeout) throws IOException {
    Exchange exchange = Exchange.begin(requestTimeout.toMillis());
    try {
      byte[] buf = new byte[READ_BUFFER];
      int first = fill(source, buf, length);
      if (first <= 0) {
        throw new EOFException("the source is empty: nothing to store under " + target.key());
      }
      WriteChannel w = open(exchange);
      long total = 0;
      int n = first;
      while (n > 0) {
        total += n;
        write(w, buf, n, exchange);
        if (length != ClaimStore.UNKNOWN_LENGTH && total == length) {
          break;
        }
        n = fill(source, buf, length == ClaimStore.UNKNOWN_LENGTH ? -1 : length - total);
      }
      if (length != ClaimStore.UNKNOWN_LENGTH && total < length) {
        throw new EOFException("the source ended after " + total + " of " + length + " bytes");
      }
      try {
        w.close(); // the finalizing request, under ifGenerationMatch=0
      } catch (IOException | RuntimeException e) {
        throw GcsFailures.classify(e, Op.PUT, target, exchange);
      }
      return total;
    } finally {
      Exchange.end();
    }
  }

  private WriteChannel open(Exchange exchange) {
    try {
      WriteChannel w =
          storage.writer(
              BlobInfo.newBuilder(BlobId.of(bucket, target.object())).build(),
              BlobWriteOption.doesNotExist(),
              BlobWriteOption.disableGzipContent());
      w.setChunkSize(chunkSize);
      return w;
    } catch (RuntimeException e) {
      throw GcsFailures.classify(e, Op.PUT, target, exchange);
    }
  }

  private void write(WriteChannel w, byte[] buf, int n, Exchange exchange) {
    ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
    try {
      while (b.hasRemaining()) {
        w.write(b);
      }
    } catch (IOException | RuntimeException e) {
      StoreException se = GcsFailures.classify(e, Op.PUT, target, exchange);
      throw se; // the session stays unfinalized: no object appears
    }
  }

  /**
   * Reads up to a buffer's worth (no more than {@code left} when it is not negative); 0 or -1 at
   * the source's end.
   */
  private static int fill(InputStream source, byte[] buf, long left) throws IOException {
    int want = left < 0 ? buf.length : (int) Math.min(buf.length, left);
    int got = 0;
    while (got < want) {
      int r = source.read(buf, got, want - got);
      if (r < 0) {
        break;
      }
      got += r;
    }
    return got;
  }
}
