package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.internal.crypto.Envelope;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Envelope encryption through the facade (issue 19), over in-memory stores with {@code local:} key
 * files: round trips, what is stored, ranged reads, tampering (each {@code CORRUPT} only after the
 * second look, never bytes), a reader without encryption, {@code required}, and bad keys.
 */
class EncryptedClaimsTest {

  private static final byte[] MARKER =
      "PLANTED-PLAINTEXT-MARKER-19".getBytes(StandardCharsets.US_ASCII);

  private final String a = "enc-a-" + UUID.randomUUID();
  @TempDir Path dir;

  @AfterEach
  void forget() {
    MemoryStores.forget(a);
  }

  private Path keyFile(String name) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, LocalKekProvider.newKeyFile());
    return p;
  }

  private Map<String, Object> config(String kek) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + a);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.encryption.kek", kek);
    return m;
  }

  /** A compressible value with the marker planted every 1 KiB. */
  static byte[] marked(int n) {
    byte[] v = new byte[n];
    Random r = new Random(n);
    for (int i = 0; i < n; i++) {
      v[i] = (byte) ('a' + r.nextInt(4));
    }
    for (int at = 0; at + MARKER.length <= n; at += 1024) {
      System.arraycopy(MARKER, 0, v, at, MARKER.length);
    }
    return v;
  }

  static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static byte[] redeem(ClaimCheck cc, ClaimRef ref) {
    return cc.redeem(ref, cc.ticker().read() + Duration.ofSeconds(5).toNanos()).join();
  }

  private static ClaimCheckFailure failure(ClaimCheck cc, ClaimRef ref) {
    try {
      byte[] b = redeem(cc, ref);
      throw new AssertionError("expected a failure, got " + b.length + " bytes");
    } catch (CompletionException e) {
      return (ClaimCheckFailure) e.getCause();
    }
  }

  private MemoryStore store() {
    return MemoryStores.named(a);
  }

  private static String key(ClaimRef ref) {
    return ref.tenant().value() + "/" + ref.packId().hex();
  }

  /**
   * {@code ref} with {@code tenant}, {@code pack}, {@code length} and the CRC32C of {@code claim}.
   */
  private static ClaimRef forged(ClaimRef ref, String tenant, PackId pack, byte[] claim) {
    CRC32C crc = new CRC32C();
    crc.update(claim);
    return ClaimRef.ofEncrypted(
        Tenant.of(tenant),
        new ClaimId(pack, ref.claimId().index()),
        ref.offset(),
        claim.length,
        (int) crc.getValue(),
        ref.codec(),
        ref.rawLength());
  }

  @Test
  void aClaimRoundTripsEncryptedAndItsStoredPackHoldsNoPlaintext() throws Exception {
    String kek = "local:" + keyFile("acme.key");
    for (String codec : new String[] {"none", "gzip", "zstd"}) {
      Map<String, Object> m = config(kek);
      m.put("claimcheck.compression.type", codec);
      byte[] value = marked(300_000);
      try (ClaimCheck cc = ClaimCheck.open(m)) {
        ClaimRef ref = cc.checkIn(value);
        assertThat(ref.isEncrypted()).isTrue();
        assertThat(ref.version()).isEqualTo(ClaimRef.ENCRYPTED_VERSION);
        assertThat(redeem(cc, ref)).isEqualTo(value);
        byte[] stored = store().object(key(ref));
        assertThat(contains(stored, MARKER)).as("plaintext marker in the stored pack").isFalse();
        byte[] claim =
            Arrays.copyOfRange(stored, (int) ref.offset(), (int) ref.offset() + (int) ref.length());
        assertThat(Envelope.parse(claim).kekId()).isEqualTo(kek);
        if (!codec.equals("none")) {
          // Compressed, then encrypted: the envelope is far smaller than the value.
          assertThat(ref.length()).isLessThan(value.length / 2);
        }
        assertThat(cc.redeemRange(ref, 1000, 5000, cc.ticker().read() + 5_000_000_000L).join())
            .isEqualTo(Arrays.copyOfRange(value, 1000, 6000));
      }
    }
  }

  @Test
  void aPackOfManyClaimsRoundTripsEachBoundToItsIndex() throws Exception {
    try (ClaimCheck cc = ClaimCheck.open(config("local:" + keyFile("k")))) {
      var values = java.util.List.of(marked(5000), marked(7000), marked(9000));
      var refs = cc.checkInAll(values);
      for (int i = 0; i < 3; i++) {
        assertThat(redeem(cc, refs.get(i))).isEqualTo(values.get(i));
      }
      // Claim 1's envelope put where claim 0 lies: same pack, other index.
      byte[] stored = store().object(key(refs.get(0)));
      ClaimRef r0 = refs.get(0);
      ClaimRef r1 = refs.get(1);
      byte[] claim1 =
          Arrays.copyOfRange(stored, (int) r1.offset(), (int) r1.offset() + (int) r1.length());
      ClaimRef swapped =
          ClaimRef.ofEncrypted(
              r0.tenant(),
              r0.claimId(),
              r1.offset(),
              r1.length(),
              r1.checksum(),
              r1.codec(),
              r1.rawLength());
      assertThat(claim1).isNotEmpty();
      assertThat(failure(cc, swapped).reason()).isEqualTo(Reason.CORRUPT);
    }
  }

  /** Tampers with a stored claim (and forges its ref's CRC32C): CORRUPT after two reads. */
  private void tampered(UnaryOperator<byte[]> change, boolean forgeCrc) throws Exception {
    tampered(change, forgeCrc, Reason.CORRUPT, 2);
  }

  private void tampered(UnaryOperator<byte[]> change, boolean forgeCrc, Reason expected, int reads)
      throws Exception {
    try (ClaimCheck cc = ClaimCheck.open(config("local:" + keyFile("t-" + UUID.randomUUID())))) {
      ClaimRef ref = cc.checkIn(marked(50_000));
      byte[] stored = store().object(key(ref));
      int off = (int) ref.offset();
      byte[] claim = change.apply(Arrays.copyOfRange(stored, off, off + (int) ref.length()));
      byte[] pack = Arrays.copyOf(stored, off + claim.length);
      System.arraycopy(claim, 0, pack, off, claim.length);
      store().put(key(ref), pack, Duration.ofSeconds(1)).join();
      ClaimRef bad = forgeCrc ? forged(ref, "acme", ref.packId(), claim) : ref;
      long gets = store().count(MemoryStore.Op.GET);
      ClaimCheckFailure f = failure(cc, bad);
      assertThat(f.reason()).as(f.getMessage()).isEqualTo(expected);
      assertThat(store().count(MemoryStore.Op.GET) - gets)
          .as("first look + second look")
          .isEqualTo(reads);
    }
  }

  @Test
  void aFlippedCiphertextByteIsCorruptAfterTheSecondLook() throws Exception {
    tampered(c -> flip(c, c.length - 20), true);
    tampered(c -> flip(c, c.length - 20), false);
  }

  @Test
  void aFlippedTagByteIsCorrupt() throws Exception {
    tampered(c -> flip(c, c.length - 1), true);
  }

  @Test
  void aFlippedWrappedKeyByteIsCorrupt() throws Exception {
    tampered(c -> flip(c, Envelope.parse(c).headerLength() - 3), true);
  }

  @Test
  void aFlippedNonceByteIsCorrupt() throws Exception {
    tampered(c -> flip(c, Envelope.parse(c).headerLength() + 2), true);
  }

  @Test
  void aFlippedHeaderByteIsCorrupt() throws Exception {
    tampered(c -> flip(c, 5), false); // the AEAD id: the ref's CRC32C
    tampered(c -> flip(c, 10), false); // a byte of the KEK id (the path): the ref's CRC32C
    tampered(c -> flip(c, 0), true); // the magic, the CRC forged: the envelope is malformed
    // With the CRC forged too, an unknown AEAD id may be a newer writer's: retriable, not final.
    tampered(c -> flip(c, 5), true, Reason.UNAVAILABLE, 1);
  }

  @Test
  void aTruncatedClaimIsCorrupt() throws Exception {
    tampered(c -> Arrays.copyOf(c, c.length - 100), true);
    tampered(c -> Arrays.copyOf(c, 40), true);
  }

  @Test
  void aPackCopiedUnderAnotherTenantOrPackIdIsCorrupt() throws Exception {
    Map<String, Object> m = config("local:" + keyFile("acme.key"));
    m.put("claimcheck.encryption.tenant.evil.kek", "local:" + keyFile("evil.key"));
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimRef ref = cc.checkIn(marked(20_000));
      byte[] stored = store().object(key(ref));
      byte[] claim =
          Arrays.copyOfRange(stored, (int) ref.offset(), (int) ref.offset() + (int) ref.length());
      // Under another tenant, the same pack id.
      store().put("evil/" + ref.packId().hex(), stored, Duration.ofSeconds(1)).join();
      ClaimRef evil = forged(ref, "evil", ref.packId(), claim);
      ClaimCheckFailure f = failure(cc, evil);
      assertThat(f.reason()).as(f.getMessage()).isEqualTo(Reason.CORRUPT);
      // Under the same tenant, another pack id.
      PackId other = new PackId(ref.packId().value() ^ 1);
      store().put("acme/" + other.hex(), stored, Duration.ofSeconds(1)).join();
      f = failure(cc, forged(ref, "acme", other, claim));
      assertThat(f.reason()).as(f.getMessage()).isEqualTo(Reason.CORRUPT);
    }
  }

  @Test
  void aReaderWithoutEncryptionRefusesNamingTheKekAndRequiredRefusesUnencrypted() throws Exception {
    String kek = "local:" + keyFile("acme.key");
    ClaimRef encrypted;
    ClaimRef plain;
    try (ClaimCheck w = ClaimCheck.open(config(kek))) {
      encrypted = w.checkIn(marked(10_000));
    }
    try (ClaimCheck w = ClaimCheck.open(config("none"))) {
      plain = w.checkIn(marked(10_000));
      assertThat(plain.isEncrypted()).isFalse();
      ClaimCheckFailure f = failure(w, encrypted);
      assertThat(f.reason()).isEqualTo(Reason.REFUSED);
      assertThat(f.getMessage()).contains(kek).contains("claimcheck.encryption.kek=none");
    }
    Map<String, Object> required = config(kek);
    required.put("claimcheck.encryption.required", "true");
    try (ClaimCheck r = ClaimCheck.open(required)) {
      long gets = store().count(MemoryStore.Op.GET);
      ClaimCheckFailure f = failure(r, plain);
      assertThat(f.reason()).isEqualTo(Reason.REFUSED);
      assertThat(f.getMessage()).contains("not encrypted");
      assertThat(store().count(MemoryStore.Op.GET)).as("refused before any read").isEqualTo(gets);
      assertThat(redeem(r, encrypted)).isEqualTo(marked(10_000));
    }
    Map<String, Object> noKek = config("none");
    noKek.put("claimcheck.encryption.required", "true");
    assertThatThrownBy(() -> ClaimCheck.open(noKek))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.required");
  }

  @Test
  void aReaderDecryptsWhateverKekAClaimNamesAfterRotation() throws Exception {
    String old = "local:" + keyFile("old.key");
    String fresh = "local:" + keyFile("new.key");
    ClaimRef before;
    try (ClaimCheck w = ClaimCheck.open(config(old))) {
      before = w.checkIn(marked(10_000));
    }
    Map<String, Object> m = config(fresh);
    m.put("claimcheck.read.deadline.ms", "4000"); // another runtime: no cached data key
    try (ClaimCheck r = ClaimCheck.open(m)) {
      assertThat(redeem(r, before)).isEqualTo(marked(10_000));
      ClaimRef after = r.checkIn(marked(10_000));
      byte[] stored = store().object(key(after));
      byte[] claim =
          Arrays.copyOfRange(
              stored, (int) after.offset(), (int) after.offset() + (int) after.length());
      assertThat(Envelope.parse(claim).kekId()).isEqualTo(fresh);
    }
  }

  @Test
  void aDeletedLocalKeyFileShredsItsClaimsWithAFinalAnswerSayingSo() throws Exception {
    Path file = keyFile("shred.key");
    ClaimRef ref;
    try (ClaimCheck w = ClaimCheck.open(config("local:" + file))) {
      ref = w.checkIn(marked(10_000));
    }
    Files.delete(file);
    Map<String, Object> m = config("local:" + keyFile("other.key"));
    try (ClaimCheck r = ClaimCheck.open(m)) {
      ClaimCheckFailure f = failure(r, ref);
      assertThat(f.reason()).isEqualTo(Reason.NOT_FOUND);
      assertThat(f.getMessage()).contains("shredded").contains(file.toString());
    }
  }

  @Test
  void badEncryptionValuesFailNamingTheirKey() throws Exception {
    assertThatThrownBy(() -> ClaimCheck.open(config("local:" + dir.resolve("missing"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.kek");
    assertThatThrownBy(() -> ClaimCheck.open(config("vault:transit/x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.kek")
        .hasMessageContaining("known schemes");
    assertThatThrownBy(() -> ClaimCheck.open(config("just-a-path")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.kek");
    Path notAKey = dir.resolve("not-a-key");
    Files.writeString(notAKey, "{}");
    assertThatThrownBy(() -> ClaimCheck.open(config("local:" + notAKey)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.kek");
    Map<String, Object> tenant = config("none");
    tenant.put("claimcheck.encryption.tenant.acme.kek", "local:" + dir.resolve("missing"));
    assertThatThrownBy(() -> ClaimCheck.open(tenant))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.tenant.acme.kek");
    Map<String, Object> badTenant = config("none");
    badTenant.put("claimcheck.encryption.tenant.ACME.kek", "none");
    assertThatThrownBy(() -> ClaimCheck.open(badTenant))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.tenant.ACME.kek");
    Map<String, Object> badMax = config("none");
    badMax.put("claimcheck.encryption.dek.max.encryptions", "0");
    assertThatThrownBy(() -> ClaimCheck.open(badMax))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.encryption.dek.max.encryptions");
    Map<String, Object> keys = config("local:" + keyFile("k"));
    keys.put("claimcheck.keys.enabled", "true");
    assertThatThrownBy(() -> ClaimCheck.open(keys))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.keys.enabled");
  }

  @Test
  void aTenantKekOverridesTheDefaultForThatTenantOnly() throws Exception {
    String acme = "local:" + keyFile("acme.key");
    Map<String, Object> m = config("none");
    m.put("claimcheck.encryption.tenant.acme.kek", acme);
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimRef ref = cc.checkIn(marked(10_000));
      assertThat(ref.isEncrypted()).isTrue();
      assertThat(redeem(cc, ref)).isEqualTo(marked(10_000));
    }
    Map<String, Object> other = config("none");
    other.put("claimcheck.tenant", "globex");
    other.put("claimcheck.encryption.tenant.acme.kek", acme);
    try (ClaimCheck cc = ClaimCheck.open(other)) {
      assertThat(cc.checkIn(marked(10_000)).isEncrypted()).isFalse();
    }
  }

  static byte[] flip(byte[] b, int at) {
    byte[] c = b.clone();
    c[at] ^= 0x40;
    return c;
  }
}
