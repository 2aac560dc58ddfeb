package io.ankusa.claimcheck.internal.crypto;

import io.ankusa.claimcheck.crypto.KekProvider.Kek;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Envelope encryption of claims: seals a claim's compressed bytes for the writer, opens an
 * encrypted claim's envelope for the reader; thread-safe, one per runtime.
 *
 * <p>A claim is sealed with AES-256-GCM under a data key that is reused within bounds ({@link
 * DataKeys}) and wrapped by the tenant's KEK; the associated data ({@link Binding}) names the
 * envelope header, tenant, pack id, claim index, length and codec. Opening unwraps the data key
 * once per cache lifetime ({@link UnwrappedKeys}), retrying a KMS that could not answer inside the
 * redeem's deadline. Every failure is a {@link Failure} ({@link KekFailures}): a tag that does not
 * verify, a malformed envelope or a wrapped key the KEK did not wrap are {@code CORRUPT} (the
 * redeemer gives that only after its second look); a KMS down, throttled or a key disabled /
 * pending deletion {@code UNAVAILABLE}, naming the key; a key gone for good {@code NOT_FOUND},
 * saying it was shredded; a reader without encryption, or denied the key, {@code REFUSED} naming
 * the KEK id it needs.
 */
public final class Encryption implements AutoCloseable {

  private final EncryptionSettings settings;
  private final Ticker ticker;
  private final KekProviders providers;
  private final Map<String, Kek> keks = new ConcurrentHashMap<>();
  private final DataKeys dataKeys;
  private final UnwrappedKeys unwrapped;
  private final long retryDelayNanos;

  /** Encryption off: refuses encrypted claims naming their KEK, writes none. */
  public static Encryption off() {
    return new Encryption(EncryptionSettings.OFF, Ticker.system(), KekProviders.none(), 0);
  }

  /** Encryption by {@code settings}, timed by {@code ticker}. */
  public Encryption(EncryptionSettings settings, Ticker ticker) {
    this(settings, ticker, KekProviders.load(), TimeUnit.MILLISECONDS.toNanos(50));
  }

  Encryption(
      EncryptionSettings settings, Ticker ticker, KekProviders providers, long retryDelayNanos) {
    this.settings = settings;
    this.ticker = ticker;
    this.providers = providers;
    this.dataKeys = new DataKeys(ticker, settings.dekMaxUses(), settings.dekMaxAgeNanos());
    this.unwrapped = new UnwrappedKeys(ticker, settings.cacheMaxKeys(), settings.cacheTtlNanos());
    this.retryDelayNanos = retryDelayNanos;
  }

  /** Uses {@code kek} for its id instead of opening it through a provider (tests' counting KEK). */
  void register(Kek kek) {
    keks.put(kek.id(), kek);
  }

  /** Whether {@code tenant}'s claims are written encrypted. */
  public boolean encrypts(String tenant) {
    return !EncryptionSettings.NONE.equals(settings.kekFor(tenant));
  }

  /**
   * The sealer of {@code tenant}'s next claim, waiting for a fresh data key by {@code deadline}
   * (rarely: a data key is reused); a {@link Failure} when the KEK cannot give one.
   */
  public Sealer sealer(String tenant, long deadline) {
    String kekId = settings.kekFor(tenant);
    for (int attempt = 1; ; attempt++) {
      try {
        return sealerOnce(tenant, kekId, deadline);
      } catch (Failure f) {
        // A KMS that could not answer is asked again inside the write deadline (a failed
        // generation is forgotten by DataKeys, so the next attempt calls the KEK again).
        long pause = retryDelayNanos * attempt;
        if (!KekFailures.retriable(f.getCause())
            || attempt >= MAX_ATTEMPTS
            || deadline - ticker.read() <= pause) {
          throw f;
        }
        try {
          TimeUnit.NANOSECONDS.sleep(pause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw f;
        }
      }
    }
  }

  private Sealer sealerOnce(String tenant, String kekId, long deadline) {
    CompletableFuture<DataKeys.Current> f;
    try {
      Kek kek = kek(kekId);
      f = dataKeys.next(kek, tenant);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    long wait = Math.max(0, deadline - ticker.read());
    try {
      DataKeys.Current c = f.get(wait, TimeUnit.NANOSECONDS);
      unwrapped.seed(c.kekId, c.wrapped, tenant, c.dek);
      return new Sealer(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure(Reason.UNAVAILABLE, "interrupted waiting for a data key of " + kekId, e);
    } catch (TimeoutException e) {
      throw new Failure(
          Reason.UNAVAILABLE, "KEK " + kekId + " gave no data key by the write deadline", e);
    } catch (ExecutionException e) {
      throw KekFailures.of("check-in for tenant " + tenant + ": ", kekId, e.getCause());
    }
  }

  /**
   * Refuses {@code ref} before any store request when this client requires encryption and the claim
   * is not encrypted; null when it may be redeemed.
   */
  public Failure refusal(ClaimRef ref) {
    if (settings.required() && !ref.isEncrypted()) {
      return new Failure(
          Reason.REFUSED,
          "claim "
              + ref.tenant().value()
              + "/"
              + ref.claimId()
              + ": the claim is not encrypted and claimcheck.encryption.required=true",
          null);
    }
    return null;
  }

  /**
   * The plaintext (compressed) bytes of the encrypted claim {@code ref} from its checked stored
   * bytes, by {@code deadline}; fails with a {@link Failure}.
   */
  public CompletableFuture<byte[]> open(ClaimRef ref, byte[] stored, long deadline) {
    return open(ref, stored, deadline, null);
  }

  /**
   * As {@link #open(ClaimRef, byte[], long)}, taking the plaintext {@code early} opened while
   * {@code stored} arrived when it has all of it (see {@link EarlyOpening#finish}); {@code early}
   * may be null.
   */
  public CompletableFuture<byte[]> open(
      ClaimRef ref, byte[] stored, long deadline, EarlyOpening early) {
    byte[] opened = early == null ? null : early.finish(stored);
    if (opened != null) {
      return CompletableFuture.completedFuture(opened);
    }
    String what = what(ref);
    Envelope env;
    try {
      env = Envelope.parse(stored);
    } catch (Envelope.EnvelopeException e) {
      return CompletableFuture.failedFuture(KekFailures.malformed(what, e));
    }
    return key(what, env, ref.tenant().value(), deadline)
        .thenApply(dek -> Decryption.open(what, dek, env, ref, stored));
  }

  /**
   * The decrypter of the encrypted streamed claim {@code ref} whose object starts with {@code head}
   * (its first {@link SegmentDecrypter#HEAD} bytes, or all of a shorter object), by {@code
   * deadline}; fails with a {@link Failure} ({@code CORRUPT} for a malformed envelope or stream
   * header, final only after the caller's second look).
   */
  public CompletableFuture<SegmentDecrypter> openStream(ClaimRef ref, byte[] head, long deadline) {
    String what = what(ref);
    Envelope env;
    try {
      env = Envelope.parse(head);
      if (env.aead() != Envelope.SEGMENTED) {
        throw new Envelope.EnvelopeException(
            "a streamed claim's envelope of AEAD id " + env.aead() + ", not segmented");
      }
    } catch (Envelope.EnvelopeException e) {
      return CompletableFuture.failedFuture(KekFailures.malformed(what, e));
    }
    byte[] ad = Binding.stream(env.header(), ref);
    return key(what, env, ref.tenant().value(), deadline)
        .thenApply(
            dek -> {
              try {
                return new SegmentDecrypter(dek.segmented(), ad, head, env.headerLength(), ref);
              } catch (GeneralSecurityException e) {
                throw new Failure(
                    Reason.CORRUPT, what + "the stream header does not open: " + e.getMessage(), e);
              }
            });
  }

  /**
   * A watcher that opens {@code ref}'s envelope while it arrives on the calling thread ({@link
   * EarlyOpening}), or null when {@code ref} is not an encrypted claim this client decrypts.
   */
  public EarlyOpening early(ClaimRef ref) {
    return ref.isEncrypted() && !ref.isStreamed() && settings.enabled()
        ? new EarlyOpening(this, ref)
        : null;
  }

  /** The KEK of {@code kekId} when this client decrypts and has already opened it, else null. */
  Kek openedKek(String kekId) {
    return settings.enabled() ? keks.get(kekId) : null;
  }

  /** The data key {@code wrapped} by {@code kek} for {@code tenant}: cached, or being unwrapped. */
  CompletableFuture<Dek> dataKey(Kek kek, byte[] wrapped, String tenant) {
    return unwrapped.get(kek, wrapped, tenant);
  }

  private static String what(ClaimRef ref) {
    return "claim " + ref.tenant().value() + "/" + ref.claimId() + ": ";
  }

  /** The data key of {@code env}, unwrapped (or cached) by {@code deadline}. */
  private CompletableFuture<Dek> key(String what, Envelope env, String tenant, long deadline) {
    if (!settings.enabled()) {
      return CompletableFuture.failedFuture(
          new Failure(
              Reason.REFUSED,
              what
                  + "the claim is encrypted under KEK "
                  + env.kekId()
                  + ", and this client has claimcheck.encryption.kek=none: configure a KEK to"
                  + " decrypt (any, with access to "
                  + env.kekId()
                  + ")",
              null));
    }
    Kek kek;
    try {
      kek = kek(env.kekId());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new Failure(
              Reason.REFUSED,
              what
                  + "the claim is encrypted under KEK "
                  + env.kekId()
                  + ", which this client cannot open: "
                  + e.getMessage(),
              e));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(KekFailures.of(what, env.kekId(), e));
    }
    return unwrap(kek, env.wrapped(), tenant, deadline, 1)
        .handle(
            (dek, error) -> {
              if (error != null) {
                throw KekFailures.of(what, env.kekId(), StoreException.unwrap(error));
              }
              return dek;
            });
  }

  /** The most attempts of one unwrap inside a redeem's deadline. */
  static final int MAX_ATTEMPTS = 4;

  private CompletableFuture<Dek> unwrap(
      Kek kek, byte[] wrapped, String tenant, long deadline, int attempt) {
    return unwrapped
        .get(kek, wrapped, tenant)
        .handle(
            (dek, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(dek);
              }
              Throwable e = StoreException.unwrap(error);
              if (!KekFailures.retriable(e)
                  || attempt >= MAX_ATTEMPTS
                  || deadline - ticker.read() <= retryDelayNanos * attempt) {
                return CompletableFuture.<Dek>failedFuture(e);
              }
              return CompletableFuture.supplyAsync(
                      () -> null,
                      CompletableFuture.delayedExecutor(
                          retryDelayNanos * attempt, TimeUnit.NANOSECONDS))
                  .thenCompose(x -> unwrap(kek, wrapped, tenant, deadline, attempt + 1));
            })
        .thenCompose(f -> f);
  }

  private Kek kek(String kekId) {
    Kek k = keks.get(kekId);
    if (k != null) {
      return k;
    }
    return keks.computeIfAbsent(
        kekId,
        id ->
            providers
                .forId(id)
                .open(
                    id,
                    settings.providerSettings().getOrDefault(KekProviders.schemeOf(id), Map.of())));
  }

  /** Closes the KEKs this opened. */
  @Override
  public void close() {
    keks.values().forEach(Kek::close);
    keks.clear();
  }
}
