package io.ankusa.claimcheck.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.compress.ZstdBomb;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntry;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.pack.PackReader;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile refs end to end through the engine and a memory store: each is answered with the right
 * final reason, without unbounded memory. The build runs this class in its own surefire execution
 * under {@code -Xmx64m} (core/pom.xml), where any allocation sized by a hostile field — the 2.2 GB
 * a zstd bomb inflates to, a 2 GiB ref length — would end in an {@code OutOfMemoryError}.
 */
class HostileRefsTest {

  /** The read limit here: what a 64 MiB heap can hold with room to spare. */
  private static final int LIMIT = 16 << 20;

  private final String store = "hostile-" + UUID.randomUUID();
  private MemoryStore memory;
  private ClaimCheck cc;

  @BeforeEach
  void open() {
    if (Boolean.getBoolean("claimcheck.test.smallHeap")) {
      assertThat(Runtime.getRuntime().maxMemory()).isLessThanOrEqualTo(64L << 20);
    }
    memory = MemoryStores.named(store);
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + store);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.tenants.allowed", "acme");
    m.put("claimcheck.read.max.bytes", LIMIT);
    m.put("claimcheck.cache.max.bytes", 0);
    cc = ClaimCheck.open(m);
  }

  @AfterEach
  void close() {
    cc.close();
    MemoryStores.forget(store);
  }

  @Test
  void anotherTenantsRefIsRefusedWithoutAStoreRequest() {
    ClaimRef ours = cc.checkIn(random(1000, 1));
    ClaimRef theirs =
        new ClaimRef(
            ours.version(),
            Tenant.of("evil"),
            ours.claimId(),
            ours.offset(),
            ours.length(),
            ours.checksum(),
            ours.codec(),
            ours.rawLength());
    ClaimCheckFailure f = failure(theirs);
    assertThat(f.reason()).isEqualTo(Reason.REFUSED);
    assertThat(f.getMessage()).contains("evil").contains("claimcheck.tenants.allowed");
    assertThat(memory.count(MemoryStore.Op.GET)).isZero();
  }

  @Test
  void aLengthPastTheLimitIsRefusedWithoutAStoreRequest() {
    ClaimRef ours = cc.checkIn(random(1000, 2));
    // The 45-byte ref that claimed a 2 GiB claim, and one just past the limit.
    for (int length : new int[] {Integer.MAX_VALUE, LIMIT + 1}) {
      ClaimRef big =
          ClaimRef.of(
              ours.tenant(), ours.claimId(), ours.offset(), length, ours.checksum(), Codec.NONE);
      ClaimCheckFailure f = failure(big);
      assertThat(f.reason()).isEqualTo(Reason.REFUSED);
      assertThat(f.getMessage()).contains("claimcheck.read.max.bytes").contains("" + length);
    }
    // A small stored claim whose recorded raw length is past the limit.
    ClaimRef inflating =
        ClaimRef.of(
            ours.tenant(),
            ours.claimId(),
            ours.offset(),
            1000,
            ours.checksum(),
            Codec.ZSTD,
            Integer.MAX_VALUE);
    assertThat(failure(inflating).reason()).isEqualTo(Reason.REFUSED);
    assertThat(memory.count(MemoryStore.Op.GET)).isZero();
  }

  @Test
  void anOffsetPastTheEndOfThePackIsCorrupt() {
    ClaimRef ours = cc.checkIn(random(1000, 3));
    long packLength = memory.object(key(ours)).length;
    for (long offset : new long[] {packLength, packLength + 4096, Long.MAX_VALUE - 1000}) {
      ClaimRef past =
          ClaimRef.of(
              ours.tenant(), ours.claimId(), offset, ours.length(), ours.checksum(), ours.codec());
      ClaimCheckFailure f = failure(past);
      assertThat(f.reason()).as("offset %d", offset).isEqualTo(Reason.CORRUPT);
    }
    assertThat(redeem(ours)).isEqualTo(random(1000, 3));
  }

  @Test
  void aRangeSpanningANeighboursBytesIsCorrupt() {
    List<ClaimRef> refs = cc.checkInAll(List.of(random(500, 4), random(500, 5)));
    ClaimRef first = refs.get(0);
    // Shifted into the neighbour, or stretched over it: the checksum is the first claim's.
    ClaimRef shifted =
        ClaimRef.of(
            first.tenant(),
            first.claimId(),
            first.offset() + 100,
            first.length(),
            first.checksum(),
            first.codec());
    ClaimRef stretched =
        ClaimRef.of(
            first.tenant(),
            first.claimId(),
            first.offset(),
            first.length() + refs.get(1).length(),
            first.checksum(),
            first.codec());
    for (ClaimRef hostile : List.of(shifted, stretched)) {
      ClaimCheckFailure f = failure(hostile);
      assertThat(f.reason()).isEqualTo(Reason.CORRUPT);
      assertThat(f.getMessage()).contains("CRC32C mismatch");
    }
    assertThat(redeem(first)).isEqualTo(random(500, 4));
    assertThat(redeem(refs.get(1))).isEqualTo(random(500, 5));
  }

  /** The 67 KB zstd claim that inflates to 2.2 GB, under a 64 MiB heap. */
  @Test
  void aDecompressionBombIsCorruptOrRefusedNeverAnOom() {
    byte[] bomb = ZstdBomb.frame(16_785);
    PackId id = new PackId(0x0b0b0b0b0b0b0b0bL);
    EncodedPack pack = Packs.encode(List.of(new PackEntryInput(bomb, Codec.ZSTD)));
    memory
        .putIfAbsent(KeyLayout.FLAT.key("acme", id.value()), pack.bytes(), Duration.ofSeconds(5))
        .join();
    PackEntry entry = pack.entries().get(0);
    Tenant acme = Tenant.of("acme");
    ClaimRef v1 = PackReader.toRef(acme, id, entry); // raw length unknown: bounded by the limit
    ClaimRef v2Lying = Packs.toRef(acme, id, entry, 70_000); // recorded raw length is a lie
    ClaimRef v2AtLimit = Packs.toRef(acme, id, entry, LIMIT);
    // Version 1 records no raw length: past this reader's limit it is refused (a reader with a
    // higher limit could redeem it), not declared corrupt.
    ClaimCheckFailure refused = failure(v1);
    assertThat(refused.reason()).isEqualTo(Reason.REFUSED);
    assertThat(refused.getMessage())
        .contains("inflates past " + LIMIT)
        .contains(ClaimCheckConfig.READ_MAX_BYTES);
    // Version 2 records one, and the bytes disagree with it: corrupt.
    for (ClaimRef ref : List.of(v2Lying, v2AtLimit)) {
      ClaimCheckFailure f = failure(ref);
      assertThat(f.reason()).as("raw length %d", ref.rawLength()).isEqualTo(Reason.CORRUPT);
      assertThat(f.getMessage()).contains("inflates past").contains("" + ref.rawLength());
    }
  }

  private ClaimCheckFailure failure(ClaimRef ref) {
    try {
      byte[] bytes = redeem(ref);
      throw new AssertionError("expected a failure, got " + bytes.length + " bytes");
    } catch (CompletionException e) {
      return (ClaimCheckFailure) e.getCause();
    }
  }

  private byte[] redeem(ClaimRef ref) {
    return cc.redeem(ref, cc.ticker().read() + Duration.ofSeconds(30).toNanos()).join();
  }

  private static String key(ClaimRef ref) {
    return KeyLayout.FLAT.key(ref.tenant().value(), ref.packId().value());
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }
}
