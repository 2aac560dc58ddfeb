package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where encryption (issue 19) meets streamed claims (issue 17): a streamed check-in where the
 * tenant's claims are encrypted stores an envelope of segments (ref version 5) and a streamed
 * redeem decrypts it segment by segment; a stored object that is tampered with, cut at a segment
 * boundary, re-ordered or copied under another pack (even with a ref forged to match its length and
 * CRC32C) ends in {@code CORRUPT} from the last read after the second look, and every byte handed
 * out before is the claim's own; a client that requires encryption reads version 5 and refuses a
 * plaintext streamed claim before any store request.
 */
class EncryptedStreamsTest {

  private static final Duration T = Duration.ofSeconds(10);
  private static final byte[] MARKER =
      "PLANTED-PLAINTEXT-MARKER-4f1c".getBytes(StandardCharsets.US_ASCII);

  /** Segment size of the envelope (ciphertext bytes), as {@code Segmented} writes it. */
  private static final int SEGMENT = 32 << 10;

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

  /** Random bytes with the marker planted every 100,000 bytes. */
  private static byte[] value(int n) {
    byte[] v = new byte[n];
    new Random(n).nextBytes(v);
    for (int at = 0; at + MARKER.length < n; at += 100_000) {
      System.arraycopy(MARKER, 0, v, at, MARKER.length);
    }
    return v;
  }

  @Test
  void anEncryptedStreamedClaimGoesUpAndDownAndItsStoredBytesHoldNoPlaintext() throws Exception {
    byte[] v = value(3 << 20);
    ClaimRef ref;
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ref = cc.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
      assertThat(ref.version()).isEqualTo(ClaimRef.STREAMED_ENCRYPTED_VERSION);
      assertThat(ref.isStreamed()).isTrue();
      assertThat(ref.isEncrypted()).isTrue();
      assertThat(ref.rawLength()).isEqualTo(v.length);
      byte[] stored = stored(ref);
      assertThat(stored).hasSize((int) ref.length());
      assertThat(ref.length()).isGreaterThan(v.length);
      assertThat(indexOf(stored, MARKER)).as("the marker in the stored bytes").isEqualTo(-1);
      assertThat(new String(stored, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("AKEN");
      try (ClaimCheck.ClaimStream s = cc.redeemStream(ref, T)) {
        assertThat(s.readAllBytes()).isEqualTo(v);
      }
    }
    // Another process with the key (no cached data key) reads it too.
    try (ClaimCheck other = ClaimCheck.open(encrypted())) {
      try (ClaimCheck.ClaimStream s = other.redeemStream(ref, T)) {
        assertThat(s.readAllBytes()).isEqualTo(v);
      }
    }
  }

  private byte[] stored(ClaimRef ref) {
    for (String key : store().keys()) {
      if (key.endsWith(ref.packId().hex())) {
        return store().getRange(key, 0, Integer.MAX_VALUE, T).join();
      }
    }
    throw new AssertionError("no object of " + ref);
  }

  @Test
  void aZstdStreamOfUnknownLengthIsCompressedThenEncrypted() throws Exception {
    byte[] v = new byte[2_500_000];
    byte[] text = "compressible claim text with a PLANTED-PLAINTEXT-MARKER-4f1c in it; ".getBytes();
    for (int i = 0; i < v.length; i++) {
      v[i] = text[i % text.length];
    }
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(v), -1, Codec.ZSTD);
      assertThat(ref.version()).isEqualTo(ClaimRef.STREAMED_ENCRYPTED_VERSION);
      assertThat(ref.codec()).isEqualTo(Codec.ZSTD);
      assertThat(ref.length()).as("compressed before encrypted").isLessThan(v.length / 10);
      assertThat(indexOf(stored(ref), MARKER)).isEqualTo(-1);
      try (ClaimCheck.ClaimStream s = cc.redeemStream(ref, T)) {
        assertThat(s.readAllBytes()).isEqualTo(v);
      }
      assertThat(whole(cc, ref)).as("small enough for the whole redeem").isEqualTo(v);
    }
  }

  @Test
  void aSmallEncryptedStreamedClaimIsRedeemedWholeAndAsAStream() throws Exception {
    byte[] v = value(70_000);
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
      assertThat(ref.isEncrypted()).isTrue();
      assertThat(whole(cc, ref)).isEqualTo(v);
      try (ClaimCheck.ClaimStream s = cc.redeemStream(ref, T)) {
        assertThat(s.readAllBytes()).isEqualTo(v);
      }
    }
  }

  @Test
  void aFlippedByteEndsInCorruptAndOnlyTheClaimsOwnBytesCameBefore() throws Exception {
    byte[] v = value(3 << 20);
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
      byte[] stored = stored(ref);
      stored[stored.length / 2] ^= 0x01;
      replace(ref, stored);
      assertCorruptWithAPrefixOf(cc, ref, v);
    }
  }

  @Test
  void reorderedSegmentsUnderAForgedRefAreCorrupt() throws Exception {
    byte[] v = value(3 << 20);
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
      byte[] stored = stored(ref);
      int header = headerLength(stored);
      // Segments 10 and 11 (full ones) swapped: the same bytes, the same length.
      int s10 = header + 10 * SEGMENT;
      byte[] ten = Arrays.copyOfRange(stored, s10, s10 + SEGMENT);
      System.arraycopy(stored, s10 + SEGMENT, stored, s10, SEGMENT);
      System.arraycopy(ten, 0, stored, s10 + SEGMENT, SEGMENT);
      replace(ref, stored);
      assertCorruptWithAPrefixOf(cc, forged(ref, stored), v);
    }
  }

  @Test
  void aStreamCutAtASegmentBoundaryUnderAForgedRefIsCorrupt() throws Exception {
    byte[] v = value(3 << 20);
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
      byte[] stored = stored(ref);
      byte[] cut = Arrays.copyOf(stored, headerLength(stored) + 40 * SEGMENT);
      replace(ref, cut);
      ClaimRef forged =
          ClaimRef.streamedEncrypted(
              ref.tenant(), ref.packId(), cut.length, crc(cut), Codec.NONE, v.length);
      assertCorruptWithAPrefixOf(cc, forged, v);
    }
  }

  @Test
  void anEnvelopeCopiedUnderAnotherPackIsCorrupt() throws Exception {
    byte[] v = value(2 << 20);
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
      byte[] stored = stored(ref);
      String key = store().keys().iterator().next();
      PackId other = new PackId(ref.packId().value() ^ 0x0101);
      String otherKey = key.substring(0, key.length() - 16) + other.hex();
      store().put(otherKey, stored, T).join();
      ClaimRef copied =
          ClaimRef.streamedEncrypted(
              ref.tenant(), other, ref.length(), ref.checksum(), ref.codec(), ref.rawLength());
      assertThatThrownBy(() -> readAll(cc.redeemStream(copied, T)))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.CORRUPT));
    }
  }

  @Test
  void aReaderWithoutEncryptionIsRefusedNamingTheKek() throws Exception {
    byte[] v = value(3 << 20);
    ClaimRef ref;
    try (ClaimCheck cc = ClaimCheck.open(encrypted())) {
      ref = cc.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
    }
    try (ClaimCheck plain = ClaimCheck.open(config())) {
      assertThatThrownBy(() -> readAll(plain.redeemStream(ref, T)))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> {
                assertThat(f.reason()).isEqualTo(Reason.REFUSED);
                assertThat(f.getMessage()).contains("KEK local:");
              });
    }
  }

  @Test
  void aClientThatRequiresEncryptionReadsEncryptedStreamsAndRefusesPlainOnes() throws Exception {
    byte[] v = value(3 << 20);
    ClaimRef plainRef;
    try (ClaimCheck plain = ClaimCheck.open(config())) {
      plainRef = plain.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
    }
    assertThat(plainRef.isStreamed()).isTrue();
    assertThat(plainRef.isEncrypted()).isFalse();
    Map<String, Object> required = encrypted();
    required.put("claimcheck.encryption.required", "true");
    try (ClaimCheck r = ClaimCheck.open(required)) {
      ClaimRef encRef = r.checkIn(new ByteArrayInputStream(v), v.length, Codec.NONE);
      try (ClaimCheck.ClaimStream s = r.redeemStream(encRef, T)) {
        assertThat(s.readAllBytes()).isEqualTo(v);
      }
      long gets = store().count(MemoryStore.Op.GET);
      try (ClaimCheck.ClaimStream s = r.redeemStream(plainRef, T)) {
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

  /** Reads {@code ref} as a stream: CORRUPT from a read, every byte before it the value's own. */
  private static void assertCorruptWithAPrefixOf(ClaimCheck cc, ClaimRef ref, byte[] v)
      throws Exception {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    Throwable thrown = null;
    try (ClaimCheck.ClaimStream in = cc.redeemStream(ref, T)) {
      byte[] buf = new byte[64 << 10];
      for (int n; (n = in.read(buf)) >= 0; ) {
        got.write(buf, 0, n);
      }
    } catch (ClaimCheckFailure f) {
      thrown = f;
    }
    assertThat(thrown)
        .isInstanceOfSatisfying(
            ClaimCheckFailure.class, f -> assertThat(f.reason()).isEqualTo(Reason.CORRUPT));
    byte[] served = got.toByteArray();
    assertThat(served.length).isLessThan(v.length);
    assertThat(served).as("only the claim's own bytes").isEqualTo(Arrays.copyOf(v, served.length));
  }

  private static byte[] whole(ClaimCheck cc, ClaimRef ref) {
    return cc.redeem(ref, cc.ticker().read() + T.toNanos()).join();
  }

  private static byte[] readAll(InputStream in) throws Exception {
    try (in) {
      return in.readAllBytes();
    }
  }

  private void replace(ClaimRef ref, byte[] bytes) {
    for (String key : store().keys()) {
      if (key.endsWith(ref.packId().hex())) {
        store().put(key, bytes, T).join();
      }
    }
  }

  private static ClaimRef forged(ClaimRef ref, byte[] stored) {
    return ClaimRef.streamedEncrypted(
        ref.tenant(), ref.packId(), stored.length, crc(stored), ref.codec(), ref.rawLength());
  }

  private static int crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return (int) c.getValue();
  }

  /** The envelope header's length: magic, version, AEAD id, KEK id, wrapped key. */
  private static int headerLength(byte[] stored) {
    int id = stored[6] & 0xff;
    int wrapped = ((stored[7 + id] & 0xff) << 8) | (stored[8 + id] & 0xff);
    return 9 + id + wrapped;
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
