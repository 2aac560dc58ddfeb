package io.ankusa.claimcheck.crypto;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.subtle.AesGcmJce;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test KEK provider (scheme {@code counting}, registered in core's test resources only): each id
 * is an in-memory AES-256-GCM key, every generate and unwrap is counted, and a KEK can be made to
 * fail with a {@link KekException.Kind} a number of times; thread-safe.
 */
public final class CountingKekProvider implements KekProvider {

  /** Per KEK id: its state. */
  private static final Map<String, State> KEKS = new ConcurrentHashMap<>();

  /** One KEK's key, counters and injected failure. */
  public static final class State {
    final Aead aead;
    public final AtomicLong generates = new AtomicLong();
    public final AtomicLong unwraps = new AtomicLong();
    final AtomicReference<KekException.Kind> failing = new AtomicReference<>();
    final AtomicInteger failures = new AtomicInteger();

    State() {
      byte[] k = new byte[32];
      new java.security.SecureRandom().nextBytes(k);
      try {
        aead = new AesGcmJce(k);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The next {@code times} calls fail with {@code kind} ({@code Integer.MAX_VALUE}: always). */
    public void fail(KekException.Kind kind, int times) {
      failing.set(kind);
      failures.set(times);
    }

    KekException failure(String id) {
      KekException.Kind k = failing.get();
      if (k != null && failures.getAndDecrement() > 0) {
        return new KekException(k, "injected " + k + " of " + id, null);
      }
      return null;
    }
  }

  /** The state of {@code kekId} (created at first use). */
  public static State of(String kekId) {
    return KEKS.computeIfAbsent(kekId, id -> new State());
  }

  @Override
  public Set<String> schemes() {
    return Set.of("counting");
  }

  @Override
  public Kek open(String kekId, Map<String, String> settings) {
    State s = of(kekId);
    return new Kek() {
      @Override
      public String id() {
        return kekId;
      }

      @Override
      public CompletableFuture<DataKey> generate(Map<String, String> context) {
        s.generates.incrementAndGet();
        KekException f = s.failure(kekId);
        if (f != null) {
          return CompletableFuture.failedFuture(f);
        }
        byte[] dek = new byte[32];
        new java.security.SecureRandom().nextBytes(dek);
        try {
          return CompletableFuture.completedFuture(
              new DataKey(dek, s.aead.encrypt(dek, ad(context))));
        } catch (GeneralSecurityException e) {
          return CompletableFuture.failedFuture(e);
        }
      }

      @Override
      public CompletableFuture<byte[]> unwrap(byte[] wrapped, Map<String, String> context) {
        s.unwraps.incrementAndGet();
        KekException f = s.failure(kekId);
        if (f != null) {
          return CompletableFuture.failedFuture(f);
        }
        try {
          return CompletableFuture.completedFuture(s.aead.decrypt(wrapped, ad(context)));
        } catch (GeneralSecurityException e) {
          return CompletableFuture.failedFuture(
              new KekException(KekException.Kind.INVALID, "not wrapped by " + kekId, e));
        }
      }
    };
  }

  private static byte[] ad(Map<String, String> context) {
    return new TreeMap<>(context).toString().getBytes(StandardCharsets.UTF_8);
  }
}
