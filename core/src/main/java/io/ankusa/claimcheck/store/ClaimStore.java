package io.ankusa.claimcheck.store;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One object store that claim packs live in; implementations are thread-safe and never block the
 * calling thread.
 *
 * <p>Every operation completes exceptionally with a {@link StoreException} whose {@link
 * StoreException#kind()} classifies the outcome as exactly one of the {@link StoreException.Kind}
 * values; any other exception is a defect of the implementation and is treated as {@link
 * StoreException.Kind#UNAVAILABLE} by callers. An implementation does no retries of its own: the
 * failover writer and the reader own retries and limits. Each operation is bounded by the {@code
 * timeout} it is given: past it, it completes with {@code UNAVAILABLE}.
 */
public interface ClaimStore extends AutoCloseable {

  /**
   * Writes {@code bytes} under {@code key} only if nothing is there yet, completing normally only
   * once the store durably holds them; {@link StoreException.Kind#ALREADY_EXISTS} when an object
   * already exists under {@code key} (which is then left untouched).
   */
  CompletableFuture<Void> putIfAbsent(String key, byte[] bytes, Duration timeout);

  /**
   * Writes the concatenation of {@code parts} under {@code key} only if nothing is there yet,
   * exactly as {@link #putIfAbsent(String, byte[], Duration)} writes one array: a pack goes out as
   * its header and its claims' own arrays, none copied into a pack-sized one first. The parts are
   * read, not copied, and must not change until the future completes. The default passes a lone
   * part as it is and concatenates several, so a store that does not implement it stays correct.
   */
  default CompletableFuture<Void> putPartsIfAbsent(
      String key, List<byte[]> parts, Duration timeout) {
    return putIfAbsent(key, concat(parts), timeout);
  }

  /** {@code parts} as one array: the lone part itself, else a new array of them in order. */
  private static byte[] concat(List<byte[]> parts) {
    if (parts.size() == 1) {
      return Objects.requireNonNull(parts.get(0), "part");
    }
    long total = 0;
    for (byte[] p : parts) {
      total += p.length;
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(total + " bytes do not fit one array");
    }
    byte[] out = new byte[(int) total];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  /**
   * Writes {@code bytes} under {@code key} whether or not an object is there, completing normally
   * only once the store durably holds them and lists the object with a last-modified time no
   * earlier than this call's start. A reader sees the object that was there or the new one, whole —
   * never a partial one, and never no object while one was there. A caller only ever puts bytes
   * that equal any object already under {@code key} (it read them back first): this refreshes a
   * content-addressed key pack that a new record names again, so the collector's sweep, which
   * judges a pack by its last-modified time, counts it as just written (and it re-creates the pack
   * if a sweep deleted it a moment before).
   *
   * <p>The default answers {@code UNAVAILABLE} ("cannot rewrite"): a store that cannot refresh an
   * object never hands out a ref to a pack that a running collector may be about to delete; a
   * check-in of a repeated key then fails over to the next store, or fails retriably.
   */
  default CompletableFuture<Void> put(String key, byte[] bytes, Duration timeout) {
    return CompletableFuture.failedFuture(
        new StoreException(
            StoreException.Kind.UNAVAILABLE,
            describe() + " cannot rewrite an object (ClaimStore.put is not implemented)"));
  }

  /**
   * Writes the bytes {@code source} yields under {@code key} only if nothing is there yet — exactly
   * {@code length} of them, or all up to its end when {@code length} is {@link #UNKNOWN_LENGTH} —
   * and returns how many it wrote once the store durably holds them; {@link
   * StoreException.Kind#ALREADY_EXISTS} when an object already exists under {@code key}, which is
   * then left untouched. Unlike every other operation this one <b>blocks</b>: the calling thread
   * reads {@code source} (a stream has no other pace) while the store writes what it read, holding
   * only a bounded number of bytes at once (a few parts of a multipart upload, a file buffer),
   * whatever the length. Each request the store makes is bounded by {@code requestTimeout}; the
   * whole write takes as long as {@code source} takes. A write that fails leaves no object under
   * {@code key} (and, for S3, aborts its multipart upload).
   *
   * <p>The default throws {@code UNAVAILABLE} ("cannot stream") without reading {@code source}, so
   * a store that does not implement it keeps compiling, and a streamed check-in goes to another
   * store.
   *
   * @throws IOException when reading {@code source} failed, or it ended before {@code length} bytes
   *     ({@link java.io.EOFException}); nothing is then left under {@code key}
   * @throws StoreException for every failure of the store
   */
  default long putStreamIfAbsent(
      String key, InputStream source, long length, Duration requestTimeout) throws IOException {
    throw new StoreException(
        StoreException.Kind.UNAVAILABLE,
        describe() + " cannot stream a write (ClaimStore.putStreamIfAbsent is not implemented)");
  }

  /** The {@code length} of {@link #putStreamIfAbsent} that means "up to the source's end". */
  long UNKNOWN_LENGTH = -1;

  /**
   * Reads at most {@code length} bytes of the object under {@code key} starting at {@code offset};
   * fewer only when the object ends first, none when {@code offset} is at or past its end. {@link
   * StoreException.Kind#NOT_FOUND} when no object exists under {@code key}.
   */
  CompletableFuture<byte[]> getRange(String key, long offset, int length, Duration timeout);

  /**
   * The size and last-modified time of the object under {@code key}, by the same rule the {@link
   * #list listing} reports them; {@link StoreException.Kind#NOT_FOUND} when no object exists under
   * {@code key}. The collector confirms each pack this way just before deleting it, and a writer
   * that reuses a key pack checks it and the collector's sweep lock this way.
   *
   * <p>The default answers {@code UNAVAILABLE} ("cannot stat"): the collector then deletes nothing
   * in such a store (and says so), and a check-in that reuses a key pack there fails retriably, so
   * no ref ever names a pack that a sweep could not confirm.
   */
  default CompletableFuture<StoredObject> stat(String key, Duration timeout) {
    return CompletableFuture.failedFuture(
        new StoreException(
            StoreException.Kind.UNAVAILABLE,
            describe() + " cannot stat an object (ClaimStore.stat is not implemented)"));
  }

  /** Deletes the object under {@code key}; completes normally when it is gone or was absent. */
  CompletableFuture<Void> delete(String key, Duration timeout);

  /**
   * Lists one page of the objects whose keys start with {@code keyPrefix}, in key order, with their
   * size and last-modified time; {@code continuation} is null for the first page, else the {@link
   * ListPage#continuation()} of the previous one. A listing that could not complete fails like any
   * operation ({@code UNAVAILABLE} when the store could not answer): a caller never takes a partial
   * listing for a whole one.
   *
   * <p>The default answers {@code UNAVAILABLE} ("cannot list"), so a store that cannot list is
   * never mistaken for an empty one.
   */
  default CompletableFuture<ListPage> list(
      String keyPrefix, String continuation, Duration timeout) {
    return CompletableFuture.failedFuture(
        new StoreException(
            StoreException.Kind.UNAVAILABLE, describe() + " cannot list its objects"));
  }

  /**
   * Deletes the objects under {@code keys} (at most 1000); completes normally only when every one
   * is gone or was absent, else with the first failure (some may then be deleted: deleting again is
   * harmless). The default deletes them one by one, concurrently.
   */
  default CompletableFuture<Void> deleteAll(List<String> keys, Duration timeout) {
    List<CompletableFuture<Void>> each = new ArrayList<>(keys.size());
    for (String key : keys) {
      each.add(delete(key, timeout));
    }
    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new));
  }

  /**
   * A description of this store for messages and metric tags, such as {@code s3://bucket/prefix} —
   * never a credential.
   */
  String describe();

  /** Releases this store's resources; idempotent. */
  @Override
  void close();

  /**
   * One page of a store listing, in key order; immutable and thread-safe.
   *
   * @param objects the objects of this page
   * @param continuation the token that asks for the next page, or null when this page is the last
   */
  record ListPage(List<StoredObject> objects, String continuation) {

    /** Copies {@code objects}. */
    public ListPage {
      objects = List.copyOf(Objects.requireNonNull(objects, "objects"));
    }

    /** Returns the token of the next page, empty when this page is the last. */
    public Optional<String> next() {
      return Optional.ofNullable(continuation);
    }
  }

  /**
   * One object a store listed: its key (relative to the store, as every {@link ClaimStore}
   * operation takes it), size and last-modified time; immutable and thread-safe.
   *
   * @param key the object's key, without the store's own prefix
   * @param size the object's size in bytes
   * @param lastModified when the store says the object was written
   */
  record StoredObject(String key, long size, Instant lastModified) {

    /** Validates the fields. */
    public StoredObject {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(lastModified, "lastModified");
      if (size < 0) {
        throw new IllegalArgumentException("size " + size + " is negative");
      }
    }
  }
}
