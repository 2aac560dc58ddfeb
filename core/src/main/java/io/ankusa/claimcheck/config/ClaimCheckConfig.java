package io.ankusa.claimcheck.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;
import static org.apache.kafka.common.config.ConfigDef.NO_DEFAULT_VALUE;

import io.ankusa.claimcheck.internal.crypto.EncryptionSettings;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.CaseInsensitiveValidString;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The validated {@code claimcheck.*} configuration shared by the serde and the Connect transforms;
 * immutable and thread-safe once built.
 *
 * <p>Every value is checked when the config is built, and a bad one throws a {@link
 * ConfigException} naming its key. Keys that do not start with {@code claimcheck.} are ignored, so
 * the whole client config map can be passed in; a {@code claimcheck.} key that no part of the
 * library reads ({@link #isKnownKey}) is refused, so a misspelt setting is never silently ignored.
 * Secrets are {@code PASSWORD} values; no message or {@code toString} ever shows a secret, nor the
 * value of an unknown key (see {@link Secrets}).
 */
public final class ClaimCheckConfig extends AbstractConfig {

  public static final String PREFIX = "claimcheck.";

  /**
   * The config-map key under which a Micrometer {@code MeterRegistry} may be passed (an object, not
   * a string); absent means Micrometer's global registry.
   */
  public static final String METER_REGISTRY = "claimcheck.meter.registry";

  public static final String STORES = "claimcheck.stores";
  public static final String OP_DEADLINE_MS = "claimcheck.store.op.deadline.ms";
  public static final String COOLDOWN_MS = "claimcheck.store.cooldown.ms";
  public static final String PLACEMENT = "claimcheck.placement";
  public static final String KEY_LAYOUT = "claimcheck.key.layout";
  public static final String TENANT = "claimcheck.tenant";
  public static final String READ_MAX_INFLIGHT = "claimcheck.read.max.inflight";
  public static final String READ_QUEUE_MAX = "claimcheck.read.queue.max";
  public static final String READ_DEADLINE_MS = "claimcheck.read.deadline.ms";
  public static final String MAX_CONCURRENT_READS = "claimcheck.max.concurrent.reads";
  public static final String CACHE_MAX_BYTES = "claimcheck.cache.max.bytes";
  public static final String PREFETCH_MAX_BYTES = "claimcheck.prefetch.max.bytes";
  public static final String THRESHOLD_BYTES = "claimcheck.threshold.bytes";
  public static final String KEYS_ENABLED = "claimcheck.keys.enabled";
  public static final String TENANTS_ALLOWED = "claimcheck.tenants.allowed";
  public static final String POLL_BUDGET_RATIO = "claimcheck.poll.budget.ratio";
  public static final String COMPRESSION_TYPE = "claimcheck.compression.type";
  public static final String FILE_PERMISSIONS = "claimcheck.file.permissions";
  public static final String FILE_CREATE = "claimcheck.file.create";
  public static final String READ_MAX_BYTES = "claimcheck.read.max.bytes";
  public static final String WRITE_MAX_BYTES = "claimcheck.write.max.bytes";
  public static final String ENCRYPTION_KEK = EncryptionKeys.KEK;
  public static final String ENCRYPTION_REQUIRED = EncryptionKeys.REQUIRED;
  public static final String ENCRYPTION_DEK_MAX_ENCRYPTIONS = EncryptionKeys.DEK_MAX_ENCRYPTIONS;
  public static final String ENCRYPTION_DEK_MAX_AGE_MS = EncryptionKeys.DEK_MAX_AGE_MS;
  public static final String ENCRYPTION_CACHE_MAX_KEYS = EncryptionKeys.CACHE_MAX_KEYS;
  public static final String ENCRYPTION_CACHE_TTL_MS = EncryptionKeys.CACHE_TTL_MS;
  public static final String STREAM_MAX_BYTES = "claimcheck.stream.max.bytes";

  /**
   * The default of {@link #READ_MAX_BYTES} and {@link #WRITE_MAX_BYTES}: 256 MiB. A consumer's heap
   * must hold a poll's claims at once (several redeem concurrently, and the prefetcher holds a
   * batch), so one claim much larger than this is a claim few consumers could redeem; payloads that
   * large belong in a different design (stream the object from the store, not a record).
   */
  public static final long DEFAULT_MAX_BYTES = 256L << 20;

  /** The largest value of the byte limits: the largest array a JVM reliably allocates. */
  public static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;

  /** Tenant names: short, lowercase, no path characters. */
  public static final Pattern TENANT_PATTERN = Pattern.compile("[a-z0-9_][a-z0-9._-]{0,39}");

  /**
   * Every core key. The library-wide defaults of the per-store settings ({@code claimcheck.s3.*},
   * {@link #OP_DEADLINE_MS}, {@link #FILE_PERMISSIONS}, {@link #FILE_CREATE}) are defined from the
   * stores' own definitions, so a setting and its per-store override share one type, default and
   * validator.
   */
  public static final ConfigDef CONFIG_DEF =
      EncryptionKeys.define(
          StoreSpecs.defineGlobals(
              new ConfigDef()
                  .define(
                      STORES,
                      Type.LIST,
                      NO_DEFAULT_VALUE,
                      HIGH,
                      "The claim stores, in order; a store is named by its index. Each is s3://bucket[/prefix], "
                          + "file:///path, memory:<name> or a URI of a scheme a plugged-in store provider serves"
                          + " (see core/README.md). Adding a store keeps older packs readable; remove "
                          + "one only after its packs have aged out.")
                  .define(
                      COOLDOWN_MS,
                      Type.LONG,
                      30_000L,
                      Range.between(0, 3_600_000),
                      MEDIUM,
                      "How long a store that could not answer is skipped by writes and searched last by reads.")
                  .define(
                      PLACEMENT,
                      Type.STRING,
                      "ordered",
                      CaseInsensitiveValidString.in("ordered", "hash"),
                      MEDIUM,
                      "ordered: new packs go to store 0; hash: spread by pack id over every store.")
                  .define(
                      KEY_LAYOUT,
                      Type.STRING,
                      "flat",
                      CaseInsensitiveValidString.in("flat", "sharded"),
                      MEDIUM,
                      "flat: <tenant>/<pack>; sharded: <tenant>/<2 hex>/<pack>, spreading S3 prefixes.")
                  .define(
                      TENANT,
                      Type.STRING,
                      "default",
                      tenantValidator(),
                      HIGH,
                      "The tenant new claims belong to: 1-40 of [a-z0-9._-].")
                  .define(
                      READ_MAX_INFLIGHT,
                      Type.INT,
                      64,
                      Range.between(1, 10_000),
                      MEDIUM,
                      "The ceiling (and start) of each store's adaptive limit of concurrent reads.")
                  .define(
                      READ_QUEUE_MAX,
                      Type.INT,
                      1000,
                      Range.between(0, 1_000_000),
                      MEDIUM,
                      "How many reads may wait per store for a free slot; past that they are shed at once.")
                  .define(
                      READ_DEADLINE_MS,
                      Type.LONG,
                      30_000L,
                      Range.between(1, 3_600_000),
                      MEDIUM,
                      "The longest one redeem may take (the poll budget may make it shorter).")
                  .define(
                      MAX_CONCURRENT_READS,
                      Type.INT,
                      0,
                      Range.atLeast(0),
                      LOW,
                      "How many redeems a process serves at once, cache hits included; 0 is unbounded.")
                  .define(
                      CACHE_MAX_BYTES,
                      Type.LONG,
                      64L << 20,
                      Range.atLeast(0),
                      MEDIUM,
                      "The byte bound of the redeemed-claim cache; 0 disables it.")
                  .define(
                      PREFETCH_MAX_BYTES,
                      Type.LONG,
                      32L << 20,
                      Range.atLeast(0),
                      MEDIUM,
                      "How many bytes of claims one prefetching consumer keeps fetched ahead of the"
                          + " application, counted as the bytes each claim occupies once inflated: a window"
                          + " that refills as records are deserialized. Prefetched claims stay pinned in the"
                          + " cache until read, so the window is also capped by "
                          + CACHE_MAX_BYTES
                          + " (shared by every consumer of the process); 0 disables prefetching.")
                  .define(
                      THRESHOLD_BYTES,
                      Type.INT,
                      262_144,
                      Range.atLeast(1),
                      HIGH,
                      "Values of at least this many serialized bytes are checked in; smaller ones pass inline.")
                  .define(
                      KEYS_ENABLED,
                      Type.BOOLEAN,
                      false,
                      LOW,
                      "Whether large keys are checked in too (with content-derived pack ids, so one key always "
                          + "yields one ref and partitioning and compaction keep working).")
                  .define(
                      TENANTS_ALLOWED,
                      Type.LIST,
                      "",
                      MEDIUM,
                      "The tenants whose refs a deserializer redeems; empty allows any.")
                  .define(
                      POLL_BUDGET_RATIO,
                      Type.DOUBLE,
                      0.5,
                      Range.between(0.01, 0.95),
                      MEDIUM,
                      "The share of max.poll.interval.ms that one poll's redeems may take together.")
                  .define(
                      COMPRESSION_TYPE,
                      Type.STRING,
                      "none",
                      CaseInsensitiveValidString.in("none", "gzip", "snappy", "lz4", "zstd"),
                      MEDIUM,
                      "How a claim is compressed before check-in; recorded in the pack, so readers need no setting.")
                  .define(
                      READ_MAX_BYTES,
                      Type.LONG,
                      DEFAULT_MAX_BYTES,
                      Range.between(1, MAX_ARRAY_BYTES),
                      MEDIUM,
                      "The most bytes one redeem may allocate: a ref whose stored or uncompressed length exceeds "
                          + "it is refused before any store request, and a claim that inflates past it (or past "
                          + "the uncompressed length its ref records) is corrupt, so a hostile ref or a "
                          + "decompression bomb cannot exhaust the heap. The default, 256 MiB, leaves room for a "
                          + "poll's claims in a consumer's heap; payloads larger than that belong in a different "
                          + "design (fetch the object from the store directly) rather than in a record.")
                  .define(
                      WRITE_MAX_BYTES,
                      Type.LONG,
                      DEFAULT_MAX_BYTES,
                      Range.between(1, MAX_ARRAY_BYTES),
                      MEDIUM,
                      "The largest value one check-in accepts, before compression: a larger one fails before "
                          + "any store request. A value whose compressed form would be larger than this (random "
                          + "bytes grow a little) is stored uncompressed, so both lengths its ref records stay "
                          + "within it: the quantity readers check against "
                          + READ_MAX_BYTES
                          + ". Keep it at "
                          + "or below the consumers' "
                          + READ_MAX_BYTES
                          + ", or they will refuse what was "
                          + "written (same default, 256 MiB).")
                  .define(
                      STREAM_MAX_BYTES,
                      Type.LONG,
                      -1L,
                      ConfigDef.LambdaValidator.with(
                          (name, value) -> {
                            long v = value == null ? 0 : (Long) value;
                            if (v != -1 && v < 1) {
                              throw new ConfigException(
                                  name, value, "must be -1 (the whole-claim limits) or at least 1");
                            }
                          },
                          () -> "-1, or [1,...]"),
                      MEDIUM,
                      "The largest streamed claim (ClaimCheck's streamed check-in and redeem, the gateway's "
                          + "POST and GET), stored or uncompressed: a streamed check-in past it fails (before "
                          + "any store request when its length is declared), and a streamed redeem of a ref "
                          + "past it is refused before any store request. A stream holds a few chunks in "
                          + "memory, never the claim, so it may be far larger than the whole-claim limits. "
                          + "Where a tenant's claims are encrypted, a streamed claim is sealed while "
                          + "streaming (an envelope of 32 KiB segments, ref version 5). -1 (the default) "
                          + "applies "
                          + WRITE_MAX_BYTES
                          + " to streamed check-ins and "
                          + READ_MAX_BYTES
                          + " to streamed redeems, as for whole claims.")));

  /**
   * The {@code claimcheck.} keys that the Kafka surfaces read on top of {@link #CONFIG_DEF} (the
   * serde's inner serdes and Streams handler choice, {@code ClaimCheckProducer}'s write pipeline,
   * the Connect transforms' converter): one map may configure every surface, so core accepts them
   * and leaves them to their surface.
   */
  private static final Set<String> SURFACE_KEYS =
      Set.of(
          "claimcheck.value.serde",
          "claimcheck.key.serde",
          "claimcheck.streams.final.failure",
          "claimcheck.streams.pipelined",
          "claimcheck.converter",
          "claimcheck.write.buffer.bytes",
          "claimcheck.write.max.inflight",
          "claimcheck.write.pack.max.claims",
          "claimcheck.write.pack.max.bytes");

  /**
   * The built-in settings a store may override as {@code claimcheck.store.<index>.<setting>}, such
   * as {@code s3.endpoint} or {@code op.deadline.ms} (a store of a plugged-in scheme also takes its
   * provider's settings).
   */
  public static final Set<String> PER_STORE_SETTINGS = StoreSpecs.GLOBAL_KEYS.keySet();

  /** The prefix of a Connect converter's own settings (a surface key family). */
  private static final String CONVERTER_SETTINGS_PREFIX = "claimcheck.converter.";

  private final List<StoreSpec> stores;
  private final EncryptionSettings encryption;

  /**
   * Validates {@code originals} (any map: keys outside {@code claimcheck.} are ignored; a {@code
   * claimcheck.} key no part of the library reads is refused, naming it, never showing its value).
   */
  public ClaimCheckConfig(Map<String, ?> originals) {
    super(CONFIG_DEF, checked(originals), false);
    Map<String, Object> own = claimcheckOnly(originals);
    try {
      this.stores = StoreSpecs.resolve(this, own);
      this.encryption = EncryptionKeys.settings(this, own);
    } catch (ConfigException e) {
      throw Secrets.scrubbed(e, own, ClaimCheckConfig::isKnownKey);
    }
  }

  // The key policy: every surface asks these, so one map configures them all and a misspelt
  // claimcheck.* key is refused wherever it is given.

  /**
   * Whether {@code key} is in the library's namespace ({@value #PREFIX}): the library judges it
   * (reads or refuses it), and it is not passed to a Kafka client.
   */
  public static boolean isClaimCheckKey(String key) {
    return key.startsWith(PREFIX);
  }

  /**
   * Whether {@code key} is a core setting: a {@link #CONFIG_DEF} key, the {@link #METER_REGISTRY
   * registry}, or a per-store key {@code claimcheck.store.<index>.<setting>} (its index and setting
   * are checked when the configuration is built).
   */
  public static boolean isCoreKey(String key) {
    return CONFIG_DEF.names().contains(key)
        || StoreSpecs.isPerStoreKey(key)
        || EncryptionKeys.isTenantKey(key)
        || key.equals(METER_REGISTRY);
  }

  /**
   * Whether {@code key} is a surface key: one the serde, the producer or the Connect transforms
   * read ({@code claimcheck.value.serde}, {@code claimcheck.key.serde}, {@code
   * claimcheck.streams.final.failure}, {@code claimcheck.write.*} of the producer, {@code
   * claimcheck.converter} and its {@code claimcheck.converter.<setting>}s), which core accepts and
   * leaves to its surface.
   */
  public static boolean isSurfaceKey(String key) {
    return SURFACE_KEYS.contains(key)
        || (key.startsWith(CONVERTER_SETTINGS_PREFIX)
            && key.length() > CONVERTER_SETTINGS_PREFIX.length());
  }

  /** Whether some part of the library reads {@code key}: a core key or a surface key. */
  public static boolean isKnownKey(String key) {
    return isCoreKey(key) || isSurfaceKey(key);
  }

  /**
   * The keys one surface accepts, given the {@link #isSurfaceKey surface keys} it reads ({@code
   * surfaceKeysRead}): every key outside {@value #PREFIX} (a Kafka client's), every core key, and
   * those of its surface keys; any other {@code claimcheck.} key is unknown to it and is refused
   * ({@link Secrets#refuseUnknown}) naming the key, never showing its value. A surface cannot
   * accept a {@code claimcheck.} key the library does not know.
   */
  public static Predicate<String> keysReadBy(Predicate<String> surfaceKeysRead) {
    return key ->
        !isClaimCheckKey(key) || isCoreKey(key) || (isSurfaceKey(key) && surfaceKeysRead.test(key));
  }

  /**
   * The {@code claimcheck.} keys of {@code originals}, all known and parsed once, or a scrubbed
   * failure.
   */
  private static Map<String, Object> checked(Map<String, ?> originals) {
    Map<String, Object> own = claimcheckOnly(originals);
    Secrets.refuseUnknown(own, PREFIX, ClaimCheckConfig::isKnownKey, "any part of the library");
    try {
      CONFIG_DEF.parse(own);
    } catch (ConfigException e) {
      throw Secrets.scrubbed(e, own, ClaimCheckConfig::isKnownKey);
    }
    return own;
  }

  private static Map<String, Object> claimcheckOnly(Map<String, ?> originals) {
    Map<String, Object> m = new java.util.HashMap<>();
    originals.forEach(
        (k, v) -> {
          if (isClaimCheckKey(k)) {
            m.put(k, v);
          }
        });
    return m;
  }

  private static ConfigDef.Validator tenantValidator() {
    return (name, value) -> {
      if (value == null
          || !TENANT_PATTERN.matcher((String) value).matches()
          || ((String) value).contains("..")) {
        throw new ConfigException(
            name, value, "a tenant is 1-40 of [a-z0-9._-], not starting with '.' or '-'");
      }
    };
  }

  /**
   * The per-tenant KEK ids ({@code claimcheck.encryption.tenant.<tenant>.kek}), by tenant; each was
   * validated as {@value #ENCRYPTION_KEK} is.
   */
  public Map<String, String> encryptionTenantKeks() {
    return encryption.tenantKeks();
  }

  /**
   * The KEK providers' settings by scheme ({@code claimcheck.encryption.<scheme>.*} without that
   * prefix, such as {@code aws-kms} → {@code region}); may hold secrets: never log it.
   */
  public Map<String, Map<String, String>> encryptionProviderSettings() {
    return encryption.providerSettings();
  }

  /** The configured stores, in index order. */
  public List<StoreSpec> stores() {
    return stores;
  }

  public Duration cooldown() {
    return Duration.ofMillis(getLong(COOLDOWN_MS));
  }

  public String tenant() {
    return getString(TENANT);
  }

  public Duration readDeadline() {
    return Duration.ofMillis(getLong(READ_DEADLINE_MS));
  }

  public List<String> tenantsAllowed() {
    return getList(TENANTS_ALLOWED);
  }

  /** The most bytes one redeem may allocate ({@value #READ_MAX_BYTES}); fits an array. */
  public int readMaxBytes() {
    return (int) (long) getLong(READ_MAX_BYTES);
  }

  /**
   * The largest streamed claim one streamed check-in accepts ({@value #STREAM_MAX_BYTES}, else
   * {@value #WRITE_MAX_BYTES}).
   */
  public long streamWriteMaxBytes() {
    long v = getLong(STREAM_MAX_BYTES);
    return v == -1 ? writeMaxBytes() : v;
  }

  /**
   * The largest streamed claim one streamed redeem reads ({@value #STREAM_MAX_BYTES}, else {@value
   * #READ_MAX_BYTES}).
   */
  public long streamReadMaxBytes() {
    long v = getLong(STREAM_MAX_BYTES);
    return v == -1 ? readMaxBytes() : v;
  }

  /** The largest value one check-in accepts ({@value #WRITE_MAX_BYTES}); fits an array. */
  public int writeMaxBytes() {
    return (int) (long) getLong(WRITE_MAX_BYTES);
  }

  /**
   * The store keys (relative to a store) pack {@code packId} of {@code tenant} may be stored under,
   * in the order a redeem searches them: at the configured {@value #KEY_LAYOUT}, then at the other
   * layout.
   */
  public List<String> packKeys(String tenant, long packId) {
    KeyLayout layout = KeyLayout.parse(getString(KEY_LAYOUT));
    return List.of(layout.key(tenant, packId), layout.other().key(tenant, packId));
  }

  /**
   * One configured store, resolved from {@code claimcheck.stores} and its per-store settings: its
   * URI, the provider serving its scheme and its parsed settings; immutable and thread-safe. Equal
   * specs describe the same store (same index, URI, provider class and settings), which is what
   * lets processes share one store set and one reader per distinct configuration. {@code toString}
   * never shows a secret.
   */
  public static final class StoreSpec {

    private final int index;
    private final URI uri;
    private final ClaimStoreProvider provider;
    private final StoreConfig settings;

    StoreSpec(int index, URI uri, ClaimStoreProvider provider, StoreConfig settings) {
      this.index = index;
      this.uri = Objects.requireNonNull(uri, "uri");
      this.provider = Objects.requireNonNull(provider, "provider");
      this.settings = Objects.requireNonNull(settings, "settings");
    }

    /** The store's index in {@code claimcheck.stores}. */
    public int index() {
      return index;
    }

    /** The store's URI, as configured (without user info). */
    public URI uri() {
      return uri;
    }

    /** The URI's scheme, in lower case. */
    public String scheme() {
      return StoreUris.scheme(uri);
    }

    /** The deadline of one operation on this store. */
    public Duration opDeadline() {
      return settings.opDeadline();
    }

    /** The store's parsed settings, as its provider reads them. */
    public StoreConfig settings() {
      return settings;
    }

    /**
     * Opens a new handle on this store through the provider serving its scheme; the caller owns and
     * closes it (a {@code memory:} store is the process-wide one of that name, which closing the
     * handle leaves open).
     */
    public ClaimStore open() {
      return provider.open(uri, settings);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof StoreSpec s
          && s.index == index
          && s.uri.equals(uri)
          && s.provider.getClass().equals(provider.getClass())
          && s.settings.equals(settings);
    }

    @Override
    public int hashCode() {
      return Objects.hash(index, uri, provider.getClass().getName(), settings);
    }

    @Override
    public String toString() {
      return "StoreSpec[index=" + index + ", uri=" + uri + ", settings=" + settings + "]";
    }
  }

  /**
   * The rule that keeps secrets out of every message, log line and {@code toString} this library
   * makes about its configuration; stateless and thread-safe.
   *
   * <p>A configured value is shown only when its key is a setting the library knows and whose value
   * is not secret (a tenant, a store URI without user info, a number, a class name). Never shown,
   * whatever the problem with it:
   *
   * <ul>
   *   <li>a {@link Password} (a {@code PASSWORD}-typed setting), in any form;
   *   <li>the value of a key the library does not know: a misspelt secret key is still a secret;
   *   <li>the value of any key whose name suggests a credential ({@link #isSecretName}): one
   *       containing {@code secret}, {@code password}, {@code passwd}, {@code pwd}, {@code token},
   *       {@code credential}, {@code private}, {@code session}, {@code auth}, {@code jaas}, {@code
   *       sasl}, {@code access.key} or {@code api.key}. An S3 access key id is such a key: it is
   *       half of a credential pair and never needed to explain a configuration error, so it is not
   *       shown either.
   * </ul>
   *
   * <p>Messages made elsewhere (Kafka's own {@code ConfigDef} parsing, a converter's {@code
   * configure}) are passed through {@link #scrub}, which replaces every such value found in them.
   */
  public static final class Secrets {

    /** What a message shows instead of a value it must not show. */
    public static final String HIDDEN = "[hidden]";

    private static final String[] SECRET_WORDS = {
      "secret",
      "password",
      "passwd",
      "pwd",
      "token",
      "credential",
      "private",
      "session",
      "auth",
      "jaas",
      "sasl",
      "access.key",
      "api.key",
      "apikey"
    };

    /** The shortest value {@link #scrub} replaces (shorter ones would garble the message). */
    private static final int MIN_SCRUBBED = 4;

    private Secrets() {}

    /** Whether {@code key}'s name suggests its value is a credential. */
    public static boolean isSecretName(String key) {
      String k = key.toLowerCase(Locale.ROOT);
      for (String w : SECRET_WORDS) {
        if (k.contains(w)) {
          return true;
        }
      }
      return false;
    }

    /**
     * Returns what a message may show of {@code value}, given under the known key {@code key}: the
     * value itself, or {@link #HIDDEN} for a password or a key named like a secret.
     */
    public static Object shown(String key, Object value) {
      return value instanceof Password || isSecretName(key) ? HIDDEN : value;
    }

    /**
     * Returns {@code message} with every value of {@code originals} that must not be shown replaced
     * by {@link #HIDDEN}: passwords, values of keys {@code known} does not accept, and values of
     * keys named like secrets.
     */
    public static String scrub(String message, Map<String, ?> originals, Predicate<String> known) {
      if (message == null) {
        return null;
      }
      String m = message;
      for (Map.Entry<String, ?> e : originals.entrySet()) {
        Object v = e.getValue();
        if (v == null) {
          continue;
        }
        boolean hide = v instanceof Password || isSecretName(e.getKey()) || !known.test(e.getKey());
        if (!hide) {
          continue;
        }
        String s = v instanceof Password p ? p.value() : String.valueOf(v);
        if (s != null && s.trim().length() >= MIN_SCRUBBED) {
          m = m.replace(s, HIDDEN);
          m = m.replace(s.trim(), HIDDEN);
        }
      }
      return m;
    }

    /** Returns {@code e}, or a copy without its cause whose message is {@link #scrub scrubbed}. */
    public static ConfigException scrubbed(
        ConfigException e, Map<String, ?> originals, Predicate<String> known) {
      String m = scrub(e.getMessage(), originals, known);
      return m.equals(e.getMessage()) && !causeShows(e, originals, known)
          ? e
          : new ConfigException(m);
    }

    private static boolean causeShows(
        Throwable e, Map<String, ?> originals, Predicate<String> known) {
      for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
        String m = c.getMessage();
        if (m != null && !m.equals(scrub(m, originals, known))) {
          return true;
        }
      }
      return false;
    }

    /**
     * Throws a {@link ConfigException} naming the first key of {@code originals} under {@code
     * prefix} that {@code known} does not accept — without its value.
     */
    public static void refuseUnknown(
        Map<String, ?> originals, String prefix, Predicate<String> known, String readers) {
      for (String key : new java.util.TreeSet<>(originals.keySet())) {
        if (key.startsWith(prefix) && !known.test(key)) {
          throw new ConfigException(
              key,
              HIDDEN,
              "not a claim-check setting "
                  + readers
                  + " reads (a misspelling?); its value is not shown, in case it is a secret");
        }
      }
    }
  }
}
