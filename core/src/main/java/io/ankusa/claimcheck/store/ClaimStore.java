package io.ankusa.claimcheck.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One object store that claim packs live in; implementations are thread-safe and never block
 * the calling thread.
 *
 * <p>Every operation completes exceptionally with a {@link StoreException} whose {@link
 * StoreException#kind()} classifies the outcome as exactly one of the {@link
 * StoreException.Kind} values; any other exception is a defect of the implementation and is
 * treated as {@link StoreException.Kind#UNAVAILABLE} by callers. An implementation does no
 * retries of its own: the failover writer and the reader own retries and limits. Each operation
 * is bounded by the {@code timeout} it is given: past it, it completes with {@code UNAVAILABLE}.
 */
public interface ClaimStore extends AutoCloseable {

  /**
   * Writes {@code bytes} under {@code key} only if nothing is there yet, completing normally
   * only once the store durably holds them; {@link StoreException.Kind#ALREADY_EXISTS} when an
   * object already exists under {@code key} (which is then left untouched).
   */
  CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout);

  /**
   * Reads at most {@code length} bytes of the object under {@code key} starting at {@code
   * offset}; fewer only when the object ends first, none when {@code offset} is at or past its
   * end. {@link StoreException.Kind#NOT_FOUND} when no object exists under {@code key}.
   */
  CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout);

  /** Deletes the object under {@code key}; completes normally when it is gone or was absent. */
  CompletableFuture<Void> delete(String key, Duration timeout);

  /**
   * A description of this store for messages and metric tags, such as {@code s3://bucket/prefix}
   * — never a credential.
   */
  String describe();

  /** Releases this store's resources; idempotent. */
  @Override
  void close();
}
