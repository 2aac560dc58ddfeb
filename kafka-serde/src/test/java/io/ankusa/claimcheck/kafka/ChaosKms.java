package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.testkit.EmbeddedKms;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The KMS of a chaos run: the testkit's {@link EmbeddedKms} (a stub of AWS KMS's JSON protocol, not
 * KMS) behind a fault proxy, one key, the {@code aws-kms:} encryption settings that reach it, and
 * its faults; thread-safe.
 *
 * <p>The settings make the library call KMS often enough for its faults to matter: a data key
 * encrypts at most {@link #DEK_MAX_ENCRYPTIONS} claims for at most {@link #DEK_MAX_AGE_MS}, and a
 * reader keeps an unwrapped one for {@link #CACHE_TTL_MS}, at most {@link #CACHE_MAX_KEYS} of them;
 * one KMS call is bounded by {@link #TIMEOUT_MS}. (Rarer calls than these keep the KMS off most
 * paths; more frequent ones put a KMS round trip on the Streams thread's every few records, whose
 * redeems and check-ins are sequential.) The faults: the KMS down (refused connections), slow
 * (answers held below the call timeout), hung (held past it), throttled (KMS's own {@code
 * ThrottlingException}, from the stub, to every call).
 */
final class ChaosKms implements AutoCloseable {

  static final long DEK_MAX_ENCRYPTIONS = 256;
  static final long DEK_MAX_AGE_MS = 8_000;
  static final long CACHE_TTL_MS = 8_000;
  static final int CACHE_MAX_KEYS = 32;
  static final long TIMEOUT_MS = 1_500;

  private final EmbeddedKms kms;
  private final FaultProxy proxy;
  private final String key;

  private ChaosKms(EmbeddedKms kms, FaultProxy proxy, String key) {
    this.kms = kms;
    this.proxy = proxy;
    this.key = key;
  }

  static ChaosKms start() {
    EmbeddedKms kms = EmbeddedKms.start();
    try {
      return new ChaosKms(kms, FaultProxy.start(kms.endpoint()), kms.createKey());
    } catch (RuntimeException e) {
      kms.close();
      throw e;
    }
  }

  /** The encryption settings of every client of the run: the key, through the proxy. */
  Map<String, Object> config() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.encryption.kek", "aws-kms:" + key);
    m.put("claimcheck.encryption.required", "true");
    m.put("claimcheck.encryption.aws-kms.endpoint", proxy.endpoint().toString());
    m.put("claimcheck.encryption.aws-kms.region", kms.region());
    m.put("claimcheck.encryption.aws-kms.access.key.id", "AKIDCHAOS");
    m.put("claimcheck.encryption.aws-kms.secret.access.key", "chaos-secret");
    m.put("claimcheck.encryption.aws-kms.timeout.ms", Long.toString(TIMEOUT_MS));
    m.put("claimcheck.encryption.dek.max.encryptions", Long.toString(DEK_MAX_ENCRYPTIONS));
    m.put("claimcheck.encryption.dek.max.age.ms", Long.toString(DEK_MAX_AGE_MS));
    m.put("claimcheck.encryption.cache.ttl.ms", Long.toString(CACHE_TTL_MS));
    m.put("claimcheck.encryption.cache.max.keys", Integer.toString(CACHE_MAX_KEYS));
    return m;
  }

  /** The KMS faults, each switched off by clearing the proxy and the stub. */
  List<ChaosFaults.Kind> kinds() {
    return List.of(
        kind("kms-down", r -> proxy.down()),
        kind("kms-slow", r -> proxy.hang(ChaosFaults.millis(r, 150, (int) TIMEOUT_MS * 3 / 4))),
        kind("kms-hang", r -> proxy.hang(ChaosFaults.millis(r, 2_500, 5_000))),
        kind("kms-throttled", r -> kms.throttle(Integer.MAX_VALUE)));
  }

  private ChaosFaults.Kind kind(String name, java.util.function.Consumer<java.util.Random> on) {
    return new ChaosFaults.Kind(
        name,
        false,
        (w, stores, r) -> {
          on.accept(r);
          return this::clear;
        });
  }

  /** Every fault off: the stub answers at once, the proxy passes through. */
  void clear() {
    kms.clear();
    proxy.clear();
  }

  /** The KMS calls that reached the stub, by operation. */
  String calls() {
    return "GenerateDataKey "
        + kms.callCount("GenerateDataKey")
        + ", Decrypt "
        + kms.callCount("Decrypt")
        + " (proxy: POST "
        + proxy.requestCount("POST")
        + ")";
  }

  long callCount(String operation) {
    return kms.callCount(operation);
  }

  @Override
  public void close() {
    proxy.close();
    kms.close();
  }
}
