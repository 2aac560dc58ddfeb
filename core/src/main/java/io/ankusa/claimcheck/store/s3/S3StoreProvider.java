package io.ankusa.claimcheck.store.s3;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.util.Locale;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

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
  static final String INLINE_CALLS = "s3.inline.calls";

  /** The smallest part S3 accepts (all parts but the last). */
  static final int MIN_PART_SIZE = 5 << 20;

  private static final long DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
  private static final int DEFAULT_MAX_CONNECTIONS = 128;
  private static final int DEFAULT_MULTIPART_THRESHOLD = 16 << 20;
  private static final int DEFAULT_PART_SIZE = 8 << 20;

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
              DEFAULT_CONNECT_TIMEOUT_MS,
              Range.between(1, 60_000),
              LOW,
              "The longest a new connection to an S3 store may take to open; a request waits at most "
                  + "one second more for a connection, so a store that refuses or drops connections "
                  + "fails fast and a write moves on to the next store.")
          .define(
              MAX_CONNECTIONS,
              Type.INT,
              DEFAULT_MAX_CONNECTIONS,
              Range.between(1, 10_000),
              LOW,
              "The most connections one process opens to an S3 store at once (reads, writes and "
                  + "multipart parts together).")
          .define(
              MULTIPART_THRESHOLD,
              Type.INT,
              DEFAULT_MULTIPART_THRESHOLD,
              Range.atLeast(MIN_PART_SIZE + 1),
              LOW,
              "Packs of at least this many bytes go up to an S3 store as a multipart upload (parts "
                  + "uploaded concurrently, completed only if no object is there); must exceed "
                  + "the multipart part size.")
          .define(
              MULTIPART_PART_SIZE,
              Type.INT,
              DEFAULT_PART_SIZE,
              Range.atLeast(MIN_PART_SIZE),
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
                  + " failure handling.")
          .define(
              INLINE_CALLS,
              Type.BOOLEAN,
              true,
              LOW,
              "Whether a thread that waits for its store call anyway (the deserializer's redeem,"
                  + " the serializer's check-in) has it performed on itself through a synchronous"
                  + " client (Apache 5 under netty, CRT's synchronous client under crt), instead of"
                  + " handing it to the asynchronous client's threads and waiting to be woken; the"
                  + " same timeouts, limits and failure handling. Its own connection pool, of"
                  + " s3.max.connections too.");

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
    S3Settings.from(uri, config);
  }

  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    return S3Stores.create(S3Settings.from(uri, config));
  }

  /**
   * Accepts {@code netty} or {@code crt} (any case), and {@code crt} only when the CRT client's
   * classes can be loaded, so a missing optional dependency fails at configuration time naming the
   * key and the artifact.
   */
  static final class HttpClientValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
      String v = value == null ? "" : String.valueOf(value).trim().toLowerCase(Locale.ROOT);
      if (!v.equals(HttpClients.NETTY) && !v.equals(HttpClients.CRT)) {
        throw new ConfigException(name, value, "must be netty or crt");
      }
      String missing = v.equals(HttpClients.CRT) ? HttpClients.missingCrtClass() : null;
      if (missing != null) {
        throw new ConfigException(
            name,
            value,
            "the CRT HTTP client is not on the class path"
                + " ("
                + missing
                + " is missing): add software.amazon.awssdk:aws-crt-client, the"
                + " version of the AWS SDK in use, to the application's dependencies");
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
      String v = value == null ? "" : String.valueOf(value).trim();
      if (v.isEmpty()) {
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
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
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
