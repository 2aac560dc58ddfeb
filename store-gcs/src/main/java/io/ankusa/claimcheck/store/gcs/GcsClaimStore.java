package io.ankusa.claimcheck.store.gcs;

import com.google.api.gax.paging.Page;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Op;
import io.ankusa.claimcheck.store.gcs.GcsFailures.Target;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;

/**
 * A {@link ClaimStore} on one Cloud Storage bucket and name prefix, over the SDK's HTTP (JSON API)
 * client making one attempt per call; thread-safe.
 *
 * <p>Invariants: every call runs on the store's I/O threads ({@link Calls}), bounded by the smaller
 * of its {@code timeout} and the store's operation timeout (its sockets' timeouts too; past it,
 * {@code UNAVAILABLE}); every failure is a {@link StoreException} classified by {@link GcsFailures}
 * from the answer the transport saw ({@link Exchange}). A put-if-absent is one multipart upload
 * with {@code ifGenerationMatch=0}, so it never replaces an object (only {@link #put} does); a
 * streamed one is a resumable upload under the same precondition ({@link StreamedUpload}). A ranged
 * read is checked by {@link RangeRead}: never more bytes than asked, never fewer than the object
 * holds. Bytes handed to a put must not change until its future completes.
 */
final class GcsClaimStore implements ClaimStore {

  private final Storage storage;
  private final ObservingTransport transport;
  private final GcsSettings settings;
  private final Calls calls;
  private final String description;

  GcsClaimStore(
      Storage storage, ObservingTransport transport, GcsSettings settings, ExecutorService io) {
    this.storage = Objects.requireNonNull(storage, "storage");
    this.transport = transport;
    this.settings = settings;
    this.calls = new Calls(io, transport, settings.operationTimeout());
    this.description = settings.location();
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    return write(key, bytes, timeout, BlobTargetOption.doesNotExist());
  }

  /** An upload without a precondition: GCS replaces an object atomically (a new generation). */
  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    return write(key, bytes, timeout);
  }

  private CompletableFuture<Void> write(
      String key, byte[] bytes, Duration timeout, BlobTargetOption... condition) {
    Objects.requireNonNull(bytes, "bytes");
    BlobTargetOption[] options = new BlobTargetOption[condition.length + 1];
    System.arraycopy(condition, 0, options, 0, condition.length);
    options[condition.length] = BlobTargetOption.disableGzipContent(); // claims are compressed
    return run(
        Op.PUT,
        key,
        timeout,
        (target, exchange) -> {
          storage.create(BlobInfo.newBuilder(id(target)).build(), bytes, options);
          return null;
        });
  }

  @Override
  public long putStreamIfAbsent(
      String key, InputStream source, long length, Duration requestTimeout) throws IOException {
    Objects.requireNonNull(source, "source");
    if (length < 0 && length != UNKNOWN_LENGTH) {
      throw new IllegalArgumentException("bad length " + length);
    }
    return new StreamedUpload(storage, settings.bucket(), target(key), settings.chunkSize())
        .run(source, length, requestTimeout);
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    if (offset < 0 || length < 0 || offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException("bad range: offset " + offset + ", length " + length);
    }
    if (length == 0) { // no byte range can be empty: ask whether the object exists instead
      return run(
          Op.HEAD,
          key,
          timeout,
          (target, exchange) -> {
            metadata(target, exchange, Op.HEAD);
            return new byte[0];
          });
    }
    return run(
        Op.GET,
        key,
        timeout,
        (target, exchange) ->
            new RangeRead(storage, id(target), offset, length, target)
                .read(exchange, () -> metadata(target, exchange, Op.GET).getSize()));
  }

  /** The object's metadata (a GET without alt=media): the size and {@code updated} it lists. */
  @Override
  public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
    return run(
        Op.HEAD,
        key,
        timeout,
        (target, exchange) -> {
          Blob b = metadata(target, exchange, Op.HEAD);
          return new StoredObject(key, b.getSize(), b.getUpdateTimeOffsetDateTime().toInstant());
        });
  }

  private Blob metadata(Target target, Exchange exchange, Op op) {
    Blob b = storage.get(id(target));
    if (b == null) { // the SDK's 404, whoever said it
      throw GcsFailures.absent(op, target, exchange);
    }
    return b;
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    return run(
        Op.DELETE,
        key,
        timeout,
        (target, exchange) -> {
          if (!storage.delete(id(target))) {
            StoreException e = GcsFailures.absent(Op.DELETE, target, exchange);
            if (e.kind() != Kind.NOT_FOUND) { // absent is deleted, in GCS's own words only
              throw e;
            }
          }
          return null;
        });
  }

  /** One objects.list page (at most 1000), flat, in name order, the store's prefix stripped. */
  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    Objects.requireNonNull(keyPrefix, "keyPrefix");
    String prefix = settings.prefix() + keyPrefix;
    Target target = new Target(description, "?list " + keyPrefix, settings.bucket(), prefix);
    return run(
        Op.LIST,
        target,
        timeout,
        (t, exchange) -> {
          List<BlobListOption> options = new ArrayList<>();
          options.add(BlobListOption.prefix(prefix));
          options.add(BlobListOption.pageSize(1000));
          if (continuation != null) {
            options.add(BlobListOption.pageToken(continuation));
          }
          Page<Blob> page = storage.list(settings.bucket(), options.toArray(BlobListOption[]::new));
          List<StoredObject> objects = new ArrayList<>();
          for (Blob b : page.getValues()) {
            if (b.getName().startsWith(prefix) && !b.getName().endsWith("/")) {
              objects.add(
                  new StoredObject(
                      b.getName().substring(settings.prefix().length()),
                      b.getSize(),
                      b.getUpdateTimeOffsetDateTime().toInstant()));
            }
          }
          String next = page.getNextPageToken();
          return new ListPage(objects, next == null || next.isEmpty() ? null : next);
        });
  }

  @Override
  public String describe() {
    return description;
  }

  /** Releases the store's connection pool; idempotent. The I/O threads are shared (daemons). */
  @Override
  public void close() {
    transport.shutdown();
  }

  @Override
  public String toString() {
    return "GcsClaimStore[" + description + "]";
  }

  private Target target(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    return new Target(description, key, settings.bucket(), settings.prefix() + key);
  }

  private BlobId id(Target target) {
    return BlobId.of(settings.bucket(), target.object());
  }

  private <T> CompletableFuture<T> run(Op op, String key, Duration timeout, Calls.Call<T> call) {
    return run(op, target(key), timeout, call);
  }

  private <T> CompletableFuture<T> run(Op op, Target target, Duration timeout, Calls.Call<T> call) {
    return calls.run(op, target, timeout, call);
  }
}
