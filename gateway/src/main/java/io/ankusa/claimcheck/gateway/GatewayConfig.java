package io.ankusa.claimcheck.gateway;

import static org.apache.kafka.common.config.ConfigDef.Importance.HIGH;
import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The gateway's configuration: the library's {@code claimcheck.*} keys and the {@code gateway.*}
 * keys in one {@code ConfigDef}, validated at start with a {@code ConfigException} naming the key;
 * immutable and thread-safe.
 */
public final class GatewayConfig extends AbstractConfig {

  public static final String PREFIX = "gateway.";
  public static final String LISTEN = "gateway.listen";
  public static final String TLS_ENABLED = "gateway.tls.enabled";
  public static final String KEYSTORE_PATH = "gateway.tls.keystore.path";
  public static final String KEYSTORE_PASSWORD = "gateway.tls.keystore.password";
  public static final String CLIENT_AUTH = "gateway.tls.client.auth";
  public static final String TRUSTSTORE_PATH = "gateway.tls.truststore.path";
  public static final String TRUSTSTORE_PASSWORD = "gateway.tls.truststore.password";
  public static final String PLAIN_REMOTE = "gateway.tls.disabled.allow.remote";
  public static final String TOKENS_FILE = "gateway.tokens.file";
  public static final String TOKENS_RELOAD_MS = "gateway.tokens.reload.ms";
  public static final String IDLE_TIMEOUT_MS = "gateway.idle.timeout.ms";
  public static final String MAX_CONNECTIONS = "gateway.max.connections";
  public static final String MAX_HEADER_BYTES = "gateway.max.header.bytes";
  public static final String THREADS_MAX = "gateway.threads.max";
  public static final String RETRY_AFTER_S = "gateway.retry.after.seconds";
  public static final String CHECKIN_THREADS = "gateway.checkin.threads";
  public static final String INLINE_LEADS = "gateway.inline.leads";
  public static final String HEADER_DEADLINE_MS = "gateway.header.deadline.ms";

  /** The gateway's own keys. */
  static final ConfigDef GATEWAY_DEF = define(new ConfigDef());

  /** Every key the gateway reads: the library's and its own. */
  public static final ConfigDef CONFIG_DEF = define(new ConfigDef(ClaimCheckConfig.CONFIG_DEF));

  private final ClaimCheckConfig library;
  private final Listen listen;

  /** Validates {@code originals}: every {@code gateway.*} key known, every value in range. */
  public GatewayConfig(Map<String, ?> originals) {
    super(GATEWAY_DEF, own(originals), false);
    boolean tls = getBoolean(TLS_ENABLED);
    String where = getString(LISTEN);
    this.listen =
        where == null || where.isBlank()
            ? (tls ? Listen.parse(LISTEN, "0.0.0.0:8443") : Listen.parse(LISTEN, "127.0.0.1:8080"))
            : Listen.parse(LISTEN, where);
    if (tls) {
      String path = getString(KEYSTORE_PATH);
      if (path == null || path.isBlank()) {
        throw new ConfigException(
            KEYSTORE_PATH,
            null,
            "TLS is on (" + TLS_ENABLED + "=true): a PKCS12 keystore is needed");
      }
      if (!Files.isReadable(Path.of(path))) {
        throw new ConfigException(KEYSTORE_PATH, path, "not a readable file");
      }
      if (!clientAuth().equals("none")) {
        String trust = getString(TRUSTSTORE_PATH);
        if (trust == null || trust.isBlank()) {
          throw new ConfigException(
              TRUSTSTORE_PATH,
              null,
              CLIENT_AUTH + "=" + clientAuth() + ": a PKCS12 trust store of client CAs is needed");
        }
        if (!Files.isReadable(Path.of(trust))) {
          throw new ConfigException(TRUSTSTORE_PATH, trust, "not a readable file");
        }
      }
    } else if (!clientAuth().equals("none")) {
      throw new ConfigException(
          CLIENT_AUTH, clientAuth(), "mutual TLS needs TLS (" + TLS_ENABLED + "=true)");
    } else if (!listen.isLoopback() && !getBoolean(PLAIN_REMOTE)) {
      throw new ConfigException(
          LISTEN,
          where,
          "plain HTTP ("
              + TLS_ENABLED
              + "=false) listens on loopback only, unless "
              + PLAIN_REMOTE
              + "=true");
    }
    if (inlineLeads() >= getInt(THREADS_MAX)) {
      throw new ConfigException(
          INLINE_LEADS,
          getInt(INLINE_LEADS),
          "must be below " + THREADS_MAX + " (" + getInt(THREADS_MAX) + ")");
    }
    String tokens = getString(TOKENS_FILE);
    if (tokens == null || tokens.isBlank()) {
      throw new ConfigException(TOKENS_FILE, null, "the file of hashed bearer tokens is required");
    }
    this.library = new ClaimCheckConfig(originals);
  }

  private static Map<String, Object> own(Map<String, ?> originals) {
    Map<String, Object> m = new HashMap<>();
    originals.forEach(
        (k, v) -> {
          if (k.startsWith(PREFIX)) {
            if (!GATEWAY_DEF.names().contains(k)) {
              throw new ConfigException(k, "(not shown)", "not a key the gateway knows");
            }
            m.put(k, v);
          }
        });
    return m;
  }

  /** The library's configuration (stores, reader, cache, limits). */
  public ClaimCheckConfig library() {
    return library;
  }

  /** Where to listen. */
  public Listen listen() {
    return listen;
  }

  public boolean tls() {
    return getBoolean(TLS_ENABLED);
  }

  public String keystorePath() {
    return getString(KEYSTORE_PATH);
  }

  /** The keystore's password, or null. */
  public Password keystorePassword() {
    return getPassword(KEYSTORE_PASSWORD);
  }

  /** Whether the TLS handshake asks for a client certificate: none, want or need. */
  public String clientAuth() {
    return getString(CLIENT_AUTH);
  }

  public String truststorePath() {
    return getString(TRUSTSTORE_PATH);
  }

  /** The trust store's password, or null. */
  public Password truststorePassword() {
    return getPassword(TRUSTSTORE_PASSWORD);
  }

  public Path tokensFile() {
    return Path.of(getString(TOKENS_FILE));
  }

  public long tokensReloadMs() {
    return getLong(TOKENS_RELOAD_MS);
  }

  public long idleTimeoutMs() {
    return getLong(IDLE_TIMEOUT_MS);
  }

  public int maxConnections() {
    return getInt(MAX_CONNECTIONS);
  }

  public int maxHeaderBytes() {
    return getInt(MAX_HEADER_BYTES);
  }

  public int threadsMax() {
    return getInt(THREADS_MAX);
  }

  /** How many redeems may lead their store fetch on the server's thread at once. */
  public int inlineLeads() {
    int n = getInt(INLINE_LEADS);
    return n >= 0 ? n : Math.min(16, threadsMax() / 4);
  }

  /** How long a connection may take to send one request's line and headers. */
  public long headerDeadlineMs() {
    return getLong(HEADER_DEADLINE_MS);
  }

  public int checkInThreads() {
    return getInt(CHECKIN_THREADS);
  }

  public int retryAfterSeconds() {
    return getInt(RETRY_AFTER_S);
  }

  private static ConfigDef define(ConfigDef d) {
    return d.define(
            LISTEN,
            Type.STRING,
            "",
            MEDIUM,
            "Where the gateway listens, host:port; port 0 picks a free port. The address is printed"
                + " as a line 'gateway listening on http[s]://HOST:PORT'. Empty: 0.0.0.0:8443 with"
                + " TLS, 127.0.0.1:8080 without.")
        .define(
            TLS_ENABLED,
            Type.BOOLEAN,
            true,
            HIGH,
            "Whether the gateway serves HTTPS (a PKCS12 keystore is then required); false serves"
                + " plain HTTP, on a loopback address unless "
                + PLAIN_REMOTE
                + " is true.")
        .define(
            KEYSTORE_PATH,
            Type.STRING,
            null,
            HIGH,
            "The PKCS12 keystore holding the server's key and certificate chain.")
        .define(
            KEYSTORE_PASSWORD,
            Type.PASSWORD,
            null,
            HIGH,
            "The keystore's password (and its key's); never shown.")
        .define(
            CLIENT_AUTH,
            Type.STRING,
            "none",
            ConfigDef.ValidString.in("none", "want", "need"),
            MEDIUM,
            "Mutual TLS: whether the handshake asks for a client certificate (none; want: a client"
                + " may present one; need: a client without a trusted one is refused in the"
                + " handshake). A verified certificate whose subject CN has a line 'cn:<CN> <tenant>"
                + " <rights>' in "
                + TOKENS_FILE
                + " acts for that tenant with those rights when the request has no bearer token.")
        .define(
            TRUSTSTORE_PATH,
            Type.STRING,
            null,
            MEDIUM,
            "The PKCS12 trust store of the CAs (or certificates) client certificates are verified"
                + " against; required when "
                + CLIENT_AUTH
                + " is want or need.")
        .define(
            TRUSTSTORE_PASSWORD,
            Type.PASSWORD,
            null,
            MEDIUM,
            "The trust store's password; never shown.")
        .define(
            PLAIN_REMOTE,
            Type.BOOLEAN,
            false,
            LOW,
            "Whether plain HTTP may listen on a non-loopback address (behind a TLS-terminating"
                + " proxy on the same host, say); tokens then cross the network in clear.")
        .define(
            TOKENS_FILE,
            Type.STRING,
            null,
            HIGH,
            "The file of bearer tokens, one a line: '<lowercase hex SHA-256 of the token>"
                + " <tenant> <read|write|read,write>', and client certificate names for mutual TLS,"
                + " 'cn:<subject CN> <tenant> <rights>'; '#' starts a comment. Reloaded when it"
                + " changes; a file that does not parse at a reload leaves the previous tokens in"
                + " force.")
        .define(
            TOKENS_RELOAD_MS,
            Type.LONG,
            1000L,
            Range.between(50, 3_600_000),
            LOW,
            "How often the tokens file is checked for a change.")
        .define(
            IDLE_TIMEOUT_MS,
            Type.LONG,
            30_000L,
            Range.between(100, 3_600_000),
            MEDIUM,
            "How long a connection may stay idle (no bytes read or written, a slow-loris client"
                + " included) before the gateway closes it.")
        .define(
            MAX_CONNECTIONS,
            Type.INT,
            16_384,
            Range.between(1, 1_000_000),
            MEDIUM,
            "The most connections the gateway holds open at once, idle ones included; at it the"
                + " gateway stops accepting (new connections wait in the OS backlog) until one"
                + " closes, and idle ones close after "
                + IDLE_TIMEOUT_MS
                + ". Each needs a file descriptor: keep it under the process's limit.")
        .define(
            MAX_HEADER_BYTES,
            Type.INT,
            8192,
            Range.between(1024, 1 << 20),
            LOW,
            "The largest request line plus headers the gateway reads; past it the request is"
                + " answered 431 (or 414 for a long URI) without being handled.")
        .define(
            THREADS_MAX,
            Type.INT,
            64,
            Range.between(8, 10_000),
            LOW,
            "The most threads of the HTTP server's pool. Redeems do not hold a thread while they"
                + " wait for a store; check-ins run on their own threads ("
                + "gateway.checkin.threads).")
        .define(
            INLINE_LEADS,
            Type.INT,
            -1,
            Range.between(-1, 10_000),
            LOW,
            "How many redeems of claims of at most 1 MiB may make their store request on the"
                + " server's own thread at once (through the S3 store's synchronous client, when"
                + " claimcheck.s3.inline.calls is true), each holding that thread until the request"
                + " ends (at most its deadline), instead of handing it to the asynchronous client and"
                + " waiting to be woken; the reader's coalescing, limit and deadline apply alike."
                + " Past it redeems wait without a thread. Must be below "
                + THREADS_MAX
                + " (a hung store then holds at most this many threads); 0: never; -1: a quarter"
                + " of "
                + THREADS_MAX
                + ", at most 16.")
        .define(
            HEADER_DEADLINE_MS,
            Type.LONG,
            10_000L,
            Range.between(100, 3_600_000),
            LOW,
            "How long a connection may take from the first byte of a request to the end of its"
                + " headers; past it the connection is closed (a client trickling its headers a byte"
                + " at a time would otherwise hold it until "
                + MAX_HEADER_BYTES
                + ", the idle timeout restarting at every byte). Checked about every second.")
        .define(
            CHECKIN_THREADS,
            Type.INT,
            16,
            Range.between(1, 10_000),
            LOW,
            "How many check-ins run at once, each holding a thread of its own up to the write"
                + " deadline (a store that hangs on writes cannot take the server's threads);"
                + " past it a check-in is answered 503 + Retry-After.")
        .define(
            RETRY_AFTER_S,
            Type.INT,
            1,
            Range.between(0, 3600),
            LOW,
            "The Retry-After, in seconds, of every retriable (503) answer.");
  }
}
