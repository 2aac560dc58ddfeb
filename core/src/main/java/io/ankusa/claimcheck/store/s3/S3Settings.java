package io.ankusa.claimcheck.store.s3;

import static io.ankusa.claimcheck.store.s3.S3StoreProvider.ACCESS_KEY_ID;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.CONNECT_TIMEOUT_MS;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.ENDPOINT;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.HTTP_CLIENT;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.INLINE_CALLS;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.MAX_CONNECTIONS;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.MULTIPART_PART_SIZE;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.MULTIPART_THRESHOLD;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.PATH_STYLE;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.REGION;
import static io.ankusa.claimcheck.store.s3.S3StoreProvider.SECRET_ACCESS_KEY;

import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The settings of one S3 (or S3-compatible) claim store, parsed once from its URI and its {@link
 * StoreConfig} (whose values {@link S3StoreProvider}'s {@code ConfigDef} already checked); an
 * immutable, thread-safe record that the SDK client is built from. {@link #toString()} never shows
 * the secret access key.
 *
 * @param bucket the bucket name
 * @param prefix the key prefix: empty, or ending with {@code /}
 * @param endpoint the endpoint; absent means AWS's endpoint for the region
 * @param region the signing region; absent means the AWS default region chain
 * @param pathStyleAccess whether requests address the bucket in the path, not the host name
 * @param accessKeyId the access key id; absent means the AWS default credentials chain
 * @param secretAccessKey the secret access key, present exactly when {@code accessKeyId} is
 * @param operationTimeout the longest any one store operation may take
 * @param maxConnections the most connections the store opens to the endpoint at once
 * @param connectTimeout the longest a new connection may take to open
 * @param multipartThreshold the pack size from which a put is a multipart upload
 * @param partSize the part size of a multipart upload
 * @param httpClient the HTTP client under the SDK: {@code netty} or {@code crt}
 * @param inlineCalls whether a thread that allows it has its reads and PUTs performed on itself
 *     ({@link io.ankusa.claimcheck.store.InlineCalls}), through a synchronous client
 */
record S3Settings(
    String bucket,
    String prefix,
    Optional<URI> endpoint,
    Optional<String> region,
    boolean pathStyleAccess,
    Optional<String> accessKeyId,
    Optional<String> secretAccessKey,
    Duration operationTimeout,
    int maxConnections,
    Duration connectTimeout,
    int multipartThreshold,
    int partSize,
    String httpClient,
    boolean inlineCalls) {

  /** How much longer than the connect timeout a request may wait for a pooled connection. */
  static final Duration ACQUIRE_SLACK = Duration.ofSeconds(1);

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9!_.*'()/-]*");

  /**
   * The settings of the store at {@code uri} with {@code config}: an {@link
   * IllegalArgumentException} for a URI that is not {@code s3://bucket[/prefix]} (reported under
   * {@code claimcheck.stores}), a {@link ConfigException} naming the key for a rule across
   * settings.
   */
  static S3Settings from(URI uri, StoreConfig config) {
    String bucket = uri.getHost();
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "an S3 store is s3://bucket[/prefix], without a query or" + " a fragment");
    }
    if (bucket == null || !BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException(
          "an S3 store is s3://bucket[/prefix] with a valid bucket name");
    }
    String prefix = prefix(uri.getPath() == null ? "" : uri.getPath());
    int threshold = config.getInt(MULTIPART_THRESHOLD);
    int part = config.getInt(MULTIPART_PART_SIZE);
    if (threshold <= part) {
      // The part size met its ConfigDef range, so the threshold is what breaks the rule.
      throw new ConfigException(
          config.keyOf(MULTIPART_THRESHOLD),
          threshold,
          "must exceed the multipart part size ("
              + part
              + ", "
              + config.keyOf(MULTIPART_PART_SIZE)
              + ")");
    }
    Optional<String> id = secret(config.getPassword(ACCESS_KEY_ID));
    Optional<String> key = secret(config.getPassword(SECRET_ACCESS_KEY));
    if (id.isPresent() != key.isPresent()) {
      throw new ConfigException(
          config.keyOf(id.isPresent() ? ACCESS_KEY_ID : SECRET_ACCESS_KEY),
          "[hidden]",
          "give both "
              + config.keyOf(ACCESS_KEY_ID)
              + " and "
              + config.keyOf(SECRET_ACCESS_KEY)
              + ", or neither (the AWS default credentials chain)");
    }
    return new S3Settings(
        bucket,
        prefix,
        blankToNull(config.getString(ENDPOINT)).map(URI::create), // the validator accepted it
        blankToNull(config.getString(REGION)),
        config.getBoolean(PATH_STYLE),
        id,
        key,
        config.opDeadline(),
        config.getInt(MAX_CONNECTIONS),
        Duration.ofMillis(config.getLong(CONNECT_TIMEOUT_MS)),
        threshold,
        part,
        config.getString(HTTP_CLIENT).trim().toLowerCase(Locale.ROOT),
        config.getBoolean(INLINE_CALLS));
  }

  /**
   * The key prefix of the URI path {@code path}: leading slashes dropped and a trailing one added,
   * so {@code claims} and {@code /claims/} both mean {@code claims/}.
   */
  private static String prefix(String path) {
    String p = path.replaceAll("^/+", "");
    if (!PREFIX.matcher(p).matches() || p.contains("..") || p.contains("//")) {
      throw new IllegalArgumentException("the key prefix has characters S3 keys should not");
    }
    if (p.isEmpty()) {
      return "";
    }
    for (String segment : p.split("/", -1)) {
      if (segment.equals(".")) {
        throw new IllegalArgumentException("prefix must not contain '.' or '..' segments: " + p);
      }
    }
    return p.endsWith("/") ? p : p + "/";
  }

  private static Optional<String> secret(Password p) {
    return p == null ? Optional.empty() : blankToNull(p.value());
  }

  private static Optional<String> blankToNull(String s) {
    return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.trim());
  }

  /**
   * Returns the longest a request waits for a connection, pooled or new: the connect timeout plus a
   * second. This bound matters beyond a busy pool: the SDK's Netty pool now and then loses the
   * failure of a refused connection (seen against a stopped endpoint on a loaded machine, a few
   * requests in a hundred), and without it such a request would wait out its whole operation
   * timeout, so a down store would cost a write its deadline instead of a prompt failover.
   */
  Duration connectionAcquisitionTimeout() {
    return connectTimeout.plus(ACQUIRE_SLACK);
  }

  /** Returns {@code s3://bucket} or {@code s3://bucket/prefix} (without the trailing slash). */
  String location() {
    return prefix.isEmpty()
        ? "s3://" + bucket
        : "s3://" + bucket + "/" + prefix.substring(0, prefix.length() - 1);
  }

  @Override
  public String toString() {
    return "S3Settings{location="
        + location()
        + ", endpoint="
        + endpoint.map(URI::toString).orElse("(AWS)")
        + ", region="
        + region.orElse("(default chain)")
        + ", pathStyleAccess="
        + pathStyleAccess
        + ", credentials="
        + accessKeyId
            .map(id -> "static, accessKeyId=" + id + ", secretAccessKey=[hidden]")
            .orElse("(default chain)")
        + ", operationTimeout="
        + operationTimeout
        + ", maxConnections="
        + maxConnections
        + ", connectTimeout="
        + connectTimeout
        + ", multipartThreshold="
        + multipartThreshold
        + ", partSize="
        + partSize
        + ", httpClient="
        + httpClient
        + ", inlineCalls="
        + inlineCalls
        + "}";
  }
}
