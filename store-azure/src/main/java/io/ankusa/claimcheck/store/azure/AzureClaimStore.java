package io.ankusa.claimcheck.store.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.azure.AzureFailures.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import reactor.core.publisher.Mono;

/**
 * A {@link ClaimStore} on one Azure Blob container and name prefix, over the SDK's async container
 * client making one attempt per call; thread-safe.
 *
 * <p>Invariants: every call is bounded by the smaller of its {@code timeout} and the store's
 * operation timeout (past it, {@code UNAVAILABLE}); every failure is a {@link StoreException}
 * classified by {@link AzureFailures}; futures complete on the store's completion executor, never
 * on an HTTP event loop. A put-if-absent sends {@code If-None-Match: *} on Put Blob, or — for a
 * pack of at least the block threshold — on the Put Block List that commits its staged blocks
 * ({@link BlockUpload}), so it never replaces a blob (only {@link #put} does). A ranged read is
 * checked by {@link RangeRead}: never more bytes than asked, never fewer than the blob holds. Bytes
 * handed to a put must not change until its future completes.
 */
final class AzureClaimStore implements ClaimStore {

  private final BlobContainerAsyncClient container;
  private final AzureSettings settings;
  private final String description;
  private final Executor completions;

  AzureClaimStore(
      BlobContainerAsyncClient container, AzureSettings settings, Executor completions) {
    this.container = Objects.requireNonNull(container, "container");
    this.settings = settings;
    this.description = settings.location();
    this.completions = Objects.requireNonNull(completions, "completions");
  }

  @Override
  public CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout) {
    return write(key, bytes, timeout, new BlobRequestConditions().setIfNoneMatch("*"));
  }

  /** A write without a condition: Azure replaces a blob atomically and lists it as written now. */
  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    return write(key, bytes, timeout, null);
  }

  private CompletableFuture<Void> write(
      String key, byte[] bytes, Duration timeout, BlobRequestConditions conditions) {
    Objects.requireNonNull(bytes, "bytes");
    BlobAsyncClient blob = blob(key);
    Mono<?> call =
        bytes.length >= settings.blockThreshold()
            ? new BlockUpload(blob.getBlockBlobAsyncClient(), bytes, settings.blockSize())
                .commit(conditions)
            : blob.getBlockBlobAsyncClient()
                .uploadWithResponse(
                    new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(bytes))
                        .setRequestConditions(conditions));
    return run(call.then(), Op.PUT, key, timeout);
  }

  @Override
  public CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout) {
    if (offset < 0 || length < 0 || offset > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException("bad range: offset " + offset + ", length " + length);
    }
    BlobAsyncClient blob = blob(key);
    if (length == 0) { // no byte range can be empty: ask whether the blob exists instead
      return run(blob.getProperties().map(p -> new byte[0]), Op.HEAD, key, timeout);
    }
    return run(new RangeRead(blob, offset, length, description, key).read(), Op.GET, key, timeout);
  }

  /** Get Blob Properties: the size and Last-Modified that a listing reports too. */
  @Override
  public CompletableFuture<StoredObject> stat(String key, Duration timeout) {
    return run(
        blob(key)
            .getProperties()
            .map(p -> new StoredObject(key, p.getBlobSize(), p.getLastModified().toInstant())),
        Op.HEAD,
        key,
        timeout);
  }

  @Override
  public CompletableFuture<Void> delete(String key, Duration timeout) {
    return run(blob(key).delete(), Op.DELETE, key, timeout)
        .exceptionallyCompose(
            e -> {
              StoreException se = StoreException.of(e);
              return se.kind() == Kind.NOT_FOUND // absent is deleted
                  ? CompletableFuture.completedFuture(null)
                  : CompletableFuture.failedFuture(e);
            });
  }

  /** One List Blobs page (at most 1000), flat, in name order, the store's prefix stripped. */
  @Override
  public CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration timeout) {
    ListBlobsOptions options =
        new ListBlobsOptions().setPrefix(settings.prefix() + keyPrefix).setMaxResultsPerPage(1000);
    Mono<ListPage> page =
        (continuation == null
                ? container.listBlobs(options).byPage()
                : container.listBlobs(options).byPage(continuation))
            .next()
            .map(
                r -> {
                  List<StoredObject> objects = new ArrayList<>();
                  for (var item : r.getValue()) {
                    if (item.isPrefix() != null && item.isPrefix()) {
                      continue;
                    }
                    objects.add(
                        new StoredObject(
                            item.getName().substring(settings.prefix().length()),
                            item.getProperties().getContentLength(),
                            item.getProperties().getLastModified().toInstant()));
                  }
                  String next = r.getContinuationToken();
                  return new ListPage(objects, next == null || next.isEmpty() ? null : next);
                })
            .defaultIfEmpty(new ListPage(List.of(), null));
    return run(page, Op.LIST, "?list " + keyPrefix, timeout);
  }

  @Override
  public String describe() {
    return description;
  }

  /** Nothing to release: the SDK's HTTP resources are shared by the process. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return "AzureClaimStore[" + description + "]";
  }

  private BlobAsyncClient blob(String key) {
    Objects.requireNonNull(key, "key");
    if (key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    return container.getBlobAsyncClient(settings.prefix() + key);
  }

  /**
   * Runs {@code call} within the smaller of {@code timeout} and the operation timeout, completing
   * the future on the completion executor with its value (null when empty) or its classified
   * failure (an {@link Error} as itself).
   */
  private <T> CompletableFuture<T> run(Mono<T> call, Op op, String key, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    Duration t =
        timeout.compareTo(settings.operationTimeout()) < 0 ? timeout : settings.operationTimeout();
    CompletableFuture<T> result = new CompletableFuture<>();
    if (t.toMillis() < 1) {
      result.completeExceptionally(
          new StoreException(
              Kind.UNAVAILABLE,
              op
                  + " "
                  + description
                  + " key '"
                  + key
                  + "': timeout "
                  + timeout
                  + " already passed"));
      return result;
    }
    Mono<Optional<T>> bounded;
    try {
      bounded = call.map(Optional::of).defaultIfEmpty(Optional.empty()).timeout(t);
    } catch (RuntimeException e) {
      result.completeExceptionally(AzureFailures.classify(e, op, description, key));
      return result;
    }
    bounded.subscribe(
        v -> completions.execute(() -> result.complete(v.orElse(null))),
        e ->
            completions.execute(
                () ->
                    result.completeExceptionally(AzureFailures.outcome(e, op, description, key))));
    return result;
  }
}
