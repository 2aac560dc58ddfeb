package io.ankusa.claimcheck.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.domain.PageSet;
import org.gaul.s3proxy.blobstore.domain.StorageMetadata;
import org.gaul.s3proxy.blobstore.domain.StorageType;
import org.gaul.s3proxy.blobstore.options.CreateContainerOptions;
import org.gaul.s3proxy.blobstore.options.GetOptions;
import org.gaul.s3proxy.blobstore.options.ListContainerOptions;

/**
 * A real S3-compatible HTTP server (S3Proxy 4 over an in-memory blob store) running inside this JVM
 * on {@code 127.0.0.1} and a random port; thread-safe.
 *
 * <p>Requests must be signed (SigV2 or SigV4) with {@link #accessKey()} and {@link #secretKey()};
 * {@link #region()} is {@code us-east-1}; use path-style access. S3Proxy 4's {@code If-None-Match:
 * *} on PutObject is atomic, so put-if-absent races have one winner. Use {@link #shared()} from
 * tests (one per JVM, closed by a shutdown hook) or own one with {@link #start()}.
 */
public final class EmbeddedS3 implements AutoCloseable {

  private static final String ACCESS_KEY = "claimcheck-access";
  private static final String SECRET_KEY = "claimcheck-secret-0123456789";
  private static final String REGION = "us-east-1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Object SHARED_LOCK = new Object();
  private static EmbeddedS3 shared;

  private final S3Proxy proxy;
  private final BlobStore blobStore;
  private final URI endpoint;
  private boolean closed;

  private EmbeddedS3(S3Proxy proxy, BlobStore blobStore, URI endpoint) {
    this.proxy = proxy;
    this.blobStore = blobStore;
    this.endpoint = endpoint;
  }

  /** Returns this JVM's shared server, starting it on first call; it closes when the JVM exits. */
  public static EmbeddedS3 shared() {
    synchronized (SHARED_LOCK) {
      if (shared == null) {
        EmbeddedS3 s3 = start();
        Runtime.getRuntime()
            .addShutdownHook(new Thread(s3::close, "claimcheck-testkit-s3-shutdown"));
        shared = s3;
      }
      return shared;
    }
  }

  /**
   * Starts a new, empty server and waits until it listens.
   *
   * @throws IllegalStateException when it does not start, with the reason
   */
  public static EmbeddedS3 start() {
    BlobStore blobStore = null;
    S3Proxy proxy = null;
    try {
      blobStore = BlobStores.create("transient", new Properties());
      proxy =
          S3Proxy.builder()
              .blobStore(blobStore)
              .endpoint(URI.create("http://127.0.0.1:0"))
              .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
              .build();
      proxy.start();
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (!"STARTED".equals(proxy.getState())) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("not started after " + START_TIMEOUT);
        }
        Thread.sleep(10);
      }
      return new EmbeddedS3(proxy, blobStore, URI.create("http://127.0.0.1:" + proxy.getPort()));
    } catch (Exception | LinkageError e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      stopQuietly(proxy);
      throw new IllegalStateException("EmbeddedS3: S3Proxy did not start: " + e, e);
    }
  }

  /** Returns the server's base URI, such as {@code http://127.0.0.1:41234}. */
  public URI endpoint() {
    return endpoint;
  }

  /** Returns the access key id requests must be signed with. */
  public String accessKey() {
    return ACCESS_KEY;
  }

  /** Returns the secret access key requests must be signed with. */
  public String secretKey() {
    return SECRET_KEY;
  }

  /** Returns the signing region, {@code us-east-1}. */
  public String region() {
    return REGION;
  }

  /**
   * Returns a new mutable {@link HashMap} configuring a ClaimCheck on this server: {@code
   * claimcheck.stores} is {@code stores}, and {@code claimcheck.s3.endpoint}, {@code .region},
   * {@code .path.style.access} ({@code true}), {@code .access.key.id} and {@code
   * .secret.access.key} are this server's; a caller adds its own keys to it.
   *
   * @param stores the {@code claimcheck.stores} value, such as {@code s3://bucket/prefix}
   */
  public Map<String, Object> claimCheckConfig(String stores) {
    return claimCheckConfig(stores, endpoint);
  }

  /**
   * Returns a new mutable map as {@link #claimCheckConfig(String)} does, but with {@code
   * claimcheck.s3.endpoint} set to {@code endpoint}, so requests go there (such as to a {@link
   * FaultProxy} in front of this server).
   */
  public Map<String, Object> claimCheckConfig(String stores, URI endpoint) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", stores);
    m.put("claimcheck.s3.endpoint", endpoint.toString());
    m.put("claimcheck.s3.region", region());
    m.put("claimcheck.s3.path.style.access", "true");
    m.put("claimcheck.s3.access.key.id", accessKey());
    m.put("claimcheck.s3.secret.access.key", secretKey());
    return m;
  }

  /** Creates bucket {@code name} unless it exists; returns {@code name}. */
  public String createBucket(String name) {
    if (!blobStore.containerExists(name)) {
      blobStore.createContainer(name, CreateContainerOptions.NONE);
    }
    return name;
  }

  /**
   * Returns every object of {@code bucket} whose key starts with {@code prefix}, key to its bytes
   * exactly as the server holds them, read from its blob store (not through HTTP, so no S3 client
   * or library code stands between a test and the stored bytes); in key order.
   */
  public Map<String, byte[]> objects(String bucket, String prefix) {
    Map<String, byte[]> out = new TreeMap<>();
    String marker = null;
    do {
      PageSet<? extends StorageMetadata> page =
          blobStore.list(bucket, new ListContainerOptions(null, marker, null, prefix));
      for (StorageMetadata m : page) {
        if (m.type() == StorageType.BLOB) {
          try (InputStream in = blobStore.getBlob(bucket, m.name(), GetOptions.NONE).getPayload()) {
            out.put(m.name(), in.readAllBytes());
          } catch (IOException e) {
            throw new UncheckedIOException("reading " + bucket + "/" + m.name(), e);
          }
        }
      }
      marker = page.nextMarker();
    } while (marker != null);
    return out;
  }

  /** Stops the server; its objects are gone. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopQuietly(proxy);
    blobStore.close();
  }

  private static void stopQuietly(S3Proxy proxy) {
    if (proxy == null) {
      return;
    }
    try {
      proxy.stop();
    } catch (Exception e) {
      // Best effort: the server is being discarded.
    }
  }
}
