package io.ankusa.claimcheck.internal.crypto;

import io.ankusa.claimcheck.crypto.KekProvider.Kek;
import io.ankusa.claimcheck.time.Ticker;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writer's current data key per KEK and tenant, reused for at most {@code maxUses} claims and
 * {@code maxAgeNanos} (by the injected ticker), then replaced by a fresh one; thread-safe.
 *
 * <p>Why the bound makes nonces safe: each claim is sealed by {@link Segmented} (Tink's
 * AES-GCM-HKDF streaming AEAD), which derives a fresh AES key per claim from the data key and a
 * random 256-bit salt, and numbers the segments under it. With at most {@code maxUses} (default
 * 5,000,000, at most 2^31) claims under one data key, the chance that two share a derived key is
 * below maxUses^2 / 2^257; no AES key ever sees two claims. (Envelopes of AEAD id 1, one AES-GCM
 * call with a random 96-bit nonce, were bounded by maxUses^2 / 2^97, about 2^-52.) A generation
 * that fails is forgotten, so the next claim asks the KEK again.
 */
final class DataKeys {

  private final Ticker ticker;
  private final long maxUses;
  private final long maxAgeNanos;
  private final Map<String, CompletableFuture<Current>> current = new HashMap<>();

  DataKeys(Ticker ticker, long maxUses, long maxAgeNanos) {
    this.ticker = ticker;
    this.maxUses = maxUses;
    this.maxAgeNanos = maxAgeNanos;
  }

  /** A data key of {@code kek} for {@code tenant}'s next claim, counted as one use. */
  synchronized CompletableFuture<Current> next(Kek kek, String tenant) {
    String k = kek.id() + '\0' + tenant;
    CompletableFuture<Current> f = current.get(k);
    if (f != null && f.isDone() && (f.isCompletedExceptionally() || !f.join().usable())) {
      current.remove(k, f);
      f = null;
    }
    if (f == null) {
      CompletableFuture<Current> fresh =
          kek.generate(Map.of("tenant", tenant))
              .thenApply(d -> new Current(kek.id(), d.plaintext(), d.wrapped(), ticker.read()));
      current.put(k, fresh);
      fresh.whenComplete(
          (c, e) -> {
            if (e != null) {
              forget(k, fresh);
            }
          });
      f = fresh;
    }
    return f.thenCompose(
        c -> c.tryUse() ? CompletableFuture.completedFuture(c) : next(kek, tenant));
  }

  private synchronized void forget(String k, CompletableFuture<Current> f) {
    current.remove(k, f);
  }

  /** One data key in use: its primitives, header, and how often and since when it is used. */
  final class Current {
    final String kekId;
    final byte[] plaintext;
    final byte[] wrapped;
    final byte[] header;
    final Dek dek;
    private final long created;
    private final AtomicLong uses = new AtomicLong();

    Current(String kekId, byte[] plaintext, byte[] wrapped, long created) {
      this.kekId = kekId;
      this.plaintext = plaintext;
      this.wrapped = wrapped;
      this.header = Envelope.header(kekId, wrapped, Envelope.SEGMENTED);
      this.created = created;
      try {
        this.dek = Dek.of(plaintext);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("not an AES-256 data key", e);
      }
    }

    boolean usable() {
      return uses.get() < maxUses && ticker.read() - created < maxAgeNanos;
    }

    boolean tryUse() {
      if (ticker.read() - created >= maxAgeNanos) {
        return false;
      }
      long n = uses.incrementAndGet();
      return n <= maxUses;
    }
  }
}
