package io.ankusa.claimcheck.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;

/** Parses the entries of {@code claimcheck.stores}; thread-safe (stateless). */
final class StoreUris {

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9!_.*'()/-]*");
  private static final Pattern MEMORY = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private StoreUris() {}

  /** The parsed URI of one store, before per-store settings are applied. */
  record Parsed(String scheme, String bucketOrName, String prefix, Path root) {}

  /** Parses {@code value}, or throws a {@link ConfigException} naming {@code key}. */
  static Parsed parse(String key, String value) {
    String v = value.trim();
    if (v.startsWith("memory:")) {
      String name = v.substring("memory:".length());
      if (!MEMORY.matcher(name).matches()) {
        throw new ConfigException(key, value, "a memory store is memory:<name>, name of [A-Za-z0-9._-]");
      }
      return new Parsed("memory", name, "", null);
    }
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
    if ("s3".equals(uri.getScheme())) {
      String bucket = uri.getHost();
      if (bucket == null || !BUCKET.matcher(bucket).matches()) {
        throw new ConfigException(key, value, "an S3 store is s3://bucket[/prefix] with a valid bucket name");
      }
      String path = uri.getPath() == null ? "" : uri.getPath();
      String prefix = path.replaceAll("^/+", "");
      if (!PREFIX.matcher(prefix).matches() || prefix.contains("..") || prefix.contains("//")) {
        throw new ConfigException(key, value, "the key prefix has characters S3 keys should not");
      }
      if (!prefix.isEmpty() && !prefix.endsWith("/")) {
        prefix = prefix + "/";
      }
      return new Parsed("s3", bucket, prefix, null);
    }
    if ("file".equals(uri.getScheme())) {
      if (uri.getPath() == null || uri.getPath().isEmpty() || uri.getAuthority() != null) {
        throw new ConfigException(key, value, "a file store is file:///absolute/path");
      }
      return new Parsed("file", null, "", Path.of(uri));
    }
    throw new ConfigException(key, value,
        "a store is s3://bucket[/prefix], file:///path or memory:<name>");
  }
}
