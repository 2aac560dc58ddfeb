package io.ankusa.claimcheck.store.s3;

import io.ankusa.claimcheck.store.ClaimStore.ListPage;
import io.ankusa.claimcheck.store.ClaimStore.StoredObject;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.s3.S3Failures.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists (ListObjectsV2) and batch-deletes (DeleteObjects) the objects of one bucket and key prefix
 * for the collector; stateless apart from its immutable fields, thread-safe.
 *
 * <p>Keys in and out are relative to the store's prefix, like every other store operation. A failed
 * page or batch completes with a {@link StoreException} classified by {@link S3Failures} (a listing
 * that could not complete is never passed on as a shorter one); a batch answered with per-key
 * errors fails with the first of them ({@code AccessDenied} → {@code FORBIDDEN}, any other → {@code
 * UNAVAILABLE}), since the caller may simply delete the same keys again.
 */
final class S3Listing {

  /** The most keys S3 returns in one page and deletes in one DeleteObjects. */
  static final int MAX_KEYS = 1000;

  private final S3AsyncClient client;
  private final String bucket;
  private final String prefix;
  private final String description;

  S3Listing(S3AsyncClient client, String bucket, String prefix, String description) {
    this.client = client;
    this.bucket = bucket;
    this.prefix = prefix;
    this.description = description;
  }

  /** One page of the objects under {@code keyPrefix}; {@code t} is the effective timeout. */
  CompletableFuture<ListPage> list(String keyPrefix, String continuation, Duration t) {
    CompletableFuture<ListPage> result = new CompletableFuture<>();
    client
        .listObjectsV2(
            b -> {
              b.bucket(bucket)
                  .prefix(prefix + keyPrefix)
                  .maxKeys(MAX_KEYS)
                  .overrideConfiguration(override(t));
              if (continuation != null) {
                b.continuationToken(continuation);
              }
            })
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                result.completeExceptionally(listFailure(failure, keyPrefix));
                return;
              }
              List<StoredObject> objects = new ArrayList<>(response.contents().size());
              for (S3Object o : response.contents()) {
                if (!o.key().startsWith(prefix) || o.key().length() == prefix.length()) {
                  continue; // not ours: S3 honours the prefix, so this is only defence
                }
                objects.add(
                    new StoredObject(
                        o.key().substring(prefix.length()),
                        o.size() == null ? 0 : o.size(),
                        o.lastModified()));
              }
              boolean more = Boolean.TRUE.equals(response.isTruncated());
              if (more && response.nextContinuationToken() == null) {
                result.completeExceptionally(
                    new StoreException(
                        Kind.UNAVAILABLE,
                        "LIST "
                            + description
                            + " prefix '"
                            + keyPrefix
                            + "': truncated page without a continuation token"));
                return;
              }
              result.complete(
                  new ListPage(objects, more ? response.nextContinuationToken() : null));
            });
    return result;
  }

  /** Deletes {@code keys} (at most {@link #MAX_KEYS}) in one DeleteObjects call. */
  CompletableFuture<Void> deleteAll(List<String> keys, Duration t) {
    if (keys.size() > MAX_KEYS) {
      throw new IllegalArgumentException(keys.size() + " keys, more than " + MAX_KEYS);
    }
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<ObjectIdentifier> ids = new ArrayList<>(keys.size());
    for (String key : keys) {
      ids.add(ObjectIdentifier.builder().key(prefix + key).build());
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    client
        .deleteObjects(
            b ->
                b.bucket(bucket)
                    .delete(Delete.builder().objects(ids).quiet(true).build())
                    .overrideConfiguration(override(t)))
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                StoreException e =
                    S3Failures.classify(
                        failure,
                        Op.DELETE,
                        description,
                        keys.size() + " keys from '" + keys.get(0) + "'");
                result.completeExceptionally(e);
                return;
              }
              for (S3Error error : response.errors()) {
                if ("NoSuchKey".equals(error.code())) {
                  continue; // absent is deleted
                }
                Kind kind = "AccessDenied".equals(error.code()) ? Kind.FORBIDDEN : Kind.UNAVAILABLE;
                result.completeExceptionally(
                    new StoreException(
                        kind,
                        "DELETE "
                            + description
                            + " key '"
                            + error.key()
                            + "': "
                            + error.code()
                            + ": "
                            + error.message()
                            + " ("
                            + response.errors().size()
                            + " of "
                            + keys.size()
                            + " keys failed)"));
                return;
              }
              result.complete(null);
            });
    return result;
  }

  private StoreException listFailure(Throwable failure, String keyPrefix) {
    StoreException e = S3Failures.classify(failure, Op.GET, description, "?list " + keyPrefix);
    // Every answer but a clean page means the listing is incomplete: a missing bucket or key is
    // not "no packs" (NOT_FOUND never comes from a listing), so only FORBIDDEN and THROTTLED keep
    // their kind.
    Kind kind =
        e.kind() == Kind.FORBIDDEN || e.kind() == Kind.THROTTLED ? e.kind() : Kind.UNAVAILABLE;
    return new StoreException(
        kind,
        "LIST " + description + " prefix '" + keyPrefix + "' could not complete: " + e.getMessage(),
        e.retryAfter().orElse(null),
        e);
  }

  private static AwsRequestOverrideConfiguration override(Duration t) {
    return AwsRequestOverrideConfiguration.builder()
        .apiCallTimeout(t)
        .apiCallAttemptTimeout(t)
        .build();
  }
}
