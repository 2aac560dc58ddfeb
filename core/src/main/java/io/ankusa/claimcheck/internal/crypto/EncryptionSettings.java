package io.ankusa.claimcheck.internal.crypto;

import java.util.Map;
import java.util.Objects;

/**
 * The encryption part of a configuration: what {@code claimcheck.encryption.*} said; immutable.
 * Equal settings share one {@link Encryption} (its data keys and cache) in a runtime.
 *
 * @param kek the writer's KEK id, or {@value #NONE}
 * @param tenantKeks per tenant, a KEK id or {@value #NONE} overriding {@code kek}
 * @param required whether unencrypted claims are refused, written or read
 * @param dekMaxUses the most claims one data key encrypts
 * @param dekMaxAgeNanos the longest one data key is used for new claims
 * @param cacheMaxKeys the most unwrapped data keys a reader holds
 * @param cacheTtlNanos how long a reader holds an unwrapped data key
 * @param providerSettings per scheme, the {@code claimcheck.encryption.<scheme>.*} settings
 */
public record EncryptionSettings(
    String kek,
    Map<String, String> tenantKeks,
    boolean required,
    long dekMaxUses,
    long dekMaxAgeNanos,
    int cacheMaxKeys,
    long cacheTtlNanos,
    Map<String, Map<String, String>> providerSettings) {

  /** The KEK value that turns encryption off. */
  public static final String NONE = "none";

  /** Encryption off, the defaults otherwise (tests). */
  public static final EncryptionSettings OFF =
      new EncryptionSettings(
          NONE,
          Map.of(),
          false,
          5_000_000L,
          3_600_000_000_000L,
          1000,
          3_600_000_000_000L,
          Map.of());

  /** Validates and freezes the fields. */
  public EncryptionSettings {
    Objects.requireNonNull(kek, "kek");
    tenantKeks = Map.copyOf(tenantKeks);
    providerSettings = Map.copyOf(providerSettings);
  }

  /** Never shows the providers' settings (they may hold a secret access key). */
  @Override
  public String toString() {
    return "EncryptionSettings[kek="
        + kek
        + ", tenantKeks="
        + tenantKeks
        + ", required="
        + required
        + ", providerSettings=[hidden]]";
  }

  /** The KEK id {@code tenant}'s claims are written under, or {@value #NONE}. */
  public String kekFor(String tenant) {
    return tenantKeks.getOrDefault(tenant, kek);
  }

  /** Whether this client decrypts at all: some KEK is configured. */
  public boolean enabled() {
    return !NONE.equals(kek) || tenantKeks.values().stream().anyMatch(k -> !NONE.equals(k));
  }

  /** These settings with {@code kek} as the writer's KEK (tests). */
  public EncryptionSettings withKek(String kek) {
    return new EncryptionSettings(
        kek,
        tenantKeks,
        required,
        dekMaxUses,
        dekMaxAgeNanos,
        cacheMaxKeys,
        cacheTtlNanos,
        providerSettings);
  }
}
