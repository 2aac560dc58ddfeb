package io.ankusa.claimcheck.internal;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.internal.breaker.BreakerListener;
import io.ankusa.claimcheck.internal.crypto.Encryption;
import io.ankusa.claimcheck.internal.crypto.EncryptionSettings;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.internal.placement.Placement;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.ClaimReaders;
import io.ankusa.claimcheck.internal.reader.ReaderSettings;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.Telemetries;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The process-wide registry of store sets and readers, one per distinct store configuration,
 * reference-counted; thread-safe.
 *
 * <p>Invariants: every access to the map holds this class's lock; an entry's count is the number of
 * open handles on it; the entry is removed and its reader and stores closed exactly when the count
 * falls to zero.
 */
public final class Runtimes {

  /** The open runtimes; guarded by this class's lock (tests count handles through it). */
  static final Map<Key, Runtime> SHARED = new HashMap<>();

  /** Releases handles that became unreachable unclosed (one daemon thread per process). */
  public static final java.lang.ref.Cleaner CLEANER =
      java.lang.ref.Cleaner.create(
          r -> {
            Thread t = new Thread(r, "claimcheck-cleaner");
            t.setDaemon(true);
            return t;
          });

  private Runtimes() {}

  /** What makes two configurations share a store set and a reader. */
  public record Key(
      List<StoreSpec> stores,
      Placement placement,
      KeyLayout layout,
      Duration cooldown,
      int maxInflight,
      int queueMax,
      int maxConcurrentReads,
      long cacheMaxBytes,
      Object meterRegistry,
      Ticker ticker,
      EncryptionSettings encryption) {}

  /** One shared store set, its reader and its telemetry. */
  public static final class Runtime {
    final Key key;
    public final ClaimStores stores;
    public final ClaimReader reader;
    public final ClaimCheckTelemetry telemetry;
    public final Encryption encryption;

    /**
     * Check-ins in flight on this store set through any handle; a check-in lets its write run on
     * its own thread only when it is the only one ({@code SharedClaimCheck}).
     */
    public final java.util.concurrent.atomic.AtomicInteger checkInsInFlight =
        new java.util.concurrent.atomic.AtomicInteger();

    int handles;

    Runtime(
        Key key,
        ClaimStores stores,
        ClaimReader reader,
        ClaimCheckTelemetry telemetry,
        Encryption encryption) {
      this.key = key;
      this.stores = stores;
      this.reader = reader;
      this.telemetry = telemetry;
      this.encryption = encryption;
    }
  }

  /**
   * A runtime of the given parts, not shared, counting one handle (tests build handles on fakes
   * with it); releasing that handle closes the reader and the stores.
   */
  public static synchronized Runtime ofParts(
      ClaimStores stores, ClaimReader reader, ClaimCheckTelemetry telemetry) {
    return ofParts(stores, reader, telemetry, Encryption.off());
  }

  /**
   * As {@link #ofParts(ClaimStores, ClaimReader, ClaimCheckTelemetry)}, with {@code encryption}.
   */
  public static synchronized Runtime ofParts(
      ClaimStores stores,
      ClaimReader reader,
      ClaimCheckTelemetry telemetry,
      Encryption encryption) {
    Runtime rt = new Runtime(null, stores, reader, telemetry, encryption);
    rt.handles = 1;
    return rt;
  }

  public static Key key(ClaimCheckConfig c, Object meterRegistry, Ticker ticker) {
    return new Key(
        c.stores(),
        Placement.parse(c.getString(ClaimCheckConfig.PLACEMENT)),
        KeyLayout.parse(c.getString(ClaimCheckConfig.KEY_LAYOUT)),
        c.cooldown(),
        c.getInt(ClaimCheckConfig.READ_MAX_INFLIGHT),
        c.getInt(ClaimCheckConfig.READ_QUEUE_MAX),
        c.getInt(ClaimCheckConfig.MAX_CONCURRENT_READS),
        c.getLong(ClaimCheckConfig.CACHE_MAX_BYTES),
        meterRegistry,
        ticker,
        encryption(c));
  }

  /** The encryption settings of {@code c} (validated when {@code c} was built). */
  public static EncryptionSettings encryption(ClaimCheckConfig c) {
    return new EncryptionSettings(
        c.getString(ClaimCheckConfig.ENCRYPTION_KEK).trim(),
        c.encryptionTenantKeks(),
        c.getBoolean(ClaimCheckConfig.ENCRYPTION_REQUIRED),
        c.getLong(ClaimCheckConfig.ENCRYPTION_DEK_MAX_ENCRYPTIONS),
        Duration.ofMillis(c.getLong(ClaimCheckConfig.ENCRYPTION_DEK_MAX_AGE_MS)).toNanos(),
        c.getInt(ClaimCheckConfig.ENCRYPTION_CACHE_MAX_KEYS),
        Duration.ofMillis(c.getLong(ClaimCheckConfig.ENCRYPTION_CACHE_TTL_MS)).toNanos(),
        c.encryptionProviderSettings());
  }

  public static synchronized Runtime acquire(Key key) {
    Runtime rt = SHARED.get(key);
    if (rt == null) {
      rt = create(key);
      SHARED.put(key, rt);
    }
    rt.handles++;
    return rt;
  }

  public static synchronized void release(Runtime rt) {
    if (--rt.handles == 0) {
      SHARED.remove(rt.key);
      rt.reader.close();
      rt.stores.close();
      rt.encryption.close();
    }
  }

  private static Runtime create(Key key) {
    ClaimCheckTelemetry telemetry =
        ClaimCheckTelemetry.neverThrowing(Telemetries.of(key.meterRegistry()));
    ClaimStores.Builder b =
        ClaimStores.builder()
            .placement(key.placement())
            .layout(key.layout())
            .cooldown(key.cooldown())
            .ticker(key.ticker())
            .breakerListener(
                (store, t) -> {
                  if (t == BreakerListener.Transition.OPENED) {
                    telemetry.breakerOpened(store);
                  } else {
                    telemetry.breakerClosed(store);
                  }
                });
    List<io.ankusa.claimcheck.store.ClaimStore> opened = new java.util.ArrayList<>();
    try {
      for (StoreSpec spec : key.stores()) {
        opened.add(spec.open());
        b.add(opened.get(opened.size() - 1), spec.opDeadline());
      }
    } catch (RuntimeException e) {
      opened.forEach(io.ankusa.claimcheck.store.ClaimStore::close);
      throw e;
    }
    ClaimStores stores = b.build();
    ClaimReader reader =
        ClaimReaders.create(
            ReaderSettings.builder(stores.size())
                .maxInflight(key.maxInflight())
                .queueMax(key.queueMax())
                .maxConcurrentReads(key.maxConcurrentReads())
                .cacheMaxBytes(key.cacheMaxBytes())
                .ticker(key.ticker())
                .telemetry(telemetry)
                .build());
    return new Runtime(
        key, stores, reader, telemetry, new Encryption(key.encryption(), key.ticker()));
  }
}
