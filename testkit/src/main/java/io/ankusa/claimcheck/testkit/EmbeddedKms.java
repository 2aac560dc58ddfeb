package io.ankusa.claimcheck.testkit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stub of AWS KMS that speaks KMS's JSON 1.1 protocol on {@code 127.0.0.1} and a random
 * port, with keys created by the test and faults switched on by it; thread-safe.
 *
 * <p><b>It is a stub, not KMS.</b> It proves the AWS SDK v2 {@code KmsClient} wiring (endpoint
 * override, region, request and answer shapes, base64 blobs, encryption context) and the mapping of
 * KMS's error answers to the SDK's typed exceptions; it does not prove IAM, key policies, grants or
 * real KMS's latency. Requests may be SigV4-signed with any credentials: signatures are <em>not
 * verified</em>. It answers {@code POST /} with {@code X-Amz-Target: TrentService.<Op>} for {@code
 * GenerateDataKey}, {@code GenerateDataKeyWithoutPlaintext}, {@code Encrypt}, {@code Decrypt} and
 * {@code DescribeKey}. Key ids may be the key id, key ARN, alias name or alias ARN.
 *
 * <p>Ciphertext blobs really are AES-256-GCM under a per-key secret held here, and name their key
 * (as real KMS's do), so {@code Decrypt} needs no {@code KeyId}; a different encryption context, a
 * changed byte or a blob of no key of this stub answer {@code InvalidCiphertextException}, and a
 * {@code KeyId} naming another key {@code IncorrectKeyException}.
 *
 * <p>Key states: {@link #disable} answers {@code DisabledException}, {@link #scheduleDeletion}
 * {@code KMSInvalidStateException} (both undoable: {@link #enable}, {@link #cancelDeletion}), and
 * {@link #delete} shreds the key's secret for good: {@code NotFoundException}. Faults: {@link
 * #throttle} ({@code ThrottlingException}), {@link #slow}, {@link #hang}, {@link #down}; {@link
 * #clear} ends them all. Every request that reaches the stub is counted per operation.
 *
 * <p>Error answers are {@code {"__type":"<Type>","message":"..."}} with the HTTP status that the
 * SDK's generated {@code software.amazon.awssdk.services.kms.DefaultKmsClient} (kms 2.57.8, its
 * {@code ExceptionMetadata} table, read with {@code javap}) registers for each type: 400 for {@code
 * DisabledException}, {@code KMSInvalidStateException}, {@code NotFoundException}, {@code
 * InvalidCiphertextException} and {@code IncorrectKeyException}, 500 for {@code
 * KMSInternalException}; and 400 {@code ThrottlingException}, "You have exceeded the rate at which
 * you may call KMS", as AWS's knowledge-center article quotes real KMS's answer
 * (https://repost.aws/knowledge-center/kms-throttlingexception-error).
 */
public final class EmbeddedKms implements AutoCloseable {

  private static final String REGION = "us-east-1";

  private final KmsKeys keys = new KmsKeys(REGION);
  private final KmsHandler handler = new KmsHandler(new KmsOperations(keys));
  private final ExecutorService executor;
  private final int port;
  private HttpServer server;
  private boolean closed;

  private EmbeddedKms() {
    AtomicInteger n = new AtomicInteger();
    this.executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "claimcheck-testkit-kms-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.server = listen(0);
    this.port = server.getAddress().getPort();
  }

  /**
   * Starts a new stub with no keys.
   *
   * @throws IllegalStateException when it cannot listen
   */
  public static EmbeddedKms start() {
    return new EmbeddedKms();
  }

  /** Returns the stub's base URI, such as {@code http://127.0.0.1:41234}; stable across down/up. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Returns the region key ARNs name, {@code us-east-1}. */
  public String region() {
    return REGION;
  }

  /** Creates an enabled symmetric key; returns its ARN. */
  public String createKey() {
    return keys.create();
  }

  /**
   * Points alias {@code alias} (such as {@code alias/tenant-a}) at {@code key}, re-pointing it if
   * it exists (as {@code UpdateAlias} would); returns {@code alias}.
   *
   * @throws IllegalArgumentException when the name does not start with {@code alias/} or the key is
   *     unknown
   */
  public String createAlias(String alias, String key) {
    keys.alias(alias, key);
    return alias;
  }

  /**
   * Disables {@code key} (id, ARN, alias or alias ARN, as for every control here): its uses answer
   * {@code DisabledException}.
   *
   * @throws IllegalArgumentException when the key is unknown (every control here)
   * @throws IllegalStateException when the key was deleted (every state change here)
   */
  public void disable(String key) {
    keys.setState(key, KmsKeys.State.DISABLED);
  }

  /** Enables {@code key} again after {@link #disable} or {@link #scheduleDeletion}. */
  public void enable(String key) {
    keys.setState(key, KmsKeys.State.ENABLED);
  }

  /** Schedules {@code key}'s deletion: its uses answer {@code KMSInvalidStateException}. */
  public void scheduleDeletion(String key) {
    keys.setState(key, KmsKeys.State.PENDING_DELETION);
  }

  /** Cancels {@code key}'s scheduled deletion; the key is enabled again. */
  public void cancelDeletion(String key) {
    enable(key);
  }

  /** Deletes {@code key} for good (its secret is shredded): its uses answer {@code NotFound}. */
  public void delete(String key) {
    keys.setState(key, KmsKeys.State.DELETED);
  }

  /** Answers the next {@code n} requests with HTTP 400 {@code ThrottlingException}. */
  public void throttle(int n) {
    handler.throttle(n);
  }

  /** Delays every answer by {@code delay} until {@link #clear}. */
  public void slow(Duration delay) {
    handler.slow(delay);
  }

  /**
   * Holds every request unanswered until {@link #clear} or {@link #close} (after {@link #down}, the
   * held connections are closed).
   */
  public void hang() {
    handler.hang();
  }

  /**
   * Stops listening until {@link #up}: open connections are closed (a client's pooled connection
   * then fails without an answer) and new ones are refused. Requests that never reach the stub are
   * not counted.
   */
  public synchronized void down() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
  }

  /**
   * Listens again on the same port after {@link #down}.
   *
   * @throws IllegalStateException when the port cannot be bound again
   */
  public synchronized void up() {
    if (closed) {
      throw new IllegalStateException("EmbeddedKms is closed");
    }
    if (server == null) {
      server = listen(port);
    }
  }

  /** Ends every fault: no throttling, delay or hang, and listening. Keys keep their states. */
  public void clear() {
    handler.clear();
    up();
  }

  /** Returns how many requests of {@code operation} (such as {@code Decrypt}) reached the stub. */
  public long callCount(String operation) {
    return handler.count(operation);
  }

  /** Sets every {@link #callCount} to zero. */
  public void resetCounts() {
    handler.resetCounts();
  }

  /** Stops the stub and releases hung requests; its keys are gone. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    down();
    handler.close();
    executor.shutdownNow();
  }

  private HttpServer listen(int onPort) {
    try {
      HttpServer s =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 64);
      s.setExecutor(executor);
      s.createContext("/", handler);
      s.start();
      return s;
    } catch (IOException e) {
      throw new IllegalStateException("EmbeddedKms: cannot listen on port " + onPort + ": " + e, e);
    }
  }
}
