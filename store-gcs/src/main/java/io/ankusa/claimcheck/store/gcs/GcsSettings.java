package io.ankusa.claimcheck.store.gcs;

import static io.ankusa.claimcheck.store.gcs.GcsStoreProvider.ANONYMOUS;
import static io.ankusa.claimcheck.store.gcs.GcsStoreProvider.CHUNK_QUANTUM;
import static io.ankusa.claimcheck.store.gcs.GcsStoreProvider.CHUNK_SIZE;
import static io.ankusa.claimcheck.store.gcs.GcsStoreProvider.CREDENTIALS_FILE;
import static io.ankusa.claimcheck.store.gcs.GcsStoreProvider.CREDENTIALS_JSON;
import static io.ankusa.claimcheck.store.gcs.GcsStoreProvider.ENDPOINT;
import static io.ankusa.claimcheck.store.gcs.GcsStoreProvider.PROJECT_ID;

import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The settings of one Cloud Storage claim store, parsed once from its URI and {@link StoreConfig};
 * an immutable, thread-safe record. {@link #toString()} never shows the credentials JSON or its
 * file's content.
 *
 * @param bucket the bucket name
 * @param prefix the object name prefix: empty, or ending with {@code /}
 * @param endpoint the JSON API endpoint (scheme, host, port); absent means Google's
 * @param credentialsFile a credentials JSON file; absent means the inline JSON or the default chain
 * @param credentialsJson an inline credentials JSON; absent means the file or the default chain
 * @param anonymous send no credentials
 * @param projectId the project the client names; absent means the credentials' own
 * @param operationTimeout the longest any one store operation may take
 * @param chunkSize the chunk size of a resumable (streamed) upload
 */
record GcsSettings(
    String bucket,
    String prefix,
    Optional<URI> endpoint,
    Optional<Path> credentialsFile,
    Optional<String> credentialsJson,
    boolean anonymous,
    Optional<String> projectId,
    Duration operationTimeout,
    int chunkSize) {

  /**
   * Bucket names: 3 to 63 lower-case letters, digits, '-', '_' and '.', starting and ending alike.
   */
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]");

  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9!_.*'()/=-]*");
  private static final Pattern PROJECT = Pattern.compile("[a-z][a-z0-9.:-]{4,61}[a-z0-9]");

  /**
   * The settings of the store at {@code uri}: an {@link IllegalArgumentException} for a URI that is
   * not {@code gs://bucket[/prefix]}, a {@link ConfigException} naming the key for a bad setting.
   */
  static GcsSettings from(URI uri, StoreConfig config) {
    if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "a Cloud Storage store is gs://bucket[/prefix], without user info, a query or a fragment"
              + " (credentials go in gcs.credentials.file or gcs.credentials.json)");
    }
    String bucket = uri.getHost();
    if (bucket == null || !BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
      throw new IllegalArgumentException(
          "a Cloud Storage store is gs://bucket[/prefix] with a bucket name of 3 to 63 lower-case"
              + " letters, digits, '-', '_' and '.'");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String prefix = path.startsWith("/") ? path.substring(1) : path;
    if (!PREFIX.matcher(prefix).matches() || prefix.contains("//") || prefix.startsWith("/")) {
      throw new IllegalArgumentException(
          "the prefix of a Cloud Storage store may hold letters, digits and !_.*'()/=- only");
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    Optional<Path> file = credentialsFile(config);
    Optional<String> json = secret(config.getPassword(CREDENTIALS_JSON));
    boolean anonymous = config.getBoolean(ANONYMOUS);
    if (file.isPresent() && json.isPresent()) {
      throw new ConfigException(
          config.keyOf(CREDENTIALS_JSON),
          "[hidden]",
          "give " + config.keyOf(CREDENTIALS_FILE) + " or the credentials JSON, not both");
    }
    if (anonymous && (file.isPresent() || json.isPresent())) {
      throw new ConfigException(
          config.keyOf(ANONYMOUS), true, "anonymous access takes no credentials file or JSON");
    }
    int chunk = config.getInt(CHUNK_SIZE);
    if (chunk % CHUNK_QUANTUM != 0) {
      throw new ConfigException(
          config.keyOf(CHUNK_SIZE), chunk, "must be a multiple of 256 KiB (262144)");
    }
    return new GcsSettings(
        bucket,
        prefix,
        endpoint(config),
        file,
        json,
        anonymous,
        projectId(config),
        config.opDeadline(),
        chunk);
  }

  private static Optional<Path> credentialsFile(StoreConfig config) {
    String v = config.getString(CREDENTIALS_FILE);
    if (v == null || v.isBlank()) {
      return Optional.empty();
    }
    Path p;
    try {
      p = Path.of(v.trim());
    } catch (InvalidPathException e) {
      throw new ConfigException(config.keyOf(CREDENTIALS_FILE), "[hidden]", "not a file path");
    }
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new ConfigException(
          config.keyOf(CREDENTIALS_FILE),
          "[hidden]",
          "not a readable file (the path is not shown)");
    }
    return Optional.of(p);
  }

  private static Optional<String> projectId(StoreConfig config) {
    String v = config.getString(PROJECT_ID);
    if (v == null || v.isBlank()) {
      return Optional.empty();
    }
    if (!PROJECT.matcher(v.trim()).matches()) {
      throw new ConfigException(config.keyOf(PROJECT_ID), v, "not a Google Cloud project id");
    }
    return Optional.of(v.trim());
  }

  private static Optional<URI> endpoint(StoreConfig config) {
    String v = config.getString(ENDPOINT);
    if (v == null || v.isBlank()) {
      return Optional.empty();
    }
    URI u;
    try {
      u = new URI(v.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(config.keyOf(ENDPOINT), "[hidden]", "not a URL; not shown");
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    String path = u.getRawPath() == null ? "" : u.getRawPath();
    if (!(scheme.equals("http") || scheme.equals("https"))
        || u.getHost() == null
        || u.getRawUserInfo() != null
        || u.getRawQuery() != null
        || u.getRawFragment() != null
        || !(path.isEmpty() || path.equals("/"))) {
      throw new ConfigException(
          config.keyOf(ENDPOINT),
          "[hidden]",
          "must be an http:// or https:// URL with a host and nothing after it (no user info,"
              + " path or query)");
    }
    return Optional.of(URI.create(scheme + "://" + u.getRawAuthority()));
  }

  private static Optional<String> secret(Password p) {
    return p == null || p.value() == null || p.value().isBlank()
        ? Optional.empty()
        : Optional.of(p.value());
  }

  /** {@code gs://bucket/prefix}: the store's name in messages, never a credential. */
  String location() {
    return "gs://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }

  @Override
  public String toString() {
    return "GcsSettings["
        + location()
        + ", endpoint="
        + endpoint.map(URI::toString).orElse("(default)")
        + ", credentials="
        + (anonymous
            ? "none"
            : credentialsFile.isPresent()
                ? "file"
                : credentialsJson.isPresent() ? "inline JSON" : "default chain")
        + "]";
  }
}
