package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where encryption (issue 19) meets streamed claims (issue 17): a streamed check-in is refused,
 * never stored in plaintext, where the tenant's claims are encrypted; a streamed redeem of an
 * encrypted claim decrypts it (the chunked path would hand out the envelope); a client that
 * requires encryption refuses a streamed (unencrypted) claim before any store request.
 */
class EncryptedStreamsTest {

  private final String a = "encstream-" + UUID.randomUUID();
  @TempDir Path dir;

  @AfterEach
  void forget() {
    MemoryStores.forget(a);
  }

  private Map<String, Object> config() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + a);
    m.put("claimcheck.tenant", "acme");
    return m;
  }

  private Map<String, Object> encrypted() throws Exception {
    Path key = dir.resolve("acme.key");
    if (!Files.exists(key)) {
      Files.writeString(key, LocalKekProvider.newKeyFile());
    }
    Map<String, Object> m = config();
    m.put("claimcheck.encryption.kek", "local:" + key);
    return m;
  }

  private MemoryStore store() {
    return MemoryStores.named(a);
  }

  /** Bytes past one 1 MiB chunk that do not compress to nothing. */
  private static byte[] value(int n) {
    byte[] v = new byte[n];
    new java.util.Random(n).nextBytes(v);
    return v;
  }

  @Test
  void aStreamedCheckInWhereClaimsAreEncryptedIsRefusedBeforeAnythingIsReadOrStored()
      throws Exception {
    byte[] v = value(3 << 20);
    ByteArrayInputStream source = new ByteArrayInputStream(v);
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      assertThatThrownBy(() -> cc.checkIn(source, v.length, Codec.NONE))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> {
                assertThat(f.reason()).isEqualTo(Reason.REFUSED);
                assertThat(f.getMessage()).contains("encrypted");
              });
    }
    assertThat(source.available()).as("bytes left unread in the source").isEqualTo(v.length);
    assertThat(store().count(MemoryStore.Op.PUT)).isZero();
  }

  @Test
  void aStreamedRedeemOfAnEncryptedClaimPastOneChunkIsTheDecryptedClaim() throws Exception {
    byte[] v = value(3 << 20);
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ClaimRef ref = cc.checkIn(v);
      assertThat(ref.isEncrypted()).isTrue();
      try (ClaimCheck.ClaimStream s = cc.redeemStream(ref, Duration.ofSeconds(10))) {
        assertThat(s.readAllBytes()).isEqualTo(v);
      }
    }
  }

  @Test
  void aClientThatRequiresEncryptionRefusesAStreamedClaimBeforeAnyStoreRequest() throws Exception {
    byte[] v = value(3 << 20);
    ClaimRef ref;
    try (ClaimCheck plain = ClaimCheck.open(config())) {
      ref = plain.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
    }
    assertThat(ref.isStreamed()).isTrue();
    Map<String, Object> required = encrypted();
    required.put("claimcheck.encryption.required", "true");
    long gets = store().count(MemoryStore.Op.GET);
    try (ClaimCheck r = ClaimCheck.open(required);
        ClaimCheck.ClaimStream s = r.redeemStream(ref, Duration.ofSeconds(10))) {
      assertThatThrownBy(s::readAllBytes)
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> {
                assertThat(f.reason()).isEqualTo(Reason.REFUSED);
                assertThat(f.getMessage()).contains("claimcheck.encryption.required");
              });
    }
    assertThat(store().count(MemoryStore.Op.GET)).isEqualTo(gets);
  }
}
