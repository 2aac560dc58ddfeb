package io.ankusa.claimcheck.collect;

import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.util.Optional;

/**
 * Reads a pack's tenant and id back from its object key, at either {@code KeyLayout}; stateless and
 * thread-safe.
 *
 * <p>A key is a pack key only when it is exactly {@code <tenant>/<16 hex>} (flat) or {@code
 * <tenant>/<2 hex>/<16 hex>} (sharded) with the shard equal to the id's top byte; anything else in
 * a store (a temporary file, another application's object) is never taken for a pack, so the
 * collector never deletes it.
 */
final class PackKeys {

  private PackKeys() {}

  /** The tenant segment of {@code key} when it is a valid tenant name, else empty. */
  public static Optional<String> tenantOf(String key) {
    int slash = key.indexOf('/');
    if (slash <= 0) {
      return Optional.empty();
    }
    String tenant = key.substring(0, slash);
    try {
      Tenant.of(tenant);
      return Optional.of(tenant);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The id of the pack under {@code key} when it is a pack key of {@code tenant}, else empty. */
  public static Optional<PackId> packId(String tenant, String key) {
    if (!key.startsWith(tenant + '/')) {
      return Optional.empty();
    }
    String rest = key.substring(tenant.length() + 1);
    String hex;
    if (rest.length() == PackId.HEX_LENGTH) {
      hex = rest;
    } else if (rest.length() == PackId.HEX_LENGTH + 3 && rest.charAt(2) == '/') {
      hex = rest.substring(3);
      if (!rest.startsWith(hex.substring(0, 2))) {
        return Optional.empty();
      }
    } else {
      return Optional.empty();
    }
    try {
      return Optional.of(PackId.parseHex(hex));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
