package io.ankusa.claimcheck.store.azure;

import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DownloadRetryOptions;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.nio.ByteBuffer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;

/**
 * One ranged Get Blob ({@code x-ms-range: bytes=offset-last}), its answer checked against what was
 * asked; one use. The SDK's own re-reads of a broken body are off.
 *
 * <p>A 206 must say {@code Content-Range: bytes offset-end/size} with {@code end} the last byte
 * asked for or the blob's last byte, and carry exactly that many bytes (gathered into one array
 * never larger than the range asked for); anything else — another range, a body shorter or longer,
 * a 200 (the whole blob) — is {@code UNAVAILABLE}: never wrong bytes, never a final answer. Azure's
 * 416 {@code InvalidRange} (an offset at or past the blob's end) is no bytes.
 */
final class RangeRead {

  private static final int PAST_THE_END = -1;
  private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)");

  private final BlobAsyncClient blob;
  private final long offset;
  private final int length;
  private final String where;

  RangeRead(BlobAsyncClient blob, long offset, int length, String store, String key) {
    this.blob = blob;
    this.offset = offset;
    this.length = length;
    this.where = "GET " + store + " key '" + key + "': ";
  }

  Mono<byte[]> read() {
    return blob.downloadStreamWithResponse(
            new BlobRange(offset, (long) length),
            new DownloadRetryOptions().setMaxRetryRequests(0),
            null,
            false)
        .flatMap(
            r -> {
              int expected;
              try {
                expected =
                    expected(r.getStatusCode(), r.getDeserializedHeaders().getContentRange());
              } catch (StoreException e) {
                return r.getValue().then(Mono.error(e)); // drain (cancel) the body, then fail
              }
              if (expected == PAST_THE_END) {
                return r.getValue().then(Mono.just(new byte[0]));
              }
              byte[] out = new byte[expected];
              int[] at = {0};
              return r.getValue()
                  .handle(
                      (ByteBuffer b, reactor.core.publisher.SynchronousSink<byte[]> sink) -> {
                        int n = b.remaining();
                        if (n > expected - at[0]) {
                          sink.error(
                              bad("the body is longer than the " + expected + " bytes announced"));
                          return;
                        }
                        b.get(out, at[0], n);
                        at[0] += n;
                      })
                  .then(
                      Mono.fromCallable(
                          () -> {
                            if (at[0] != expected) {
                              throw bad(expected + " bytes announced but the body has " + at[0]);
                            }
                            return out;
                          }));
            })
        .onErrorResume(
            e ->
                e instanceof BlobStorageException se
                    && se.getStatusCode() == 416
                    && "InvalidRange"
                        .equals(se.getResponse().getHeaderValue(AzureFailures.ERROR_CODE)),
            e -> Mono.just(new byte[0]));
  }

  /**
   * The number of bytes a good answer carries ({@link #PAST_THE_END} when the blob ends before the
   * offset), or a {@link StoreException} for a bad one.
   */
  private int expected(int status, String contentRange) {
    if (status != 206) {
      throw bad("answered a ranged read with HTTP " + status + ", not 206");
    }
    Matcher m = contentRange == null ? null : CONTENT_RANGE.matcher(contentRange.trim());
    if (m == null || !m.matches()) {
      throw bad("a 206 without a Content-Range");
    }
    long first = Long.parseLong(m.group(1));
    long last = Long.parseLong(m.group(2));
    long size = Long.parseLong(m.group(3));
    if (offset >= size) {
      // Past the end (Azure answers 416; Azurite a 206 of "bytes <size>-<size - 1>/<size>"):
      // the blob has no bytes there, whatever the rest of the answer says.
      return PAST_THE_END;
    }
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
