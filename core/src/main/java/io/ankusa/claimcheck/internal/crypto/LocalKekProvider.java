package io.ankusa.claimcheck.internal.crypto;

import com.google.crypto.tink.Aead;
import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.KeysetHandle;
import com.google.crypto.tink.RegistryConfiguration;
import com.google.crypto.tink.TinkJsonProtoKeysetFormat;
import com.google.crypto.tink.aead.AeadConfig;
import io.ankusa.claimcheck.crypto.KekProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Set;

/**
 * The {@code local:PATH} KEKs: a Tink JSON keyset file (one AES-256-GCM key) on this machine, for
 * development and tests ({@code claimcheck keys new --out FILE} writes one); thread-safe. Not for
 * production: the key lies beside the application, where a KMS would keep it.
 *
 * <p>A missing file is {@code KEY_GONE}: deleting a tenant's key file is how a {@code local:}
 * tenant is shredded.
 */
public final class LocalKekProvider implements KekProvider {

  /** The scheme. */
  public static final String SCHEME = "local";

  static {
    try {
      AeadConfig.register();
    } catch (GeneralSecurityException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  @Override
  public Set<String> schemes() {
    return Set.of(SCHEME);
  }

  @Override
  public void validate(String kekId, Map<String, String> settings) {
    Path path = pathOf(kekId);
    try {
      aead(path);
    } catch (KekException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  @Override
  public Kek open(String kekId, Map<String, String> settings) {
    return new LocalKek(kekId, pathOf(kekId));
  }

  static Path pathOf(String kekId) {
    if (!kekId.startsWith(SCHEME + ":") || kekId.length() == SCHEME.length() + 1) {
      throw new IllegalArgumentException("a local KEK is local:PATH, not '" + kekId + "'");
    }
    return Path.of(kekId.substring(SCHEME.length() + 1));
  }

  /** The key file's AEAD; a {@link KekException} naming the file. */
  static Aead aead(Path path) {
    String json;
    try {
      json = Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new KekException(
          KekException.Kind.KEY_GONE,
          "the local key file " + path + " does not exist (deleted: its claims are shredded)",
          e);
    } catch (IOException e) {
      throw new KekException(
          KekException.Kind.UNAVAILABLE, "the local key file " + path + " is unreadable: " + e, e);
    }
    try {
      KeysetHandle handle =
          TinkJsonProtoKeysetFormat.parseKeyset(json, InsecureSecretKeyAccess.get());
      return handle.getPrimitive(RegistryConfiguration.get(), Aead.class);
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new KekException(
          KekException.Kind.INVALID,
          "the local key file " + path + " is not a Tink AEAD keyset: " + e.getMessage(),
          e);
    }
  }

  /** A fresh key file's content: a Tink JSON keyset of one AES-256-GCM key. */
  public static String newKeyFile() {
    try {
      return TinkJsonProtoKeysetFormat.serializeKeyset(
          KeysetHandle.generateNew(com.google.crypto.tink.aead.PredefinedAeadParameters.AES256_GCM),
          InsecureSecretKeyAccess.get());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("Tink cannot generate an AES-256-GCM key", e);
    }
  }
}
