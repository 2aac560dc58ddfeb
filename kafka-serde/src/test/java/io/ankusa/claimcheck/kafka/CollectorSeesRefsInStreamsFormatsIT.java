package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.collect.Collector;
import io.ankusa.claimcheck.collect.GcOptions;
import io.ankusa.claimcheck.collect.GcReport;
import io.ankusa.claimcheck.collect.Progress;
import io.ankusa.claimcheck.collect.StoredPack;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.kstream.TimeWindowedSerializer;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.internals.Change;
import org.apache.kafka.streams.kstream.internals.ChangedSerializer;
import org.apache.kafka.streams.kstream.internals.TimeWindow;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reproduction: a topic written the way Kafka Streams writes its repartition and
 * windowed topics — values by the real {@link ChangedSerializer} (new and old value, each through
 * our serializer), keys by the real {@link TimeWindowedSerializer} (our key bytes + the window
 * start), a ref forwarded in a header — and one pack no record names. {@code gc --grace 0s --force
 * --delete} deleted all 9 packs, 8 of them named by records; it must delete only the one.
 */
class CollectorSeesRefsInStreamsFormatsIT {

  private static FaultProxy proxy;
  private static String bucket;

  @BeforeAll
  static void servers() {
    bucket = Servers.s3().createBucket(Servers.unique("gc-streams"));
    proxy = FaultProxy.inFrontOf(Servers.s3());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  @Test
  void gcDeletesOnlyThePackNoRecordNamesWhenRefsLieInsideStreamsFormats() throws Exception {
    String topic = Servers.unique("app-groupby-repartition");
    Servers.kafka().createTopic(topic, 2);
    Map<String, Object> cc = new HashMap<>(Servers.oneStore(proxy, bucket));
    String tenant = Servers.unique("t");
    cc.put("claimcheck.tenant", tenant);
    cc.put("claimcheck.threshold.bytes", "64");
    cc.put("claimcheck.keys.enabled", "true");
    Map<ClaimRef, byte[]> live = new LinkedHashMap<>();
    ClaimRef orphan;

    try (ClaimCheckSerializer<byte[]> values =
            new ClaimCheckSerializer<>(new ByteArraySerializer());
        ClaimCheckSerializer<byte[]> keys = new ClaimCheckSerializer<>(new ByteArraySerializer());
        ClaimCheck direct = ClaimCheck.open(cc);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(plainProducer())) {
      values.configure(cc, false);
      keys.configure(cc, true);
      ChangedSerializer<byte[]> changes = new ChangedSerializer<>(recording(values, live));
      changes.configure(cc, false);
      TimeWindowedSerializer<byte[]> windows = new TimeWindowedSerializer<>(recording(keys, live));
      List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
      byte[] small = "s".getBytes();
      // repartition records of a KTable#groupBy: new and old value
      records.add(change(topic, changes, big(1), big(2), "k1".getBytes(), new RecordHeaders()));
      records.add(change(topic, changes, big(3), null, "k2".getBytes(), new RecordHeaders()));
      records.add(change(topic, changes, small, big(4), "k3".getBytes(), new RecordHeaders()));
      // windowed aggregation output: windowed claim-checked key, changed value
      Headers h = new RecordHeaders();
      byte[] windowedKey =
          windows.serialize(topic, h, new Windowed<>(big(5), new TimeWindow(1_000, 2_000)));
      records.add(change(topic, changes, big(6), small, windowedKey, h));
      Headers h2 = new RecordHeaders();
      records.add(
          new ProducerRecord<>(
              topic,
              null,
              windows.serialize(topic, h2, new Windowed<>(big(7), new TimeWindow(3_000, 4_000))),
              small,
              h2));
      // a ref a Streams app forwarded in a header of a record written with another serde
      byte[] forwarded = recording(values, live).serialize(topic, new RecordHeaders(), big(8));
      ProducerRecord<byte[], byte[]> fwd = new ProducerRecord<>(topic, null, null, small);
      fwd.headers().add("forwarded-value", forwarded);
      records.add(fwd);
      for (ProducerRecord<byte[], byte[]> r : records) {
        producer.send(r).get(30, TimeUnit.SECONDS);
      }
      orphan = direct.checkIn(big(9)); // checked in, its record never sent
    }
    assertThat(live).as("8 packs named by the records").hasSize(8);

    List<ClaimStore> stores = stores(cc);
    try {
      GcReport report =
          Collector.create(
                  Map.of("bootstrap.servers", Servers.kafka().bootstrapServers()),
                  stores,
                  // T0 2 s on: the sweep takes a listed time as up to 1 s later (S3 lists to the
                  // second), and the orphan was written just now
                  Clock.offset(Clock.systemUTC(), Duration.ofSeconds(2)),
                  Ticker.system())
              .run(
                  GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic)))
                      .withGrace(Duration.ZERO, true)
                      .withDelete(true),
                  Progress.NONE);
      assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
      assertThat(report.listedPacks()).isEqualTo(9);
      assertThat(report.deleted()).extracting(StoredPack::packId).containsExactly(orphan.packId());
      assertThat(report.malformedRefs()).isZero();
    } finally {
      stores.forEach(ClaimStore::close);
    }
    try (ClaimCheck cc2 = ClaimCheck.open(cc)) {
      for (Map.Entry<ClaimRef, byte[]> e : live.entrySet()) {
        long deadline = cc2.ticker().read() + TimeUnit.SECONDS.toNanos(30);
        assertThat(cc2.redeem(e.getKey(), deadline).get()).isEqualTo(e.getValue());
      }
    }
  }

  private static ProducerRecord<byte[], byte[]> change(
      String topic,
      ChangedSerializer<byte[]> changes,
      byte[] newValue,
      byte[] oldValue,
      byte[] key,
      Headers headers) {
    byte[] value = changes.serialize(topic, headers, new Change<>(newValue, oldValue));
    return new ProducerRecord<>(topic, null, key, value, headers);
  }

  /** Our serializer, noting each ref it writes and the bytes the ref stands for. */
  private static Serializer<byte[]> recording(Serializer<byte[]> ours, Map<ClaimRef, byte[]> refs) {
    return new Serializer<>() {
      @Override
      public byte[] serialize(String topic, byte[] data) {
        return serialize(topic, new RecordHeaders(), data);
      }

      @Override
      public byte[] serialize(String topic, Headers headers, byte[] data) {
        byte[] out = ours.serialize(topic, headers, data);
        if (out != null && RefCodec.isRef(out)) {
          refs.put(RefCodec.decode(out), data);
        }
        return out;
      }
    };
  }

  private static byte[] big(int seed) {
    return Servers.payload(1000 + seed, seed);
  }

  private static Map<String, Object> plainProducer() {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Servers.kafka().bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  private static List<ClaimStore> stores(Map<String, Object> cc) {
    List<ClaimStore> stores = new ArrayList<>();
    for (StoreSpec spec : new ClaimCheckConfig(cc).stores()) {
      stores.add(spec.open());
    }
    return stores;
  }
}
