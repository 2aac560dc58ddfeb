package io.ankusa.claimcheck.kafka;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobStorageException;
import io.ankusa.claimcheck.store.azure.Azurite;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The two stores of a chaos run, each behind its own fault proxy: store A a bucket of the shared
 * S3Proxy, store B a container of Azurite ({@code abs://}) where Azurite is installed (always under
 * CI), else a second bucket; with raw access to each store's objects that bypasses the product and
 * the proxy (to corrupt and restore an object, and to read what a store really holds). Opened and
 * closed by the run's thread; the raw accessors are thread-safe.
 */
final class ChaosStores implements AutoCloseable {

  /** One store's objects, read and written directly (not through the proxy); thread-safe. */
  interface Raw {
    /** The object's bytes, or null when there is none. */
    byte[] get(String key);

    /** Writes (replaces) the object. */
    void put(String key, byte[] bytes);

    /** The keys of every object in the store. */
    List<String> keys();
  }

  final List<ChaosFaults.Store> stores;
  final String description;
  private final Map<String, Object> config;
  private final List<AutoCloseable> closing;

  private ChaosStores(
      List<ChaosFaults.Store> stores,
      String description,
      Map<String, Object> config,
      List<AutoCloseable> closing) {
    this.stores = stores;
    this.description = description;
    this.config = config;
    this.closing = closing;
  }

  /**
   * Starts Azurite (where it will be used) on a thread of its own, so it comes up while the broker
   * does; {@link #open} waits for it.
   */
  static void startAzuriteEarly() {
    if (Azurite.installed()) {
      Thread t =
          new Thread(
              () -> {
                try {
                  Azurite.shared();
                } catch (RuntimeException e) {
                  // open() starts it again and fails with the reason
                }
              },
              "chaos-azurite-start");
      t.setDaemon(true);
      t.start();
    }
  }

  /** Opens the stores of run {@code seed}: store B on Azurite unless it is absent outside CI. */
  static ChaosStores open(long seed) {
    String hex = Long.toHexString(seed);
    EmbeddedS3 s3 = EmbeddedS3.shared();
    List<AutoCloseable> closing = new ArrayList<>();
    S3AsyncClient rawS3 = rawClient(s3);
    closing.add(rawS3);
    String bucketA = s3.createBucket("chaos-a-" + hex);
    FaultProxy proxyA = FaultProxy.inFrontOf(s3);
    closing.add(proxyA);
    Map<String, Object> m = new java.util.HashMap<>();
    m.put("claimcheck.store.0.s3.endpoint", proxyA.endpoint().toString());
    m.put("claimcheck.s3.region", s3.region());
    m.put("claimcheck.s3.path.style.access", "true");
    m.put("claimcheck.s3.access.key.id", s3.accessKey());
    m.put("claimcheck.s3.secret.access.key", s3.secretKey());
    ChaosFaults.Store a = new ChaosFaults.Store("A", proxyA, s3Raw(rawS3, bucketA));
    ChaosFaults.Store b;
    String description;
    if (Azurite.installed() || System.getenv("CI") != null) {
      Azurite azurite = Azurite.shared(); // under CI, fails where Azurite is absent
      String container = "chaos-b-" + hex;
      BlobContainerClient c = azurite.createContainer(container);
      FaultProxy proxyB = FaultProxy.start(azurite.server());
      closing.add(proxyB);
      m.put("claimcheck.stores", "s3://" + bucketA + ",abs://" + Azurite.ACCOUNT + "/" + container);
      m.put("claimcheck.store.1.abs.endpoint", proxyB.endpoint() + "/" + Azurite.ACCOUNT);
      m.put("claimcheck.store.1.abs.account.key", Azurite.KEY);
      b = new ChaosFaults.Store("B", proxyB, azureRaw(c));
      description = "A s3://" + bucketA + " (S3Proxy), B abs://" + container + " (Azurite)";
    } else {
      String bucketB = s3.createBucket("chaos-b-" + hex);
      FaultProxy proxyB = FaultProxy.inFrontOf(s3);
      closing.add(proxyB);
      m.put("claimcheck.stores", "s3://" + bucketA + ",s3://" + bucketB);
      m.put("claimcheck.store.1.s3.endpoint", proxyB.endpoint().toString());
      b = new ChaosFaults.Store("B", proxyB, s3Raw(rawS3, bucketB));
      description =
          "A s3://"
              + bucketA
              + ", B s3://"
              + bucketB
              + " (S3Proxy; Azurite is not installed: npm ci --prefix store-azure/azurite)";
    }
    return new ChaosStores(List.of(a, b), description, Map.copyOf(m), closing);
  }

  /** The store settings for a client's configuration. */
  Map<String, Object> config() {
    return config;
  }

  /**
   * Reads every object of every store and counts those holding {@code marker}: {objects, bytes,
   * objects with the marker}.
   */
  long[] scan(byte[] marker) {
    long[] out = new long[3];
    for (ChaosFaults.Store s : stores) {
      for (String key : s.raw().keys()) {
        byte[] bytes = s.raw().get(key);
        if (bytes == null) {
          continue; // deleted meanwhile
        }
        out[0]++;
        out[1] += bytes.length;
        if (contains(bytes, marker)) {
          out[2]++;
        }
      }
    }
    return out;
  }

  static boolean contains(byte[] bytes, byte[] marker) {
    outer:
    for (int i = 0; i + marker.length <= bytes.length; i++) {
      for (int j = 0; j < marker.length; j++) {
        if (bytes[i + j] != marker[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private static Raw s3Raw(S3AsyncClient s3, String bucket) {
    return new Raw() {
      @Override
      public byte[] get(String key) {
        try {
          return s3.getObject(b -> b.bucket(bucket).key(key), AsyncResponseTransformer.toBytes())
              .join()
              .asByteArray();
        } catch (CompletionException e) {
          if (e.getCause() instanceof NoSuchKeyException) {
            return null;
          }
          throw e;
        }
      }

      @Override
      public void put(String key, byte[] bytes) {
        s3.putObject(b -> b.bucket(bucket).key(key), AsyncRequestBody.fromBytes(bytes)).join();
      }

      @Override
      public List<String> keys() {
        List<String> keys = new ArrayList<>();
        s3.listObjectsV2Paginator(b -> b.bucket(bucket))
            .contents()
            .subscribe((S3Object o) -> keys.add(o.key()))
            .join();
        return keys;
      }
    };
  }

  private static Raw azureRaw(BlobContainerClient container) {
    return new Raw() {
      @Override
      public byte[] get(String key) {
        try {
          return container.getBlobClient(key).downloadContent().toBytes();
        } catch (BlobStorageException e) {
          if (e.getStatusCode() == 404) {
            return null;
          }
          throw e;
        }
      }

      @Override
      public void put(String key, byte[] bytes) {
        container.getBlobClient(key).upload(BinaryData.fromBytes(bytes), true);
      }

      @Override
      public List<String> keys() {
        return container.listBlobs().stream().map(BlobItem::getName).toList();
      }
    };
  }

  /**
   * The raw client's event loop (daemon threads, never closed): on the SDK's own loop the client
   * takes Netty's default 2 s quiet period to close.
   */
  private static final SdkEventLoopGroup RAW_LOOP =
      SdkEventLoopGroup.create(
          new NioEventLoopGroup(1, new DefaultThreadFactory("chaos-raw-s3", true)));

  private static S3AsyncClient rawClient(EmbeddedS3 s3) {
    return S3AsyncClient.builder()
        .endpointOverride(s3.endpoint())
        .region(Region.of(s3.region()))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .httpClientBuilder(NettyNioAsyncHttpClient.builder().eventLoopGroup(RAW_LOOP))
        .build();
  }
}
