package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.store.ClaimStore;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;

/**
 * The CLI's {@code --config FILE}: Kafka client settings plus the serde's {@code claimcheck.*}
 * keys, validated when loaded; immutable.
 *
 * <p>A {@code claimcheck.*} key that no part of the library reads ({@link
 * ClaimCheckConfig#isKnownKey}) is rejected, so a typo never silently falls back to a default; the
 * serde's and the Connect transforms' own keys are accepted (one file may configure them all) and
 * not read here.
 */
final class CliConfig {

  private final Map<String, Object> all;
  private final ClaimCheckConfig claimCheck;

  private CliConfig(Map<String, Object> all, boolean kafka) {
    this.all = Map.copyOf(all);
    for (String key : all.keySet()) {
      if (ClaimCheckConfig.isClaimCheckKey(key) && !ClaimCheckConfig.isKnownKey(key)) {
        throw new ConfigException(key, "(not shown)", "unknown claimcheck key");
      }
    }
    if (kafka && !all.containsKey("bootstrap.servers")) {
      throw new ConfigException("bootstrap.servers", null, "is required");
    }
    this.claimCheck = new ClaimCheckConfig(all);
  }

  /** Loads and validates {@code file}; {@link CliException} (config) when it cannot. */
  static CliConfig load(Path file) {
    return load(file, true);
  }

  /**
   * {@link #load(Path)}, requiring {@code bootstrap.servers} only when {@code kafka} (a command
   * that reads topics).
   */
  static CliConfig load(Path file, boolean kafka) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw new CliException(ExitCodes.CONFIG, "cannot read config file " + file + ": " + e);
    }
    Map<String, Object> m = new HashMap<>();
    p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k).trim()));
    try {
      return new CliConfig(m, kafka);
    } catch (ConfigException e) {
      throw new CliException(ExitCodes.CONFIG, "bad config in " + file + ": " + e.getMessage());
    }
  }

  /** Every setting (Kafka clients ignore the {@code claimcheck.*} ones). */
  Map<String, Object> all() {
    return all;
  }

  ClaimCheckConfig claimCheck() {
    return claimCheck;
  }

  /** Opens every configured store, in index order; the caller closes them. */
  List<ClaimStore> openStores() {
    List<ClaimStore> stores = new ArrayList<>();
    for (StoreSpec spec : claimCheck.stores()) {
      stores.add(spec.open());
    }
    return stores;
  }

  /** Closes {@code stores}. */
  static void close(List<ClaimStore> stores) {
    stores.forEach(ClaimStore::close);
  }
}
