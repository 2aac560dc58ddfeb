package io.ankusa.claimcheck.config;

import io.ankusa.claimcheck.config.ClaimCheckConfig.Secrets;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;

/**
 * Parses the entries of {@code claimcheck.stores} as far as every scheme shares (the rest is the
 * store provider's), and decides what a message may show of one; thread-safe (stateless).
 *
 * <p>Credentials never go in a store URI, in any form: an {@code @} anywhere (the user-info
 * delimiter of {@code s3://id:secret@bucket}, and of the opaque or path forms {@code
 * s3:id:secret@bucket}, {@code s3:/id:secret@bucket} that carry no parsed user info) refuses the
 * URI without showing it. A URI the library or a provider refuses for another reason is shown only
 * when nothing after its scheme could be a secret ({@link #shown}).
 */
final class StoreUris {

  /** A host with an optional port: what an authority may be for a message to show it. */
  private static final Pattern HOST_PORT = Pattern.compile("[A-Za-z0-9._~%-]*(:[0-9]*)?");

  /** Where credentials go instead (the S3 store's library-wide keys). */
  private static final String CREDENTIAL_KEYS =
      "claimcheck.s3.access.key.id and claimcheck.s3.secret.access.key";

  private StoreUris() {}

  /**
   * Parses {@code value}: a URI with a scheme and without user info, or a failure naming {@code
   * key}.
   */
  static URI parse(String key, String value) {
    String v = value.trim();
    if (v.indexOf('@') >= 0) {
      throw new ConfigException(
          key,
          Secrets.HIDDEN,
          "a store URI must not contain '@' (user info"
              + " in any form; credentials go in "
              + CREDENTIAL_KEYS
              + ", and an '@' in a path is written %40); the"
              + " URI is not shown");
    }
    URI uri;
    try {
      uri = new URI(v);
    } catch (URISyntaxException e) {
      // e's message quotes the input, which may hold a secret: show neither.
      throw new ConfigException(
          key, Secrets.HIDDEN, "not a URI: " + e.getReason() + " at index " + e.getIndex());
    }
    if (uri.getRawUserInfo() != null
        || (uri.getRawAuthority() != null && uri.getRawAuthority().contains("@"))) {
      throw new ConfigException(
          key,
          Secrets.HIDDEN,
          "a store URI must not carry user info"
              + " (credentials go in "
              + CREDENTIAL_KEYS
              + "); the URI is not shown");
    }
    if (uri.getScheme() == null) {
      throw new ConfigException(
          key,
          shown(uri),
          "a store URI starts with its scheme, like "
              + "s3://bucket[/prefix], file:///path or memory:<name>");
    }
    return uri;
  }

  /**
   * What a message may show of the parsed store URI {@code uri}: the URI when its authority is a
   * host (and port) and no {@code :} follows (so no {@code id:secret} pair can hide in an opaque
   * part or a path), else {@link Secrets#HIDDEN} after its scheme.
   */
  static String shown(URI uri) {
    String rest = uri.getRawSchemeSpecificPart();
    String path = rest;
    if (rest.startsWith("//")) {
      int end = rest.indexOf('/', 2);
      String authority = rest.substring(2, end < 0 ? rest.length() : end);
      if (!HOST_PORT.matcher(authority).matches()) {
        return hidden(uri);
      }
      path = end < 0 ? "" : rest.substring(end);
    }
    if (path.indexOf(':') >= 0
        || path.indexOf('@') >= 0
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      return hidden(uri);
    }
    return uri.toString();
  }

  private static String hidden(URI uri) {
    return uri.getScheme() == null ? Secrets.HIDDEN : uri.getScheme() + ":" + Secrets.HIDDEN;
  }

  /** The scheme of {@code uri}, in lower case (schemes are case-insensitive). */
  static String scheme(URI uri) {
    return uri.getScheme().toLowerCase(Locale.ROOT);
  }
}
