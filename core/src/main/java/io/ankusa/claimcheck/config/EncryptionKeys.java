package io.ankusa.claimcheck.config;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.ankusa.claimcheck.internal.crypto.EncryptionSettings;
import io.ankusa.claimcheck.internal.crypto.KekProviders;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The {@code claimcheck.encryption.*} keys: their definitions, the per-tenant KEK key family, and
 * the validated {@link EncryptionSettings}; stateless and thread-safe.
 */
final class EncryptionKeys {

  static final String KEK = "claimcheck.encryption.kek";
  static final String REQUIRED = "claimcheck.encryption.required";
  static final String DEK_MAX_ENCRYPTIONS = "claimcheck.encryption.dek.max.encryptions";
  static final String DEK_MAX_AGE_MS = "claimcheck.encryption.dek.max.age.ms";
  static final String CACHE_MAX_KEYS = "claimcheck.encryption.cache.max.keys";
  static final String CACHE_TTL_MS = "claimcheck.encryption.cache.ttl.ms";
  static final String AWS_PREFIX = "claimcheck.encryption.aws-kms.";
  static final String AWS_REGION = AWS_PREFIX + "region";
  static final String AWS_ENDPOINT = AWS_PREFIX + "endpoint";
  static final String AWS_ACCESS_KEY_ID = AWS_PREFIX + "access.key.id";
  static final String AWS_SECRET_ACCESS_KEY = AWS_PREFIX + "secret.access.key";
  static final String AWS_TIMEOUT_MS = AWS_PREFIX + "timeout.ms";

  /** {@code claimcheck.encryption.tenant.<tenant>.kek}. */
  static final Pattern TENANT_KEK =
      Pattern.compile("claimcheck\\.encryption\\.tenant\\.(.+)\\.kek");

  private static final String KEK_DOC =
      "none (the default), local:PATH (a Tink keyset file, for development and tests: claimcheck"
          + " keys new --out FILE) or aws-kms:KEY-ARN-OR-ALIAS: the key-encryption key new claims'"
          + " data keys are wrapped by. A reader decrypts whatever KEK a claim names (if it may use"
          + " it) once any KEK is set; per tenant, claimcheck.encryption.tenant.<tenant>.kek"
          + " overrides it, so deleting one tenant's KEK shreds exactly its claims.";

  private EncryptionKeys() {}

  static ConfigDef define(ConfigDef def) {
    return def.define(KEK, Type.STRING, EncryptionSettings.NONE, HIGH, KEK_DOC)
        .define(
            REQUIRED,
            Type.BOOLEAN,
            false,
            MEDIUM,
            "Whether unencrypted claims are refused: a writer must have a KEK, and a reader refuses"
                + " a ref to an unencrypted claim before fetching it.")
        .define(
            DEK_MAX_ENCRYPTIONS,
            Type.LONG,
            5_000_000L,
            Range.between(1, 1L << 31),
            LOW,
            "The most claims one data key encrypts before a fresh one is asked of the KEK (AES-GCM"
                + " with random 96-bit nonces: far below the 2^32 bound).")
        .define(
            DEK_MAX_AGE_MS,
            Type.LONG,
            3_600_000L,
            Range.between(1, 7L * 24 * 3_600_000),
            LOW,
            "The longest one data key encrypts new claims.")
        .define(
            CACHE_MAX_KEYS,
            Type.INT,
            1000,
            Range.between(1, 1_000_000),
            LOW,
            "The most unwrapped data keys a reader keeps (least recently used out first).")
        .define(
            CACHE_TTL_MS,
            Type.LONG,
            3_600_000L,
            Range.between(1, 7L * 24 * 3_600_000),
            LOW,
            "How long a reader keeps an unwrapped data key before asking the KEK again.")
        .define(
            AWS_REGION,
            Type.STRING,
            "",
            LOW,
            "aws-kms: the region (empty: the key ARN's region, else the AWS default region chain).")
        .define(
            AWS_ENDPOINT,
            Type.STRING,
            "",
            LOW,
            "aws-kms: an endpoint override such as http://localhost:4566 (empty: AWS's).")
        .define(
            AWS_ACCESS_KEY_ID,
            Type.PASSWORD,
            null,
            LOW,
            "aws-kms: a static access key id (with the secret; unset: the default credential chain).")
        .define(
            AWS_SECRET_ACCESS_KEY,
            Type.PASSWORD,
            null,
            LOW,
            "aws-kms: the static secret access key (with the id).")
        .define(
            AWS_TIMEOUT_MS,
            Type.LONG,
            2_000L,
            Range.between(1, 600_000),
            LOW,
            "aws-kms: the timeout of one KMS call attempt.");
  }

  /** Whether {@code key} is a per-tenant KEK key (its tenant is checked when built). */
  static boolean isTenantKey(String key) {
    return TENANT_KEK.matcher(key).matches();
  }

  /** The settings of {@code config}; a {@link ConfigException} naming the bad key. */
  static EncryptionSettings settings(ClaimCheckConfig config, Map<String, Object> own) {
    KekProviders providers = null;
    Map<String, String> tenants = new HashMap<>();
    for (Map.Entry<String, Object> e : own.entrySet()) {
      Matcher m = TENANT_KEK.matcher(e.getKey());
      if (m.matches()) {
        String tenant = m.group(1);
        if (!ClaimCheckConfig.TENANT_PATTERN.matcher(tenant).matches() || tenant.contains("..")) {
          throw new ConfigException(
              e.getKey(), null, "'" + tenant + "' is not a tenant (1-40 of [a-z0-9._-])");
        }
        tenants.put(tenant, String.valueOf(e.getValue()).trim());
      }
    }
    String kek = config.getString(KEK).trim();
    Map<String, Map<String, String>> perScheme = Map.of("aws-kms", aws(config));
    providers = validate(KEK, kek, providers, perScheme);
    for (Map.Entry<String, String> t : tenants.entrySet()) {
      providers =
          validate(
              "claimcheck.encryption.tenant." + t.getKey() + ".kek",
              t.getValue(),
              providers,
              perScheme);
    }
    EncryptionSettings s =
        new EncryptionSettings(
            kek,
            tenants,
            config.getBoolean(REQUIRED),
            config.getLong(DEK_MAX_ENCRYPTIONS),
            config.getLong(DEK_MAX_AGE_MS) * 1_000_000L,
            config.getInt(CACHE_MAX_KEYS),
            config.getLong(CACHE_TTL_MS) * 1_000_000L,
            perScheme);
    String writer = s.kekFor(config.tenant());
    if (s.required() && EncryptionSettings.NONE.equals(writer)) {
      throw new ConfigException(
          REQUIRED,
          true,
          "encryption is required, but tenant "
              + config.tenant()
              + " has no KEK: set "
              + KEK
              + " (or its tenant's key)");
    }
    if (!EncryptionSettings.NONE.equals(writer)
        && config.getBoolean(ClaimCheckConfig.KEYS_ENABLED)) {
      throw new ConfigException(
          ClaimCheckConfig.KEYS_ENABLED,
          true,
          "key check-in is not supported with encryption yet (a key's ref must be the same for the"
              + " same key; sealed bytes differ at every check-in)");
    }
    return s;
  }

  private static KekProviders validate(
      String key, String kek, KekProviders providers, Map<String, Map<String, String>> perScheme) {
    if (EncryptionSettings.NONE.equals(kek)) {
      return providers;
    }
    KekProviders p = providers != null ? providers : KekProviders.load();
    try {
      String scheme = KekProviders.schemeOf(kek);
      p.forId(kek).validate(kek, perScheme.getOrDefault(scheme, Map.of()));
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new ConfigException(key, kek, e.getMessage());
    }
    return p;
  }

  private static Map<String, String> aws(ClaimCheckConfig config) {
    Map<String, String> m = new HashMap<>();
    m.put("region", config.getString(AWS_REGION));
    m.put("endpoint", config.getString(AWS_ENDPOINT));
    m.put("timeout.ms", String.valueOf(config.getLong(AWS_TIMEOUT_MS)));
    Password id = config.getPassword(AWS_ACCESS_KEY_ID);
    Password secret = config.getPassword(AWS_SECRET_ACCESS_KEY);
    if ((id == null) != (secret == null)) {
      throw new ConfigException(
          id == null ? AWS_ACCESS_KEY_ID : AWS_SECRET_ACCESS_KEY,
          null,
          "set both " + AWS_ACCESS_KEY_ID + " and " + AWS_SECRET_ACCESS_KEY + ", or neither");
    }
    if (id != null) {
      m.put("access.key.id", id.value());
      m.put("secret.access.key", secret.value());
    }
    return m;
  }
}
