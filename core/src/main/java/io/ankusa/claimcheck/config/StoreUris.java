package io.ankusa.claimcheck.config;

import io.ankusa.claimcheck.internal.config.Secrets;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigException;

/**
 * Parses the entries of {@code claimcheck.stores} as far as every scheme shares (the rest is the
 * store provider's); thread-safe (stateless).
 */
final class StoreUris {

  private StoreUris() {}

  /** Parses {@code value}: a URI with a scheme and without user info, or a failure naming {@code key}. */
  static URI parse(String key, String value) {
    String v = value.trim();
    URI uri;
    try {
      uri = new URI(v);
    } catch (URISyntaxException e) {
      // e's message quotes the input, which may hold user info: show neither.
      throw new ConfigException(key, Secrets.HIDDEN,
          "not a URI: " + e.getReason() + " at index " + e.getIndex());
    }
    if (uri.getRawUserInfo() != null || (uri.getRawAuthority() != null
        && uri.getRawAuthority().contains("@"))) {
      throw new ConfigException(key, Secrets.HIDDEN, "a store URI must not carry user info"
          + " (credentials go in " + ClaimCheckConfig.S3_ACCESS_KEY_ID + " and "
          + ClaimCheckConfig.S3_SECRET_ACCESS_KEY + "); the URI is not shown");
    }
    if (uri.getScheme() == null) {
      throw new ConfigException(key, value, "a store URI starts with its scheme, like "
          + "s3://bucket[/prefix], file:///path or memory:<name>");
    }
    return uri;
  }

  /** The scheme of {@code uri}, in lower case (schemes are case-insensitive). */
  static String scheme(URI uri) {
    return uri.getScheme().toLowerCase(Locale.ROOT);
  }
}
