package io.ankusa.claimcheck.internal.crypto;

import io.ankusa.claimcheck.crypto.KekProvider.Kek;
import io.ankusa.claimcheck.crypto.KekProvider.KekException;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The reader's cache of unwrapped data keys, at most {@code maxEntries} (least recently used out
 * first), each for at most {@code ttlNanos} after its unwrap (by the injected ticker); concurrent
 * redeems of one wrapped key share one unwrap; thread-safe. A failed unwrap is not cached.
 */
final class UnwrappedKeys {

  private final Ticker ticker;
  private final int maxEntries;
  private final long ttlNanos;
  private final LinkedHashMap<Id, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);

  UnwrappedKeys(Ticker ticker, int maxEntries, long ttlNanos) {
    this.ticker = ticker;
    this.maxEntries = maxEntries;
    this.ttlNanos = ttlNanos;
  }

  private record Id(String kekId, ByteBuffer wrapped, String tenant) {}

  private record Entry(CompletableFuture<Dek> dek, long at) {}

  /** The primitives of the data key {@code wrapped} by {@code kek} for {@code tenant}. */
  synchronized CompletableFuture<Dek> get(Kek kek, byte[] wrapped, String tenant) {
    Id id = new Id(kek.id(), ByteBuffer.wrap(wrapped.clone()), tenant);
    Entry e = entries.get(id);
    long now = ticker.read();
    if (e != null && (!e.dek().isDone() || now - e.at() < ttlNanos)) {
      return e.dek();
    }
    CompletableFuture<Dek> f;
    try {
      f = kek.unwrap(wrapped, Map.of("tenant", tenant)).thenApply(UnwrappedKeys::dek);
    } catch (RuntimeException x) {
      f = CompletableFuture.failedFuture(x);
    }
    put(id, new Entry(f, now));
    CompletableFuture<Dek> put = f;
    f.whenComplete(
        (a, x) -> {
          if (x != null) {
            forget(id, put);
          }
        });
    return f;
  }

  /** Seeds the cache with a data key this process generated, so its own claims need no unwrap. */
  synchronized void seed(String kekId, byte[] wrapped, String tenant, Dek dek) {
    put(
        new Id(kekId, ByteBuffer.wrap(wrapped.clone()), tenant),
        new Entry(CompletableFuture.completedFuture(dek), ticker.read()));
  }

  /** How many keys the cache holds (tests). */
  synchronized int size() {
    return entries.size();
  }

  private void put(Id id, Entry e) {
    entries.put(id, e);
    while (entries.size() > maxEntries) {
      Id eldest = entries.keySet().iterator().next();
      entries.remove(eldest);
    }
  }

  private synchronized void forget(Id id, CompletableFuture<Dek> f) {
    Entry e = entries.get(id);
    if (e != null && e.dek() == f) {
      entries.remove(id);
    }
  }

  private static Dek dek(byte[] key) {
    try {
      return Dek.of(key);
    } catch (GeneralSecurityException e) {
      throw new KekException(
          KekException.Kind.INVALID, "the unwrapped data key is not an AES-256 key", e);
    }
  }
}
