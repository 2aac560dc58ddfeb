package io.ankusa.claimcheck.store.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The settings of one S3 (or S3-compatible) claim store; immutable and thread-safe, validated when
 * built.
 *
 * <p>Build with {@link #builder()}: a bucket (and key prefix) is required, everything else has a
 * default. {@link #toString()} never shows the secret access key. An invalid value throws {@link
 * IllegalArgumentException} naming the setting.
 */
final class S3StoreSettings {

  /** The per-operation timeout used when none is set. */
  public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(30);

  /** The connection-pool size used when none is set. */
  public static final int DEFAULT_MAX_CONNECTIONS = 128;

  /** The longest a new connection may take to open, when none is set. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** How much longer than the connect timeout a request may wait for a pooled connection. */
  static final Duration ACQUIRE_SLACK = Duration.ofSeconds(1);

  /** The smallest part S3 accepts (all parts but the last). */
  public static final int MIN_PART_SIZE = 5 << 20;

  /** Packs of at least this many bytes are written as a multipart upload when none is set. */
  public static final int DEFAULT_MULTIPART_THRESHOLD = 16 << 20;

  /** The part size of a multipart upload when none is set. */
  public static final int DEFAULT_PART_SIZE = 8 << 20;

  private final String bucket;
  private final String prefix;
  private final URI endpoint;
  private final String region;
  private final boolean pathStyleAccess;
  private final String accessKeyId;
  private final String secretAccessKey;
  private final Duration operationTimeout;
  private final int maxConnections;
  private final Duration connectTimeout;
  private final int multipartThreshold;
  private final int partSize;
  private final String httpClient;

  private S3StoreSettings(Builder b) {
    this.bucket = b.bucket;
    this.prefix = b.prefix;
    this.endpoint = b.endpoint;
    this.region = b.region;
    this.pathStyleAccess = b.pathStyleAccess;
    this.accessKeyId = b.accessKeyId;
    this.secretAccessKey = b.secretAccessKey;
    this.operationTimeout = b.operationTimeout;
    this.maxConnections = b.maxConnections;
    this.connectTimeout = b.connectTimeout;
    this.multipartThreshold = b.multipartThreshold;
    this.partSize = b.partSize;
    this.httpClient = b.httpClient;
  }

  /** Returns the HTTP client under the SDK: {@code netty} (the default) or {@code crt}. */
  public String httpClient() {
    return httpClient;
  }

  /** Returns the pack size from which a put is a multipart upload. */
  public int multipartThreshold() {
    return multipartThreshold;
  }

  /** Returns the part size of a multipart upload. */
  public int partSize() {
    return partSize;
  }

  /** Returns a builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the bucket name. */
  public String bucket() {
    return bucket;
  }

  /** Returns the key prefix: empty, or ending with {@code /}. */
  public String prefix() {
    return prefix;
  }

  /** Returns the endpoint; absent means AWS's endpoint for the region. */
  public Optional<URI> endpoint() {
    return Optional.ofNullable(endpoint);
  }

  /** Returns the signing region; absent means the AWS default region chain. */
  public Optional<String> region() {
    return Optional.ofNullable(region);
  }

  /** Whether requests address the bucket in the path instead of the host name. */
  public boolean pathStyleAccess() {
    return pathStyleAccess;
  }

  /** Returns the access key id; absent means the AWS default credentials chain. */
  public Optional<String> accessKeyId() {
    return Optional.ofNullable(accessKeyId);
  }

  /** Returns the secret access key, present exactly when {@link #accessKeyId()} is. */
  public Optional<String> secretAccessKey() {
    return Optional.ofNullable(secretAccessKey);
  }

  /** Returns the longest any one store operation may take. */
  public Duration operationTimeout() {
    return operationTimeout;
  }

  /** Returns the most connections the store opens to the endpoint at once. */
  public int maxConnections() {
    return maxConnections;
  }

  /** Returns the longest a new connection may take to open. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * Returns the longest a request waits for a connection, pooled or new: the connect timeout plus a
   * second. This bound matters beyond a busy pool: the SDK's Netty pool now and then loses the
   * failure of a refused connection (seen against a stopped endpoint on a loaded machine, a few
   * requests in a hundred), and without it such a request would wait out its whole operation
   * timeout, so a down store would cost a write its deadline instead of a prompt failover.
   */
  public Duration connectionAcquisitionTimeout() {
    return connectTimeout.plus(ACQUIRE_SLACK);
  }

  /** Returns {@code s3://bucket} or {@code s3://bucket/prefix} (without the trailing slash). */
  public String location() {
    return prefix.isEmpty()
        ? "s3://" + bucket
        : "s3://" + bucket + "/" + prefix.substring(0, prefix.length() - 1);
  }

  @Override
  public String toString() {
    return "S3StoreSettings{location="
        + location()
        + ", endpoint="
        + (endpoint == null ? "(AWS)" : endpoint)
        + ", region="
        + (region == null ? "(default chain)" : region)
        + ", pathStyleAccess="
        + pathStyleAccess
        + ", credentials="
        + (accessKeyId == null
            ? "(default chain)"
            : "static, accessKeyId=" + accessKeyId + ", secretAccessKey=[hidden]")
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
        + "}";
  }

  /** Builds {@link S3StoreSettings}; not thread-safe. */
  public static final class Builder {
    private String bucket;
    private String prefix = "";
    private URI endpoint;
    private String region;
    private boolean pathStyleAccess;
    private String accessKeyId;
    private String secretAccessKey;
    private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
    private int maxConnections = DEFAULT_MAX_CONNECTIONS;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private int multipartThreshold = DEFAULT_MULTIPART_THRESHOLD;
    private int partSize = DEFAULT_PART_SIZE;
    private String httpClient = HttpClients.NETTY;

    private Builder() {}

    /**
     * Sets the HTTP client under the SDK: {@code netty} (the default) or {@code crt} (needs the
     * optional {@code software.amazon.awssdk:aws-crt-client} on the class path when the store is
     * created).
     */
    public Builder httpClient(String httpClient) {
      this.httpClient = HttpClients.parse(httpClient);
      return this;
    }

    /**
     * Sets the pack size from which a put is a multipart upload (parts of {@code partSize}, at
     * least {@link #MIN_PART_SIZE}, uploaded concurrently, completed with {@code If-None-Match:
     * *}).
     */
    public Builder multipart(int threshold, int partSize) {
      if (partSize < MIN_PART_SIZE) {
        throw new IllegalArgumentException(
            "partSize must be at least " + MIN_PART_SIZE + " (S3's minimum): " + partSize);
      }
      if (threshold <= partSize) {
        throw new IllegalArgumentException(
            "the multipart threshold must exceed the part size: " + threshold + " <= " + partSize);
      }
      this.multipartThreshold = threshold;
      this.partSize = partSize;
      return this;
    }

    /** Sets the bucket name (required; no {@code /}, no white space). */
    public Builder bucket(String bucket) {
      this.bucket = Objects.requireNonNull(bucket, "bucket");
      return this;
    }

    /**
     * Sets the prefix every key is put under; leading slashes are dropped and a trailing one is
     * added, so {@code claims} and {@code /claims/} both mean {@code claims/}.
     */
    public Builder prefix(String prefix) {
      this.prefix = normalizePrefix(Objects.requireNonNull(prefix, "prefix"));
      return this;
    }

    /** Sets the endpoint (http or https); null means AWS's endpoint for the region. */
    public Builder endpoint(URI endpoint) {
      if (endpoint != null) {
        String scheme =
            endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null) {
          throw new IllegalArgumentException(
              "endpoint must be an http or https URI with a host: " + endpoint);
        }
      }
      this.endpoint = endpoint;
      return this;
    }

    /** Sets the signing region, such as {@code us-east-1}; null means the AWS default chain. */
    public Builder region(String region) {
      if (region != null && region.isBlank()) {
        throw new IllegalArgumentException("region must not be blank");
      }
      this.region = region == null ? null : region.trim();
      return this;
    }

    /** Sets whether to address the bucket in the path (needed by most S3-compatible servers). */
    public Builder pathStyleAccess(boolean pathStyleAccess) {
      this.pathStyleAccess = pathStyleAccess;
      return this;
    }

    /**
     * Sets static credentials; both null means the AWS default credentials chain.
     *
     * @throws IllegalArgumentException when exactly one is given, or one is blank
     */
    public Builder credentials(String accessKeyId, String secretAccessKey) {
      if ((accessKeyId == null) != (secretAccessKey == null)) {
        throw new IllegalArgumentException(
            "accessKeyId and secretAccessKey must be given together (or neither, for the AWS"
                + " default credentials chain)");
      }
      if (accessKeyId != null && (accessKeyId.isBlank() || secretAccessKey.isBlank())) {
        throw new IllegalArgumentException("accessKeyId and secretAccessKey must not be blank");
      }
      this.accessKeyId = accessKeyId;
      this.secretAccessKey = secretAccessKey;
      return this;
    }

    /** Sets the longest any one operation may take (positive, at least 1 ms). */
    public Builder operationTimeout(Duration operationTimeout) {
      Objects.requireNonNull(operationTimeout, "operationTimeout");
      if (operationTimeout.toMillis() < 1) {
        throw new IllegalArgumentException(
            "operationTimeout must be at least 1 ms: " + operationTimeout);
      }
      this.operationTimeout = operationTimeout;
      return this;
    }

    /** Sets the most connections opened to the endpoint at once (positive). */
    public Builder maxConnections(int maxConnections) {
      if (maxConnections < 1) {
        throw new IllegalArgumentException("maxConnections must be positive: " + maxConnections);
      }
      this.maxConnections = maxConnections;
      return this;
    }

    /** Sets the longest a new connection may take to open (at least 1 ms). */
    public Builder connectTimeout(Duration connectTimeout) {
      Objects.requireNonNull(connectTimeout, "connectTimeout");
      if (connectTimeout.toMillis() < 1) {
        throw new IllegalArgumentException(
            "connectTimeout must be at least 1 ms: " + connectTimeout);
      }
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Returns the settings.
     *
     * @throws IllegalArgumentException when the bucket is missing or invalid
     */
    public S3StoreSettings build() {
      if (bucket == null || bucket.isEmpty()) {
        throw new IllegalArgumentException("bucket must be set and non-empty");
      }
      for (int i = 0; i < bucket.length(); i++) {
        char c = bucket.charAt(i);
        if (c == '/' || Character.isWhitespace(c) || Character.isISOControl(c)) {
          throw new IllegalArgumentException(
              "bucket must not contain '/', white space or control characters: " + bucket);
        }
      }
      return new S3StoreSettings(this);
    }

    private static String normalizePrefix(String prefix) {
      String p = prefix;
      while (p.startsWith("/")) {
        p = p.substring(1);
      }
      if (p.isEmpty()) {
        return "";
      }
      for (String segment : p.split("/", -1)) {
        if (segment.equals("..") || segment.equals(".")) {
          throw new IllegalArgumentException(
              "prefix must not contain '.' or '..' segments: " + prefix);
        }
      }
      return p.endsWith("/") ? p : p + "/";
    }
  }
}
