package io.ankusa.claimcheck.kafka.prefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.ReaderAccess;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStore.Op;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The prefetch window, pins and deadlines, on a driven clock against the in-memory store. */
class PrefetchWindowTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final String name = "window-" + UUID.randomUUID();
  private final TopicPartition tp = new TopicPartition("t", 0);
  private final MockConsumer<byte[], byte[]> mock = new MockConsumer<>("earliest");
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private MemoryStore store;
  private long offset;

  @BeforeEach
  void setUp() {
    store = MemoryStores.named(name);
    mock.assign(List.of(tp));
    mock.updateBeginningOffsets(Map.of(tp, 0L));
  }

  @AfterEach
  void tearDown() {
    MemoryStores.forget(name);
  }

  private Map<String, Object> config(long windowBytes) {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + name);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.prefetch.max.bytes", windowBytes);
    m.put("claimcheck.read.deadline.ms", 1_000L);
    return m;
  }

  /** A claim check on the test's clock: equal configs share one reader and cache. */
  private ClaimCheck open(Map<String, Object> m) {
    return ClaimCheck.open(new ClaimCheckConfig(m), null, now::get);
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private List<ClaimRef> checkInAndSend(Map<String, Object> m, int n, int size) {
    return checkInAndSend(m, n, size, false);
  }

  /** With {@code asV1}, each ref is sent as a version-1 ref (no recorded raw length). */
  private List<ClaimRef> checkInAndSend(Map<String, Object> m, int n, int size, boolean asV1) {
    List<ClaimRef> refs = new ArrayList<>();
    try (ClaimCheck producer = open(m)) {
      for (int i = 0; i < n; i++) {
        ClaimRef ref = producer.checkIn(random(size, i));
        if (asV1) {
          ref =
              new ClaimRef(
                  1,
                  ref.tenant(),
                  ref.claimId(),
                  ref.offset(),
                  ref.length(),
                  ref.checksum(),
                  ref.codec());
        }
        refs.add(ref);
        RecordHeaders h = new RecordHeaders();
        ClaimCheckHeaders.mark(h, false);
        mock.addRecord(
            new ConsumerRecord<>(
                tp.topic(),
                tp.partition(),
                offset++,
                0L,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                -1,
                -1,
                null,
                RefCodec.encode(ref),
                h,
                java.util.Optional.empty()));
      }
    }
    return refs;
  }

  private static byte[] redeem(ClaimCheck c, ClaimRef ref) {
    return c.redeem(ref, c.ticker().read() + WAIT.toNanos()).join();
  }

  @Test
  void fiveHundredRefsInOnePollArePrefetchedAWindowAheadOfTheReaderAndFetchedOnce() {
    Map<String, Object> m = config(20_000L); // 20 claims of 1000 bytes ahead
    List<ClaimRef> refs = checkInAndSend(m, 500, 1000);
    try (ClaimCheck deserializer = open(m);
        PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer)) {
      consumer.poll(Duration.ZERO);
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(store.count(Op.GET)).isEqualTo(20);
      for (int i = 0; i < refs.size(); i++) {
        assertThat(redeem(deserializer, refs.get(i))).isEqualTo(random(1000, i));
        assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
        assertThat(store.count(Op.GET)).isEqualTo(Math.min(500, 21 + i));
      }
      assertThat(store.count(Op.GET)).isEqualTo(refs.size());
      assertThat(consumer.stats()).isEqualTo(new PrefetchStats(500, 500, 0, 0, 0, 0));
      assertThat(ReaderAccess.of(deserializer).pinnedBytes()).isZero();
    }
  }

  @Test
  void aPrefetchedClaimOutlivesOtherTrafficThroughASmallCacheUntilItIsRead() {
    Map<String, Object> m = config(3_000L);
    m.put("claimcheck.cache.max.bytes", 5_000L);
    List<ClaimRef> refs = checkInAndSend(m, 3, 1000);
    List<ClaimRef> others = new ArrayList<>();
    try (ClaimCheck producer = open(m)) {
      for (int i = 0; i < 40; i++) {
        others.add(producer.checkIn(random(1000, 1000 + i)));
      }
    }
    try (ClaimCheck deserializer = open(m);
        PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer)) {
      consumer.poll(Duration.ZERO);
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      for (ClaimRef other : others) { // 40 KB through a 5 KB cache while the three wait
        redeem(deserializer, other);
      }
      long gets = store.count(Op.GET);
      for (int i = 0; i < refs.size(); i++) {
        assertThat(redeem(deserializer, refs.get(i))).isEqualTo(random(1000, i));
      }
      assertThat(store.count(Op.GET)).isEqualTo(gets); // all three from the cache
      assertThat(gets).isEqualTo(43);
    }
  }

  @Test
  void aPinNeverReadIsReleasedAtItsDeadlineAndWaitingRefsExpireUnfetched() {
    Map<String, Object> m = config(3_000L);
    checkInAndSend(m, 5, 1000);
    try (ClaimCheck deserializer = open(m);
        PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer)) {
      consumer.poll(Duration.ZERO);
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(ReaderAccess.of(deserializer).pinnedBytes()).isEqualTo(3_000);
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(999));
      consumer.poll(Duration.ZERO);
      assertThat(ReaderAccess.of(deserializer).pinnedBytes()).isEqualTo(3_000); // not yet
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
      consumer.poll(Duration.ZERO); // nothing polled: the poll still settles what is due
      assertThat(ReaderAccess.of(deserializer).pinnedBytes()).isZero();
      assertThat(store.count(Op.GET)).isEqualTo(3);
      assertThat(consumer.stats()).isEqualTo(new PrefetchStats(3, 3, 0, 2, 0, 3));
    }
  }

  @Test
  void aRefTheApplicationReadsBeforeItsTurnIsLeftToItAndNeverFetchedAgain() {
    Map<String, Object> m = config(1_000L); // one claim ahead
    List<ClaimRef> refs = checkInAndSend(m, 3, 1000);
    try (ClaimCheck deserializer = open(m);
        PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer)) {
      consumer.poll(Duration.ZERO);
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(redeem(deserializer, refs.get(2))).isEqualTo(random(1000, 2)); // out of order
      assertThat(redeem(deserializer, refs.get(0))).isEqualTo(random(1000, 0));
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(redeem(deserializer, refs.get(1))).isEqualTo(random(1000, 1));
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(store.count(Op.GET)).isEqualTo(3);
      assertThat(consumer.stats()).isEqualTo(new PrefetchStats(2, 2, 0, 1, 0, 0));
    }
  }

  /**
   * A compressed claim whose ref does not record its inflated length is budgeted as the whole
   * window, so such claims are prefetched one at a time. (Once refs record the raw length — {@code
   * Prefetcher.inflatedBytes} — this test must budget by it instead.)
   */
  @Test
  void aCompressedClaimIsBudgetedByTheRawLengthItsRefRecords() {
    Map<String, Object> m = config(2_500L); // two claims of 1000 inflated bytes
    m.put("claimcheck.compression.type", "gzip");
    List<ClaimRef> refs = checkInAndSend(m, 3, 1000);
    assertThat(refs).allSatisfy(r -> assertThat(r.rawLength()).isEqualTo(1000));
    try (ClaimCheck deserializer = open(m);
        PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer)) {
      consumer.poll(Duration.ZERO);
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(store.count(Op.GET)).isEqualTo(2);
      for (int i = 0; i < refs.size(); i++) {
        assertThat(redeem(deserializer, refs.get(i))).isEqualTo(random(1000, i));
        assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      }
      assertThat(store.count(Op.GET)).isEqualTo(3);
    }
  }

  @Test
  void aVersionOneCompressedClaimOfUnknownInflatedSizeFillsTheWindowAlone() {
    Map<String, Object> m = config(32L << 20);
    m.put("claimcheck.compression.type", "gzip");
    List<ClaimRef> refs = checkInAndSend(m, 3, 1000, true);
    try (ClaimCheck deserializer = open(m);
        PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer)) {
      consumer.poll(Duration.ZERO);
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(store.count(Op.GET)).isEqualTo(1);
      for (int i = 0; i < refs.size(); i++) {
        assertThat(redeem(deserializer, refs.get(i))).isEqualTo(random(1000, i));
        assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
        assertThat(store.count(Op.GET)).isEqualTo(Math.min(3, i + 2));
      }
    }
  }

  @Test
  void closeReleasesEveryPin() {
    Map<String, Object> m = config(2_000L);
    checkInAndSend(m, 4, 1000);
    try (ClaimCheck deserializer = open(m)) {
      PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer);
      consumer.poll(Duration.ZERO);
      assertThat(consumer.awaitPrefetch(WAIT)).isTrue();
      assertThat(ReaderAccess.of(deserializer).pinnedBytes()).isEqualTo(2_000);
      consumer.close();
      assertThat(ReaderAccess.of(deserializer).pinnedBytes()).isZero();
      assertThat(consumer.stats()).isEqualTo(new PrefetchStats(2, 2, 0, 2, 0, 2));
    }
  }

  @Test
  void windowZeroPrefetchesNothingAndANegativeWindowIsAConfigExceptionNamingTheKey() {
    Map<String, Object> m = config(0L);
    checkInAndSend(m, 2, 1000);
    try (ClaimCheck deserializer = open(m);
        PrefetchingConsumer consumer = new PrefetchingConsumer(mock, deserializer)) {
      consumer.poll(Duration.ZERO);
      assertThat(store.count(Op.GET)).isZero();
      assertThat(consumer.stats().skipped()).isEqualTo(2);
    }
    assertThatThrownBy(() -> new PrefetchingConsumer(mock, config(-1L)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.prefetch.max.bytes");
  }
}
