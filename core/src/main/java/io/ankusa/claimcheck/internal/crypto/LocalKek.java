package io.ankusa.claimcheck.internal.crypto;

import com.google.crypto.tink.Aead;
import io.ankusa.claimcheck.crypto.KekProvider.DataKey;
import io.ankusa.claimcheck.crypto.KekProvider.Kek;
import io.ankusa.claimcheck.crypto.KekProvider.KekException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * One {@code local:} KEK: wraps data keys with the key file's AEAD, the context as associated data;
 * thread-safe. The file is read at the first use and kept; a file that could not be read is read
 * again at the next use.
 */
final class LocalKek implements Kek {

  private static final byte[] PREFIX = "claimcheck/dek/v1".getBytes(StandardCharsets.US_ASCII);

  private final String id;
  private final Path path;
  private final SecureRandom random = new SecureRandom();
  private volatile Aead aead;

  LocalKek(String id, Path path) {
    this.id = id;
    this.path = path;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public CompletableFuture<DataKey> generate(Map<String, String> context) {
    try {
      byte[] dek = new byte[32];
      random.nextBytes(dek);
      return CompletableFuture.completedFuture(
          new DataKey(dek, aead().encrypt(dek, associated(context))));
    } catch (GeneralSecurityException e) {
      return CompletableFuture.failedFuture(
          new KekException(KekException.Kind.UNAVAILABLE, id + ": wrap failed: " + e, e));
    } catch (KekException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<byte[]> unwrap(byte[] wrapped, Map<String, String> context) {
    try {
      return CompletableFuture.completedFuture(aead().decrypt(wrapped, associated(context)));
    } catch (GeneralSecurityException e) {
      return CompletableFuture.failedFuture(
          new KekException(
              KekException.Kind.INVALID,
              id + " did not wrap this data key under this context (tampered or another key)",
              e));
    } catch (KekException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private Aead aead() {
    Aead a = aead;
    if (a == null) {
      a = LocalKekProvider.aead(path);
      aead = a;
    }
    return a;
  }

  private static byte[] associated(Map<String, String> context) {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(context).forEach((k, v) -> b.append(k).append('=').append(v).append(';'));
    byte[] c = b.toString().getBytes(StandardCharsets.UTF_8);
    byte[] out = new byte[PREFIX.length + c.length];
    System.arraycopy(PREFIX, 0, out, 0, PREFIX.length);
    System.arraycopy(c, 0, out, PREFIX.length, c.length);
    return out;
  }
}
