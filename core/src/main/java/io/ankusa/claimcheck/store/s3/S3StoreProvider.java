package io.ankusa.claimcheck.store.s3;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.StoreConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Serves {@code s3://bucket[/prefix]} stores and defines their settings, each the one definition of
 * both its library-wide key ({@code claimcheck.s3.*}) and its per-store override; stateless and
 * thread-safe.
 */
public final class S3StoreProvider implements ClaimStoreProvider {

  static final String ENDPOINT = "s3.endpoint";
  static final String REGION = "s3.region";
  static final String PATH_STYLE = "s3.path.style.access";
  static final String ACCESS_KEY_ID = "s3.access.key.id";
  static final String SECRET_ACCESS_KEY = "s3.secret.access.key";
  static final String CONNECT_TIMEOUT_MS = "s3.connect.timeout.ms";
  static final String MAX_CONNECTIONS = "s3.max.connections";
  static final String MULTIPART_THRESHOLD = "s3.multipart.threshold.bytes";
  static final String MULTIPART_PART_SIZE = "s3.multipart.part.bytes";
  static final String HTTP_CLIENT = "s3.http.client";

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9!_.*'()/-]*");

  private static final ConfigDef SETTINGS =
      new ConfigDef()
          .define(
              ENDPOINT,
              Type.STRING,
              null,
              new EndpointValidator(),
              MEDIUM,
              "The S3 endpoint URL (e.g. http://127.0.0.1:9000 for MinIO); empty for AWS.")
          .define(REGION, Type.STRING, "us-east-1", MEDIUM, "The S3 region.")
          .define(
              PATH_STYLE,
              Type.BOOLEAN,
              false,
              LOW,
              "Whether to address buckets by path rather than virtual host (most non-AWS stores).")
          .define(
              ACCESS_KEY_ID,
              Type.PASSWORD,
              null,
              MEDIUM,
              "The S3 access key id; with the secret, or neither for the AWS default credentials chain."
                  + " Half of a credential, so never shown (typed PASSWORD).")
          .define(SECRET_ACCESS_KEY, Type.PASSWORD, null, MEDIUM, "The S3 secret access key.")
          .define(
              CONNECT_TIMEOUT_MS,
              Type.LONG,
              S3StoreSettings.DEFAULT_CONNECT_TIMEOUT.toMillis(),
              Range.between(1, 60_000),
              LOW,
              "The longest a new connection to an S3 store may take to open; a request waits at most "
                  + "one second more for a connection, so a store that refuses or drops connections "
                  + "fails fast and a write moves on to the next store.")
          .define(
              MAX_CONNECTIONS,
              Type.INT,
              S3StoreSettings.DEFAULT_MAX_CONNECTIONS,
              Range.between(1, 10_000),
              LOW,
              "The most connections one process opens to an S3 store at once (reads, writes and "
                  + "multipart parts together).")
          .define(
              MULTIPART_THRESHOLD,
              Type.INT,
              S3StoreSettings.DEFAULT_MULTIPART_THRESHOLD,
              Range.atLeast(S3StoreSettings.MIN_PART_SIZE + 1),
              LOW,
              "Packs of at least this many bytes go up to an S3 store as a multipart upload (parts "
                  + "uploaded concurrently, completed only if no object is there); must exceed "
                  + "the multipart part size.")
          .define(
              MULTIPART_PART_SIZE,
              Type.INT,
              S3StoreSettings.DEFAULT_PART_SIZE,
              Range.atLeast(S3StoreSettings.MIN_PART_SIZE),
              LOW,
              "The part size of a multipart upload; at least 5 MiB (S3's minimum).")
          .define(
              HTTP_CLIENT,
              Type.STRING,
              "netty",
              new HttpClientValidator(),
              LOW,
              "The HTTP client under the S3 store: netty (bundled) or crt, the AWS SDK's CRT-based"
                  + " client (native code; add software.amazon.awssdk:aws-crt-client, the same version"
                  + " as the SDK, to your dependencies). Both keep the same timeouts, limits and"
                  + " failure handling.");

  @Override
  public Set<String> schemes() {
    return Set.of("s3");
  }

  @Override
  public ConfigDef settings() {
    return SETTINGS;
  }

  @Override
  public void validate(URI uri, StoreConfig config) {
    settings(uri, config);
  }

  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    return S3Stores.create(settings(uri, config));
  }

  /** The store's settings from {@code uri} and {@code config}, or a failure naming the key. */
  static S3StoreSettings settings(URI uri, StoreConfig config) {
    String bucket = uri.getHost();
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "an S3 store is s3://bucket[/prefix], without a query or" + " a fragment");
    }
    if (bucket == null || !BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException(
          "an S3 store is s3://bucket[/prefix] with a valid bucket name");
    }
    String prefix = uri.getPath() == null ? "" : uri.getPath().replaceAll("^/+", "");
    if (!PREFIX.matcher(prefix).matches() || prefix.contains("..") || prefix.contains("//")) {
      throw new IllegalArgumentException("the key prefix has characters S3 keys should not");
    }
    S3StoreSettings.Builder b =
        S3StoreSettings.builder()
            .bucket(bucket)
            .prefix(prefix)
            .pathStyleAccess(config.getBoolean(PATH_STYLE))
            .operationTimeout(config.opDeadline())
            .connectTimeout(Duration.ofMillis(config.getLong(CONNECT_TIMEOUT_MS)))
            .maxConnections(config.getInt(MAX_CONNECTIONS))
            .httpClient(config.getString(HTTP_CLIENT));
    int threshold = config.getInt(MULTIPART_THRESHOLD);
    int part = config.getInt(MULTIPART_PART_SIZE);
    try {
      b.multipart(threshold, part);
    } catch (IllegalArgumentException e) {
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
    String endpoint = blankToNull(config.getString(ENDPOINT));
    if (endpoint != null) {
      b.endpoint(URI.create(endpoint)); // the validator accepted it
    }
    String region = blankToNull(config.getString(REGION));
    if (region != null) {
      b.region(region);
    }
    String id = secret(config.getPassword(ACCESS_KEY_ID));
    String key = secret(config.getPassword(SECRET_ACCESS_KEY));
    if ((id == null) != (key == null)) {
      throw new ConfigException(
          config.keyOf(id != null ? ACCESS_KEY_ID : SECRET_ACCESS_KEY),
          "[hidden]",
          "give both "
              + config.keyOf(ACCESS_KEY_ID)
              + " and "
              + config.keyOf(SECRET_ACCESS_KEY)
              + ", or neither (the AWS default credentials chain)");
    }
    if (id != null) {
      b.credentials(id, key);
    }
    return b.build();
  }

  private static String secret(Password p) {
    return p == null ? null : blankToNull(p.value());
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  /**
   * Accepts {@code netty} or {@code crt} (any case), and {@code crt} only when the CRT client's
   * classes can be loaded, so a missing optional dependency fails at configuration time naming the
   * key and the artifact.
   */
  static final class HttpClientValidator implements ConfigDef.Validator {
    private static final List<String> CRT_CLASSES =
        List.of(
            "software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient",
            "software.amazon.awssdk.crt.CRT");

    @Override
    public void ensureValid(String name, Object value) {
      String v = value == null ? "" : String.valueOf(value).trim().toLowerCase(Locale.ROOT);
      if (!v.equals("netty") && !v.equals("crt")) {
        throw new ConfigException(name, value, "must be netty or crt");
      }
      if (v.equals("netty")) {
        return;
      }
      for (String c : CRT_CLASSES) {
        try {
          Class.forName(c, false, S3StoreProvider.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
          throw new ConfigException(
              name,
              value,
              "the CRT HTTP client is not on the class path"
                  + " ("
                  + c
                  + " is missing): add software.amazon.awssdk:aws-crt-client, the"
                  + " version of the AWS SDK in use, to the application's dependencies");
        }
      }
    }

    @Override
    public String toString() {
      return "[netty, crt]";
    }
  }

  /**
   * Accepts no endpoint, or an http or https URL with a host and without user info; never shows the
   * value it refuses (it may carry a credential).
   */
  static final class EndpointValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      String v = value == null ? null : blankToNull(String.valueOf(value));
      if (v == null) {
        return;
      }
      URI u;
      try {
        u = new URI(v);
      } catch (java.net.URISyntaxException e) {
        // Its message quotes the input: not shown.
        throw new ConfigException(name, "[hidden]", "not an endpoint URL (not a URI); not shown");
      }
      if (u.getRawUserInfo() != null
          || (u.getRawAuthority() != null && u.getRawAuthority().contains("@"))) {
        throw new ConfigException(
            name,
            "[hidden]",
            "not an endpoint URL: it carries user info "
                + "(credentials go in claimcheck.s3.access.key.id and claimcheck.s3.secret.access.key)");
      }
      try {
        S3StoreSettings.builder().endpoint(u);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            name, "[hidden]", "not an endpoint URL: must be http:// or https:// with a host");
      }
    }

    @Override
    public String toString() {
      return "an http or https URL with a host, no user info";
    }
  }
}
