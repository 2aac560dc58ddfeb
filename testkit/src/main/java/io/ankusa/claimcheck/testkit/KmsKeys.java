package io.ankusa.claimcheck.testkit;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@link EmbeddedKms}'s keys, their states and aliases, and its really-encrypting ciphertext blobs;
 * thread-safe (every method is synchronized).
 *
 * <p>A blob is {@code "EKMS" | key UUID (16 bytes) | nonce (12) | AES-256-GCM(plaintext) + tag},
 * with the first 32 bytes and the canonical encryption context (entries sorted by key, each
 * length-prefixed UTF-8) as associated data. So a blob names its key, like real KMS's, and a
 * different context, a flipped byte or another key fails as {@code InvalidCiphertextException}.
 * Nonces are random per blob (96 bits; a test makes far fewer than 2^32 blobs per key).
 */
final class KmsKeys {

  static final String ACCOUNT = "111122223333";
  private static final byte[] MAGIC = "EKMS".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADER = MAGIC.length + 16;
  private static final int NONCE = 12;
  private static final int TAG_BITS = 128;

  enum State {
    ENABLED("Enabled"),
    DISABLED("Disabled"),
    PENDING_DELETION("PendingDeletion"),
    DELETED("Deleted");

    final String wire;

    State(String wire) {
      this.wire = wire;
    }
  }

  /** One key; {@code secret} is null once shredded. */
  static final class Key {
    final UUID id;
    final String arn;
    final Instant created;
    State state = State.ENABLED;
    byte[] secret;

    Key(UUID id, String arn, Instant created, byte[] secret) {
      this.id = id;
      this.arn = arn;
      this.created = created;
      this.secret = secret;
    }
  }

  private final String region;
  private final SecureRandom random = new SecureRandom();
  private final Map<UUID, Key> keys = new HashMap<>();
  private final Map<String, UUID> aliases = new HashMap<>();

  KmsKeys(String region) {
    this.region = region;
  }

  synchronized String create() {
    UUID id = UUID.randomUUID();
    byte[] secret = new byte[32];
    random.nextBytes(secret);
    String arn = "arn:aws:kms:" + region + ":" + ACCOUNT + ":key/" + id;
    keys.put(id, new Key(id, arn, Instant.now(), secret));
    return arn;
  }

  synchronized void alias(String alias, String keyId) {
    Objects.requireNonNull(alias, "alias");
    if (!alias.startsWith("alias/") || alias.length() == "alias/".length()) {
      throw new IllegalArgumentException("an alias name starts with alias/: " + alias);
    }
    aliases.put(alias, known(keyId).id);
  }

  synchronized void setState(String keyId, State state) {
    Key k = known(keyId);
    if (k.state == State.DELETED) {
      throw new IllegalStateException(k.arn + " is deleted for good");
    }
    k.state = state;
    if (state == State.DELETED) {
      Arrays.fill(k.secret, (byte) 0);
      k.secret = null;
    }
  }

  /** {@link #resolve} for the test's controls: an unknown key is the test's mistake. */
  private Key known(String keyId) {
    try {
      return resolve(keyId);
    } catch (KmsError e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * Returns the key that {@code keyId} (key id, key ARN, alias name or alias ARN) names, in any
   * state.
   *
   * @throws KmsError NotFoundException when none
   */
  synchronized Key resolve(String keyId) {
    if (keyId == null || keyId.isEmpty()) {
      throw KmsError.validation("KeyId is required");
    }
    String prefix = "arn:aws:kms:" + region + ":" + ACCOUNT + ":";
    String id = keyId.startsWith(prefix) ? keyId.substring(prefix.length()) : keyId;
    UUID uuid = null;
    if (id.startsWith("alias/")) {
      uuid = aliases.get(id);
      if (uuid == null) {
        throw KmsError.notFound("Alias " + prefix + id + " is not found.");
      }
    } else {
      try {
        uuid = UUID.fromString(id.startsWith("key/") ? id.substring(4) : id);
      } catch (IllegalArgumentException e) {
        throw KmsError.notFound("Invalid keyId '" + keyId + "'");
      }
    }
    Key k = keys.get(uuid);
    if (k == null) {
      throw KmsError.notFound("Key '" + prefix + "key/" + uuid + "' does not exist");
    }
    return k;
  }

  /** Returns the key, which must be usable for cryptography. */
  synchronized Key usable(String keyId) {
    return checkUsable(resolve(keyId));
  }

  synchronized byte[] encrypt(Key k, byte[] plaintext, Map<String, String> context) {
    checkUsable(k);
    byte[] nonce = new byte[NONCE];
    random.nextBytes(nonce);
    ByteBuffer out = ByteBuffer.allocate(HEADER + NONCE + plaintext.length + TAG_BITS / 8);
    out.put(MAGIC).putLong(k.id.getMostSignificantBits()).putLong(k.id.getLeastSignificantBits());
    out.put(nonce);
    try {
      Cipher c = cipher(Cipher.ENCRYPT_MODE, k, nonce, out.array(), context);
      out.put(c.doFinal(plaintext));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM failed", e);
    }
    return out.array();
  }

  /** Decrypts {@code blob}; {@code keyId}, when not null, must name the blob's key. */
  synchronized Decrypted decrypt(byte[] blob, Map<String, String> context, String keyId) {
    if (blob.length < HEADER + NONCE + TAG_BITS / 8
        || !Arrays.equals(Arrays.copyOf(blob, MAGIC.length), MAGIC)) {
      throw KmsError.invalidCiphertext();
    }
    ByteBuffer in = ByteBuffer.wrap(blob, MAGIC.length, 16);
    Key k = keys.get(new UUID(in.getLong(), in.getLong()));
    if (k == null) {
      throw KmsError.invalidCiphertext();
    }
    if (keyId != null && resolve(keyId) != k) {
      throw KmsError.incorrectKey();
    }
    checkUsable(k);
    try {
      Cipher c =
          cipher(
              Cipher.DECRYPT_MODE,
              k,
              Arrays.copyOfRange(blob, HEADER, HEADER + NONCE),
              blob,
              context);
      return new Decrypted(k, c.doFinal(blob, HEADER + NONCE, blob.length - HEADER - NONCE));
    } catch (AEADBadTagException e) {
      throw KmsError.invalidCiphertext();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM failed", e);
    }
  }

  record Decrypted(Key key, byte[] plaintext) {}

  private static Key checkUsable(Key k) {
    return switch (k.state) {
      case ENABLED -> k;
      case DISABLED -> throw KmsError.disabled(k.arn);
      case PENDING_DELETION -> throw KmsError.invalidState(k.arn);
      case DELETED -> throw KmsError.notFound("Key '" + k.arn + "' does not exist");
    };
  }

  private static Cipher cipher(
      int mode, Key k, byte[] nonce, byte[] header, Map<String, String> context)
      throws GeneralSecurityException {
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(mode, new SecretKeySpec(k.secret, "AES"), new GCMParameterSpec(TAG_BITS, nonce));
    c.updateAAD(header, 0, HEADER);
    c.updateAAD(canonical(context));
    return c;
  }

  private static byte[] canonical(Map<String, String> context) {
    ByteBuffer b = ByteBuffer.allocate(4 + sizeOf(context));
    b.putInt(context.size());
    for (Map.Entry<String, String> e : new TreeMap<>(context).entrySet()) {
      for (String s : new String[] {e.getKey(), e.getValue()}) {
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        b.putInt(u.length).put(u);
      }
    }
    return b.array();
  }

  private static int sizeOf(Map<String, String> context) {
    int n = 0;
    for (Map.Entry<String, String> e : context.entrySet()) {
      n += 8 + e.getKey().getBytes(StandardCharsets.UTF_8).length;
      n += e.getValue().getBytes(StandardCharsets.UTF_8).length;
    }
    return n;
  }
}
