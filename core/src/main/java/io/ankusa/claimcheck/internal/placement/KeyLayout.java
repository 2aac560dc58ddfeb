package io.ankusa.claimcheck.internal.placement;

import io.ankusa.claimcheck.ref.PackId;
import java.util.Locale;

/**
 * How a pack's object key is formed from its tenant and pack id; immutable and thread-safe.
 *
 * <p>Keys are relative to a store (the store adds its own prefix) and never name a node, so any
 * process reads every claim. {@link #SHARDED} adds a level named by the pack id's top eight bits,
 * spreading one tenant's packs over 256 prefixes, since S3 throttles per prefix. The pack id's hex
 * is {@link PackId#hex()}'s, the one place it is written.
 */
public enum KeyLayout {
  /** {@code <tenant>/<packId>}. */
  FLAT {
    @Override
    public String key(String tenant, long packId) {
      return tenant + '/' + new PackId(packId).hex();
    }
  },
  /** {@code <tenant>/<top 8 bits of packId, 2 hex digits>/<packId>}. */
  SHARDED {
    @Override
    public String key(String tenant, long packId) {
      String hex = new PackId(packId).hex();
      return tenant + '/' + hex.substring(0, 2) + '/' + hex;
    }
  };

  /** Returns the key of pack {@code packId} of {@code tenant} (a validated tenant name). */
  public abstract String key(String tenant, long packId);

  /** Returns the other layout: a read searches the configured one, then this one. */
  public KeyLayout other() {
    return this == FLAT ? SHARDED : FLAT;
  }

  /** Parses a config value ({@code flat} or {@code sharded}, case-insensitive). */
  public static KeyLayout parse(String value) {
    return valueOf(value.trim().toUpperCase(Locale.ROOT));
  }
}
