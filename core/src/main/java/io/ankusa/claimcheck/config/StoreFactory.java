package io.ankusa.claimcheck.config;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.file.FileStores;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import io.ankusa.claimcheck.store.s3.S3StoreSettings;
import io.ankusa.claimcheck.store.s3.S3Stores;
import java.net.URI;

/** Opens the store a {@link StoreSpec} describes; thread-safe (stateless). */
public final class StoreFactory {

  private StoreFactory() {}

  /** Opens {@code spec}'s store; a memory store is the process-wide one of that name. */
  public static ClaimStore open(StoreSpec spec) {
    if (spec instanceof StoreSpec.Memory m) {
      return new Unclosable(MemoryStores.named(m.name()));
    }
    if (spec instanceof StoreSpec.File f) {
      return FileStores.create(f.root(), f.permissions());
    }
    StoreSpec.S3 s = (StoreSpec.S3) spec;
    S3StoreSettings.Builder b = S3StoreSettings.builder()
        .bucket(s.bucket())
        .prefix(s.prefix())
        .pathStyleAccess(s.pathStyleAccess())
        .operationTimeout(s.opDeadline())
        .connectTimeout(s.connectTimeout())
        .maxConnections(s.maxConnections())
        .multipart(s.multipartThreshold(), s.multipartPartSize())
        .httpClient(s.httpClient());
    if (s.endpoint() != null) {
      b.endpoint(URI.create(s.endpoint()));
    }
    if (s.region() != null) {
      b.region(s.region());
    }
    if (s.accessKeyId() != null) {
      b.credentials(s.accessKeyId(), s.secretAccessKey().value());
    }
    return S3Stores.create(b.build());
  }

  /** A process-wide memory store seen through a handle whose close leaves it open. */
  private record Unclosable(ClaimStore delegate) implements ClaimStore {
    @Override
    public java.util.concurrent.CompletableFuture<Void> putIfAbsent(
        String key, byte[] bytes, java.time.Duration timeout) {
      return delegate.putIfAbsent(key, bytes, timeout);
    }

    @Override
    public java.util.concurrent.CompletableFuture<byte[]> getRange(
        String key, long offset, int length, java.time.Duration timeout) {
      return delegate.getRange(key, offset, length, timeout);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> delete(String key, java.time.Duration timeout) {
      return delegate.delete(key, timeout);
    }

    @Override
    public java.util.concurrent.CompletableFuture<io.ankusa.claimcheck.store.ListPage> list(
        String keyPrefix, String continuation, java.time.Duration timeout) {
      return delegate.list(keyPrefix, continuation, timeout);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Void> deleteAll(
        java.util.List<String> keys, java.time.Duration timeout) {
      return delegate.deleteAll(keys, timeout);
    }

    @Override
    public String describe() {
      return delegate.describe();
    }

    @Override
    public void close() {}
  }
}
