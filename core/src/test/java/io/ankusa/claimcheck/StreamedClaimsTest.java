package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Streamed claims through the facade on in-memory stores: {@code checkIn(InputStream, long)} and
 * {@code redeemStream}, for streamed and packed refs, the end verified (issue 17).
 */
class StreamedClaimsTest {

  private static final Duration CHUNK = Duration.ofSeconds(5);

  private final String a = "st-a-" + UUID.randomUUID();
  private final String b = "st-b-" + UUID.randomUUID();

  @AfterEach
  void forget() {
    MemoryStores.forget(a);
    MemoryStores.forget(b);
  }

  private Map<String, Object> config() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + a + ",faulty:" + b);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.stream.max.bytes", Long.toString(64L << 20));
    return m;
  }

  private static byte[] random(int n, long seed) {
    byte[] bytes = new byte[n];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /** Text-like bytes zstd shrinks a lot. */
  private static byte[] compressible(int n) {
    byte[] bytes = new byte[n];
    for (int i = 0; i < n; i++) {
      bytes[i] = (byte) ('a' + (i * 7 % 13) + (i / 100_000 % 3));
    }
    return bytes;
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[100_000];
    for (int n; (n = in.read(buf)) >= 0; ) {
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "zstd"})
  void aStreamedClaimOfManyChunksRoundTripsWithEachStreamedCodec(String codec) throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", codec);
    byte[] value = codec.equals("zstd") ? compressible(5_500_000) : random(3_700_000, 1);
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      assertThat(ref.isStreamed()).isTrue();
      assertThat(ref.version()).isEqualTo(ClaimRef.STREAMED_VERSION);
      assertThat(ref.codec()).isEqualTo(Codec.valueOf(codec.toUpperCase(java.util.Locale.ROOT)));
      assertThat(ref.rawLength()).isEqualTo(value.length);
      if (codec.equals("zstd")) {
        assertThat(ref.length()).isLessThan(value.length / 4);
      }
      assertThat(RefCodec.decode(RefCodec.encode(ref))).isEqualTo(ref);
      try (ClaimCheck.ClaimStream in = cc.redeemStream(ref, CHUNK)) {
        assertThat(in.length()).isEqualTo(value.length);
        assertThat(readAll(in)).isEqualTo(value);
      }
    }
  }

  @Test
  void aSourceOfUnknownLengthIsReadToItsEnd() throws Exception {
    byte[] value = random(2_500_000, 2);
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), -1);
      assertThat(ref.length()).isEqualTo(value.length);
      assertThat(readAll(cc.redeemStream(ref, CHUNK))).isEqualTo(value);
    }
  }

  @Test
  void aDeclaredLengthPastTheStreamLimitIsRefusedBeforeAnyStoreRequest() throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.stream.max.bytes", "1000");
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      assertThatThrownBy(() -> cc.checkIn(new ByteArrayInputStream(new byte[1001]), 1001))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.REFUSED))
          .hasMessageContaining("claimcheck.stream.max.bytes");
      assertThat(MemoryStores.named(a).count(MemoryStore.Op.PUT)).isZero();
    }
  }

  @Test
  void anUndeclaredStreamPastTheLimitIsRefusedAndLeavesNothingStored() throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.stream.max.bytes", "100000");
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      assertThatThrownBy(() -> cc.checkIn(new ByteArrayInputStream(random(100_001, 3)), -1))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.REFUSED));
      assertThat(MemoryStores.named(a).keys()).isEmpty();
      assertThat(MemoryStores.named(b).keys()).as("no failover of a read stream").isEmpty();
    }
  }

  @Test
  void aSourceEndingBeforeItsDeclaredLengthFailsAndLeavesNothingStored() throws Exception {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      assertThatThrownBy(() -> cc.checkIn(new ByteArrayInputStream(new byte[10]), 11))
          .isInstanceOf(EOFException.class);
      assertThat(MemoryStores.named(a).keys()).isEmpty();
    }
  }

  @Test
  void aStoreRefusingBeforeReadingTheSourceFailsOverToTheNext() throws Exception {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      MemoryStores.named(a)
          .failAlways(
              MemoryStore.Op.PUT, io.ankusa.claimcheck.store.StoreException.Kind.UNAVAILABLE);
      byte[] value = random(1_500_000, 4);
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      assertThat(MemoryStores.named(b).keys()).hasSize(1);
      assertThat(readAll(cc.redeemStream(ref, CHUNK))).isEqualTo(value);
    }
  }

  @Test
  void aTamperedStreamedClaimFailsItsLastReadCorruptNeverASilentWrongEnd() throws Exception {
    byte[] value = random(3_000_000, 5);
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      tamper(ref, 2_900_000);
      ClaimCheck.ClaimStream in = cc.redeemStream(ref, CHUNK);
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[64 << 10];
      Throwable thrown = null;
      try {
        for (int n; (n = in.read(buf)) >= 0; ) {
          got.write(buf, 0, n);
        }
      } catch (ClaimCheckFailure f) {
        thrown = f;
      }
      assertThat(thrown)
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.CORRUPT))
          .hasMessageContaining("read twice");
      assertThat(got.size()).as("every byte came before the verdict").isEqualTo(value.length);
      assertThatThrownBy(in::read).isSameAs(thrown);
    }
  }

  @Test
  void aTamperedZstdStreamedClaimIsCorruptFromTheStreamToo() throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", "zstd");
    byte[] value = compressible(4_000_000);
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      tamper(ref, (int) ref.length() / 2);
      assertThatThrownBy(() -> readAll(cc.redeemStream(ref, CHUNK)))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.CORRUPT));
    }
  }

  @Test
  void aPackedClaimStreamsToo_largeUncompressedInChunksVerifiedAtTheEnd() throws Exception {
    byte[] value = random(2_300_000, 6);
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ClaimRef packed = cc.checkIn(value);
      assertThat(packed.isStreamed()).isFalse();
      assertThat(readAll(cc.redeemStream(packed, CHUNK))).isEqualTo(value);
      tamper(packed, 2_000_000);
      assertThatThrownBy(() -> readAll(cc.redeemStream(packed, CHUNK)))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.CORRUPT));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void smallAndCompressedPackedClaimsStreamAsOneVerifiedPiece(String codec) throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", codec);
    // At most a chunk uncompressed; a compressed packed claim is redeemed whole at any size.
    byte[] value = compressible(codec.equals("none") ? 900_000 : 3_000_000);
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimRef packed = cc.checkIn(value);
      ClaimCheck.ClaimStream s = cc.redeemStream(packed, CHUNK);
      ByteBuffer piece = s.nextChunk().get();
      assertThat(piece.remaining()).isEqualTo(value.length);
      assertThat(s.nextChunk().get()).as("the end").isNull();
    }
  }

  @Test
  void aStreamedRedeemOfAMissingClaimIsNotFound() throws Exception {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      byte[] value = random(1_200_000, 7);
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      MemoryStores.named(a).clearObjects();
      MemoryStores.named(b).clearObjects();
      assertThatThrownBy(() -> readAll(cc.redeemStream(ref, CHUNK)))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.NOT_FOUND))
          .hasMessageContaining("asked twice");
    }
  }

  @Test
  void aStoreDownDuringAStreamedRedeemIsUnavailable() throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.read.deadline.ms", "300");
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      byte[] value = random(1_200_000, 8);
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      MemoryStores.named(a)
          .failAlways(
              MemoryStore.Op.GET, io.ankusa.claimcheck.store.StoreException.Kind.UNAVAILABLE);
      MemoryStores.named(b)
          .failAlways(
              MemoryStore.Op.GET, io.ankusa.claimcheck.store.StoreException.Kind.UNAVAILABLE);
      assertThatThrownBy(() -> readAll(cc.redeemStream(ref, Duration.ofMillis(300))))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.UNAVAILABLE));
    }
  }

  @Test
  void aStreamedRefPastTheReadLimitOfAWholeRedeemIsRefusedThereButStreams() throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.read.max.bytes", "1000000");
    byte[] value = random(1_500_000, 9);
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      assertThatThrownBy(() -> cc.redeemBlocking(ref, cc.ticker().read() + CHUNK.toNanos()))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.reason()).isEqualTo(ClaimCheckFailure.Reason.REFUSED));
      assertThat(readAll(cc.redeemStream(ref, CHUNK))).isEqualTo(value);
    }
  }

  @Test
  void aSmallStreamedClaimIsRedeemedWholeByTheDeserializersPathToo() throws Exception {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", "zstd");
    byte[] value = compressible(200_000);
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimRef ref = cc.checkIn(new ByteArrayInputStream(value), value.length);
      assertThat(cc.redeemBlocking(ref, cc.ticker().read() + CHUNK.toNanos())).isEqualTo(value);
    }
  }

  @Test
  void aBadStreamLimitIsAConfigExceptionNamingTheKey() {
    Map<String, Object> m = config();
    m.put("claimcheck.stream.max.bytes", "0");
    assertThatThrownBy(() -> ClaimCheck.open(m))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.stream.max.bytes");
  }

  /** Flips one byte of the claim's stored bytes in whichever store holds it. */
  private void tamper(ClaimRef ref, long at) {
    for (String name : new String[] {a, b}) {
      MemoryStore s = MemoryStores.named(name);
      for (String key : s.keys()) {
        if (key.endsWith(ref.packId().hex())) {
          byte[] bytes = s.getRange(key, 0, Integer.MAX_VALUE, CHUNK).join();
          bytes[(int) (ref.offset() + at)] ^= 0x40;
          s.put(key, bytes, CHUNK).join();
        }
      }
    }
  }
}
