package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClaimCheckTest {

  private final String a = "cc-a-" + UUID.randomUUID();
  private final String b = "cc-b-" + UUID.randomUUID();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void forget() {
    MemoryStores.forget(a);
    MemoryStores.forget(b);
  }

  private Map<String, Object> config() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + a + ",faulty:" + b);
    m.put("claimcheck.tenant", "acme");
    m.put(ClaimCheck.METER_REGISTRY, registry);
    return m;
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] redeem(ClaimCheck cc, ClaimRef ref) {
    return cc.redeem(ref, cc.ticker().read() + Duration.ofSeconds(5).toNanos()).join();
  }

  private static ClaimCheckFailure failure(ClaimCheck cc, ClaimRef ref) {
    try {
      redeem(cc, ref);
    } catch (CompletionException e) {
      return (ClaimCheckFailure) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void checkInThenRedeemGivesTheSameBytesWithEveryCodec(String codec) {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", codec);
    byte[] text = new byte[300_000];
    for (int i = 0; i < text.length; i++) {
      text[i] = (byte) ('a' + (i * 7 % 13));
    }
    try (ClaimCheck writer = ClaimCheck.open(m);
        ClaimCheck reader =
            ClaimCheck.open(Map.of("claimcheck.stores", "faulty:" + a + ",faulty:" + b))) {
      ClaimRef ref = writer.checkIn(text);
      assertThat(RefCodec.encode(ref).length).isLessThan(100);
      assertThat(ref.tenant().value()).isEqualTo("acme");
      if (!codec.equals("none")) {
        assertThat(ref.length()).isLessThan(text.length / 2);
      }
      assertThat(redeem(reader, ref)).isEqualTo(text); // no compression setting on the reader
    }
  }

  @Test
  void redeemedArrayIsTheCallersOwn() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      byte[] value = random(1000, 1);
      ClaimRef ref = cc.checkIn(value);
      byte[] first = redeem(cc, ref);
      first[0] ^= 1;
      assertThat(redeem(cc, ref)).isEqualTo(value);
    }
  }

  @Test
  void collisionMintsAFreshPackId() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      MemoryStore home = MemoryStores.named(a);
      home.failTimes(MemoryStore.Op.PUT, Kind.ALREADY_EXISTS, 2);
      ClaimRef ref = cc.checkIn(random(100, 2));
      assertThat(home.count(MemoryStore.Op.PUT)).isEqualTo(3);
      assertThat(home.keys()).containsExactly(KeyLayout.FLAT.key("acme", ref.packId().value()));
      assertThat(redeem(cc, ref)).isEqualTo(random(100, 2));
      assertThat(registry.get("claimcheck.checkin").tag("outcome", "collision").timer().count())
          .isEqualTo(2);
    }
  }

  @Test
  void oneKeyAlwaysYieldsOneRef() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      byte[] key = random(500, 3);
      ClaimRef first = cc.checkInKey(key);
      ClaimRef again = cc.checkInKey(key.clone());
      assertThat(RefCodec.encode(again)).isEqualTo(RefCodec.encode(first));
      assertThat(MemoryStores.named(a).keys()).hasSize(1);
      assertThat(redeem(cc, again)).isEqualTo(key);
    }
  }

  @Test
  void batchCheckInWritesOnePack() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      List<byte[]> values = List.of(random(10, 4), random(20_000, 5), random(3, 6));
      List<ClaimRef> refs = cc.checkInAll(values);
      assertThat(MemoryStores.named(a).count(MemoryStore.Op.PUT)).isEqualTo(1);
      for (int i = 0; i < values.size(); i++) {
        assertThat(refs.get(i).claimId().index()).isEqualTo(i);
        assertThat(redeem(cc, refs.get(i))).isEqualTo(values.get(i));
      }
    }
  }

  @Test
  void refusedTenant() {
    ClaimRef ref;
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ref = cc.checkIn(random(10, 7));
    }
    Map<String, Object> m = config();
    m.put("claimcheck.tenants.allowed", "other,more");
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      ClaimCheckFailure f = failure(cc, ref);
      assertThat(f.reason()).isEqualTo(Reason.REFUSED);
      assertThat(f.getMessage()).contains("acme");
      assertThat(MemoryStores.named(a).count(MemoryStore.Op.GET)).isZero();
    }
  }

  @Test
  void aValueOverTheWriteLimitFailsBeforeAnyStoreRequest() {
    Map<String, Object> m = config();
    m.put("claimcheck.write.max.bytes", 1000);
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      assertThat(redeem(cc, cc.checkIn(random(1000, 11)))).isEqualTo(random(1000, 11));
      long puts = MemoryStores.named(a).count(MemoryStore.Op.PUT);
      assertThatThrownBy(() -> cc.checkIn(random(1001, 12)))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> {
                assertThat(f.reason()).isEqualTo(Reason.REFUSED);
                assertThat(f.getMessage()).contains("claimcheck.write.max.bytes").contains("1001");
              });
      assertThatThrownBy(() -> cc.checkInAll(List.of(random(10, 13), random(1001, 14))))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> assertThat(f.getMessage()).contains("value 1 of 1001 bytes"));
      assertThat(MemoryStores.named(a).count(MemoryStore.Op.PUT)).isEqualTo(puts);
      assertThat(MemoryStores.named(b).count(MemoryStore.Op.PUT)).isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "zstd"})
  void aRefOverTheReadLimitIsRefusedBeforeAnyStoreRequest(String codec) {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", codec);
    ClaimRef ref;
    try (ClaimCheck writer = ClaimCheck.open(m)) {
      ref = writer.checkIn(new byte[5000]); // zeros: zstd stores far fewer bytes than 5000
    }
    assertThat(ref.rawLength()).isEqualTo(5000);
    assertThat(ref.version()).isEqualTo(codec.equals("none") ? 1 : 2);
    Map<String, Object> r = config();
    r.put("claimcheck.read.max.bytes", 4999);
    try (ClaimCheck reader = ClaimCheck.open(r)) {
      ClaimCheckFailure f = failure(reader, ref);
      assertThat(f.reason()).isEqualTo(Reason.REFUSED);
      assertThat(f.getMessage()).contains("claimcheck.read.max.bytes").contains("5000");
      assertThat(MemoryStores.named(a).count(MemoryStore.Op.GET)).isZero();
      assertThat(MemoryStores.named(b).count(MemoryStore.Op.GET)).isZero();
    }
    r.put("claimcheck.read.max.bytes", 5000);
    try (ClaimCheck reader = ClaimCheck.open(r)) {
      assertThat(redeem(reader, ref)).isEqualTo(new byte[5000]);
    }
  }

  @Test
  void compressedCheckInsWriteVersionTwoRefsAndUncompressedOnesVersionOne() {
    Map<String, Object> m = config();
    m.put("claimcheck.compression.type", "lz4");
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      List<ClaimRef> refs = cc.checkInAll(List.of(new byte[7000], random(300, 15)));
      for (ClaimRef ref : refs) {
        assertThat(ref.version()).isEqualTo(2);
        assertThat(RefCodec.decode(RefCodec.encode(ref))).isEqualTo(ref);
      }
      assertThat(refs.get(0).rawLength()).isEqualTo(7000);
      assertThat(refs.get(1).rawLength()).isEqualTo(300);
      ClaimRef key = cc.checkInKey(random(400, 16)); // keys are never compressed
      assertThat(key.version()).isEqualTo(1);
      assertThat(key.rawLength()).isEqualTo(400);
    }
  }

  @Test
  void deletedClaimIsNotFoundOnlyWhenEveryStoreAnswered() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ClaimRef ref = cc.checkIn(random(10, 8));
      MemoryStores.named(a).clearObjects();
      // While store b cannot answer, the reader retries until the deadline: UNAVAILABLE.
      MemoryStores.named(b).failAlways(MemoryStore.Op.GET, Kind.UNAVAILABLE);
      try {
        cc.redeem(ref, cc.ticker().read() + Duration.ofMillis(300).toNanos()).join();
        throw new AssertionError("expected a failure");
      } catch (CompletionException e) {
        assertThat(((ClaimCheckFailure) e.getCause()).reason()).isEqualTo(Reason.UNAVAILABLE);
      }
      MemoryStores.named(b).clearFaults();
      assertThat(failure(cc, ref).reason()).isEqualTo(Reason.NOT_FOUND);
    }
  }

  @Test
  void corruptedClaimIsCorruptNeverWrongBytes() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      ClaimRef ref = cc.checkIn(random(64, 9));
      String key = KeyLayout.FLAT.key("acme", ref.packId().value());
      byte[] pack = MemoryStores.named(a).object(key);
      pack[(int) ref.offset() + 5] ^= 0x10;
      MemoryStores.named(a).clearObjects();
      MemoryStores.named(a).putIfAbsent(key, pack, Duration.ofSeconds(1)).join();
      assertThat(failure(cc, ref).reason()).isEqualTo(Reason.CORRUPT);
    }
  }

  @Test
  void warmFillsTheReaderSoTheRedeemAsksNoStore() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      byte[] value = random(1000, 10);
      ClaimRef ref = cc.checkIn(value);
      ((SharedClaimCheck) cc)
          .warm(ref, cc.ticker().read() + Duration.ofSeconds(5).toNanos())
          .join();
      MemoryStores.named(a).failAlways(MemoryStore.Op.GET, Kind.UNAVAILABLE);
      MemoryStores.named(b).failAlways(MemoryStore.Op.GET, Kind.UNAVAILABLE);
      byte[] first = redeem(cc, ref);
      assertThat(first).isEqualTo(value);
      first[0] ^= 1; // the caller's own copy, not the cached bytes
      assertThat(redeem(cc, ref)).isEqualTo(value);
    }
  }

  @Test
  void warmOfACorruptClaimFailsAndCachesNothing() {
    try (ClaimCheck cc = ClaimCheck.open(config())) {
      byte[] value = random(64, 11);
      ClaimRef ref = cc.checkIn(value);
      String key = KeyLayout.FLAT.key("acme", ref.packId().value());
      byte[] good = MemoryStores.named(a).object(key);
      byte[] bad = good.clone();
      bad[(int) ref.offset() + 5] ^= 0x10;
      MemoryStores.named(a).clearObjects();
      MemoryStores.named(a).putIfAbsent(key, bad, Duration.ofSeconds(1)).join();
      try {
        ((SharedClaimCheck) cc)
            .warm(ref, cc.ticker().read() + Duration.ofSeconds(5).toNanos())
            .join();
        throw new AssertionError("expected a failure");
      } catch (CompletionException e) {
        assertThat(((ClaimCheckFailure) e.getCause()).reason()).isEqualTo(Reason.CORRUPT);
      }
      MemoryStores.named(a).clearObjects();
      MemoryStores.named(a).putIfAbsent(key, good, Duration.ofSeconds(1)).join();
      assertThat(redeem(cc, ref)).isEqualTo(value);
    }
  }

  @Test
  void everyStoreDownFailsTheCheckInAsUnavailable() {
    Map<String, Object> m = config();
    m.put("claimcheck.store.op.deadline.ms", 300); // rounds are retried until the write deadline
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      MemoryStores.named(a).failAlways(MemoryStore.Op.PUT, Kind.UNAVAILABLE);
      MemoryStores.named(b).failAlways(MemoryStore.Op.PUT, Kind.THROTTLED);
      assertThatThrownBy(() -> cc.checkIn(random(10, 10)))
          .isInstanceOfSatisfying(
              ClaimCheckFailure.class,
              f -> {
                assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
                assertThat(f.getMessage()).contains("store 0").contains("store 1").contains("acme");
              });
    }
  }

  @Test
  void equalConfigsShareOneReader() {
    try (ClaimCheck one = ClaimCheck.open(config());
        ClaimCheck two = ClaimCheck.open(config())) {
      assertThat(ReaderAccess.of(one)).isSameAs(ReaderAccess.of(two));
      Map<String, Object> other = config();
      other.put("claimcheck.read.max.inflight", 3);
      try (ClaimCheck three = ClaimCheck.open(other)) {
        assertThat(ReaderAccess.of(three)).isNotSameAs(ReaderAccess.of(one));
      }
    }
  }
}
