package io.ankusa.claimcheck.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.ankusa.claimcheck.config.ClaimCheckConfig.Secrets;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import io.ankusa.claimcheck.store.file.FileStoreProvider;
import io.ankusa.claimcheck.store.s3.S3StoreProvider;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Resolves {@code claimcheck.stores} and the per-store settings ({@code
 * claimcheck.store.<index>.<setting>}) into {@link StoreSpec}s; thread-safe (stateless).
 *
 * <p>Each setting has one definition (type, default, validator, doc): {@link #COMMON}'s for the
 * deadline every store has, else its provider's {@link ClaimStoreProvider#settings()}. The built-in
 * ones are also library-wide keys ({@link #GLOBAL_KEYS}, defined in {@code ClaimCheckConfig} from
 * the same definition): a store's value is its override, else the library-wide value, else the
 * default, parsed by a {@code ConfigDef} under the per-store key, so a failure names the key that
 * was wrong.
 */
final class StoreSpecs {

  private static final String STORES = "claimcheck.stores";

  /** The prefix of the per-store keys, {@code claimcheck.store.<index>.<setting>}. */
  private static final String PER_STORE = "claimcheck.store.";

  private static final Pattern OVERRIDE =
      Pattern.compile(Pattern.quote(PER_STORE) + "(\\d+)\\.(.+)");

  /** The setting every store has. */
  static final ConfigDef COMMON =
      new ConfigDef()
          .define(
              StoreConfig.OP_DEADLINE_MS,
              Type.LONG,
              10_000L,
              Range.between(1, 600_000),
              MEDIUM,
              "The deadline of one store operation. The write deadline of a check-in is the largest of "
                  + "the stores' and covers every store, attempt and pack-id retry.");

  /** Each built-in per-store setting with a library-wide key: its name → that key. */
  static final Map<String, String> GLOBAL_KEYS;

  /** The definitions of the library-wide keys, in {@link #GLOBAL_KEYS}' order. */
  private static final List<ConfigKey> GLOBAL_DEFS;

  static {
    Map<String, String> keys = new LinkedHashMap<>();
    List<ConfigKey> defs = new ArrayList<>();
    for (ConfigKey k : COMMON.configKeys().values()) {
      keys.put(k.name, PER_STORE + k.name);
      defs.add(k);
    }
    for (ClaimStoreProvider p : List.of(new S3StoreProvider(), new FileStoreProvider())) {
      for (ConfigKey k : p.settings().configKeys().values()) {
        keys.put(k.name, "claimcheck." + k.name);
        defs.add(k);
      }
    }
    GLOBAL_KEYS = java.util.Collections.unmodifiableMap(keys);
    GLOBAL_DEFS = List.copyOf(defs);
  }

  private StoreSpecs() {}

  /**
   * Whether {@code key} has the form of a per-store key, {@code claimcheck.store.<index>.<setting>}
   * (whether that store and setting exist is checked by {@link #resolve}).
   */
  static boolean isPerStoreKey(String key) {
    return OVERRIDE.matcher(key).matches();
  }

  /** Defines the library-wide key of every built-in per-store setting in {@code def}. */
  static ConfigDef defineGlobals(ConfigDef def) {
    for (ConfigKey k : GLOBAL_DEFS) {
      define(def, GLOBAL_KEYS.get(k.name), k);
    }
    return def;
  }

  static List<StoreSpec> resolve(ClaimCheckConfig config, Map<String, Object> originals) {
    List<String> uris = config.getList(STORES);
    if (uris.isEmpty()) {
      throw new ConfigException(STORES, "", "at least one store is required");
    }
    Map<Integer, Map<String, Object>> overrides = new HashMap<>();
    for (Map.Entry<String, Object> e : originals.entrySet()) {
      Matcher m = OVERRIDE.matcher(e.getKey());
      if (!m.matches()) {
        continue;
      }
      int index;
      try {
        index = Integer.parseInt(m.group(1));
      } catch (NumberFormatException ex) {
        throw new ConfigException(e.getKey(), Secrets.HIDDEN, "not a store index");
      }
      if (index >= uris.size()) {
        // Its value is not shown: a setting for a store that does not exist may be a secret.
        throw new ConfigException(
            e.getKey(),
            Secrets.HIDDEN,
            "there is no store " + index + " (" + uris.size() + " configured in " + STORES + ")");
      }
      overrides.computeIfAbsent(index, i -> new HashMap<>()).put(m.group(2), e.getValue());
    }
    StoreProviders providers = StoreProviders.load();
    Map<String, ?> globals = config.values();
    List<StoreSpec> specs = new ArrayList<>();
    for (int i = 0; i < uris.size(); i++) {
      specs.add(spec(providers, globals, i, uris.get(i), overrides.getOrDefault(i, Map.of())));
    }
    return List.copyOf(specs);
  }

  private static StoreSpec spec(
      StoreProviders providers,
      Map<String, ?> globals,
      int i,
      String raw,
      Map<String, Object> overrides) {
    URI uri = StoreUris.parse(STORES, raw);
    String scheme = StoreUris.scheme(uri);
    ClaimStoreProvider provider = providers.forScheme(scheme, STORES, StoreUris.shown(uri));
    ConfigDef def = new ConfigDef(COMMON);
    provider.settings().configKeys().values().forEach(def::define);
    String at = PER_STORE + i + ".";
    for (String name : new TreeSet<>(overrides.keySet())) {
      if (!def.names().contains(name)) {
        throw new ConfigException(
            at + name,
            Secrets.HIDDEN,
            "not a setting of a "
                + scheme
                + " store (its value is not shown, in case it is a secret); known: "
                + new TreeSet<>(def.names()));
      }
    }
    ConfigDef perStore = new ConfigDef();
    Map<String, Object> input = new HashMap<>();
    Map<String, String> keys = new HashMap<>();
    for (ConfigKey k : def.configKeys().values()) {
      define(perStore, at + k.name, k);
      String global = GLOBAL_KEYS.get(k.name);
      if (overrides.containsKey(k.name)) {
        input.put(at + k.name, overrides.get(k.name));
        keys.put(k.name, at + k.name);
      } else if (global != null && globals.containsKey(global)) {
        input.put(at + k.name, globals.get(global));
        keys.put(k.name, global);
      } else {
        keys.put(k.name, at + k.name);
      }
    }
    Map<String, Object> parsed = perStore.parse(input);
    Map<String, Object> values = new HashMap<>();
    def.names().forEach(name -> values.put(name, parsed.get(at + name)));
    StoreConfig settings = new StoreConfig(def, values, i, keys);
    try {
      provider.validate(uri, settings);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(STORES, StoreUris.shown(uri), e.getMessage());
    }
    return new StoreSpec(i, uri, provider, settings);
  }

  /** Defines {@code k} in {@code def} under the name {@code name}. */
  private static void define(ConfigDef def, String name, ConfigKey k) {
    def.define(name, k.type, k.defaultValue, k.validator, k.importance, k.documentation);
  }
}
