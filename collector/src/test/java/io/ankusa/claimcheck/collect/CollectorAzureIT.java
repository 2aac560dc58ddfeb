package io.ankusa.claimcheck.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.azure.Azurite;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The collector over two stores, S3 (S3Proxy) and Azure Blob (Azurite, through the fault proxy),
 * packs spread over both by hash placement: it deletes exactly the unreferenced packs in each, the
 * rest still redeem, and an Azure store it cannot list makes it delete nothing.
 */
class CollectorAzureIT {

  private static final Clock LATER = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));

  private static String bucket;
  private static String container;
  private static FaultProxy azureProxy;
  private static Admin admin;
  private static KafkaProducer<byte[], byte[]> producer;

  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeAll
  static void start() {
    Azurite azurite = Azurite.shared();
    container = "gc-" + UUID.randomUUID().toString().substring(0, 8);
    azurite.createContainer(container);
    azureProxy = FaultProxy.start(azurite.server());
    bucket =
        EmbeddedS3.shared().createBucket("gc-az-" + UUID.randomUUID().toString().substring(0, 8));
    admin = Admin.create(kafka());
    Map<String, Object> p = new HashMap<>(kafka());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(p);
  }

  @AfterEach
  void closeAll() throws Exception {
    azureProxy.clear();
    azureProxy.up();
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  @AfterAll
  static void stop() {
    // Nothing was started when Azurite is absent (the assumption in start() skipped the class).
    if (producer != null) {
      producer.close();
    }
    if (admin != null) {
      admin.close();
    }
    if (azureProxy != null) {
      azureProxy.close();
    }
  }

  @Test
  void unreferencedPacksAreDeletedInBothStoresAndReferencedOnesStillRedeem() throws Exception {
    String tenant = "t" + UUID.randomUUID().toString().substring(0, 8);
    String topic = "orders-" + tenant;
    createTopic(topic);
    ClaimCheck cc = ClaimCheck.open(config(tenant));
    closing.add(cc);
    List<ClaimRef> kept = new ArrayList<>();
    List<ClaimRef> orphans = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      ClaimRef ref = cc.checkIn(("value " + i + " of " + tenant).getBytes());
      if (i % 2 == 0) {
        kept.add(ref);
        producer.send(new ProducerRecord<>(topic, 0, null, RefCodec.encode(ref))).get();
      } else {
        orphans.add(ref);
      }
    }
    List<ClaimStore> stores = stores(tenant);
    assertThat(listed(stores.get(0), tenant)).as("packs in S3").isPositive();
    assertThat(listed(stores.get(1), tenant)).as("packs in Azure").isPositive();

    GcReport report =
        Collector.create(kafka(), stores, LATER, Ticker.system())
            .run(
                GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic))).withDelete(true),
                Progress.NONE);
    assertThat(report.status()).as(report.message()).isEqualTo(GcReport.Status.OK);
    assertThat(
            report.deleted().stream().map(p -> p.packId().toString()).collect(Collectors.toSet()))
        .isEqualTo(packIds(orphans));
    assertThat(report.deleted().stream().map(StoredPack::store).collect(Collectors.toSet()))
        .as("deleted from both stores")
        .containsExactlyInAnyOrder(0, 1);
    assertThat(listed(stores.get(0), tenant) + listed(stores.get(1), tenant))
        .isEqualTo(kept.size());
    try (ClaimCheck reader = ClaimCheck.open(config(tenant))) {
      for (ClaimRef ref : kept) {
        assertThat(reader.redeemBlocking(ref, System.nanoTime() + TimeUnit.SECONDS.toNanos(20)))
            .isNotEmpty();
      }
    }
  }

  @Test
  void anAzureStoreThatCannotListMakesTheCollectorDeleteNothing() throws Exception {
    String tenant = "t" + UUID.randomUUID().toString().substring(0, 8);
    String topic = "orders-" + tenant;
    createTopic(topic);
    ClaimCheck cc = ClaimCheck.open(config(tenant));
    closing.add(cc);
    for (int i = 0; i < 12; i++) {
      cc.checkIn(("orphan " + i).getBytes()); // none referenced: all deletable
    }
    List<ClaimStore> stores = stores(tenant);
    long inS3 = listed(stores.get(0), tenant);
    azureProxy.down();
    GcReport report =
        Collector.create(kafka(), stores, LATER, Ticker.system())
            .run(
                GcOptions.of(tenant, Pattern.compile(Pattern.quote(topic))).withDelete(true),
                Progress.NONE);
    assertThat(report.status()).isEqualTo(GcReport.Status.ABORTED);
    assertThat(report.deleted()).isEmpty();
    assertThat(listed(stores.get(0), tenant)).isEqualTo(inS3);
  }

  private Map<String, Object> config(String tenant) {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    Map<String, Object> m =
        s3.claimCheckConfig("s3://" + bucket + ",abs://" + Azurite.ACCOUNT + "/" + container);
    m.put("claimcheck.placement", "hash");
    m.put("claimcheck.store.1.abs.endpoint", azureProxy.endpoint() + "/" + Azurite.ACCOUNT);
    m.put("claimcheck.store.1.abs.account.key", Azurite.KEY);
    m.put("claimcheck.store.op.deadline.ms", "5000");
    m.put("claimcheck.tenant", tenant);
    m.put("claimcheck.threshold.bytes", "1");
    return m;
  }

  private List<ClaimStore> stores(String tenant) {
    List<ClaimStore> stores = new ArrayList<>();
    for (StoreSpec spec : new ClaimCheckConfig(config(tenant)).stores()) {
      ClaimStore s = spec.open();
      closing.add(s);
      stores.add(s);
    }
    return stores;
  }

  private static long listed(ClaimStore store, String tenant) {
    return store.list(tenant + "/", null, Duration.ofSeconds(10)).join().objects().size();
  }

  private static Set<String> packIds(List<ClaimRef> refs) {
    return refs.stream().map(r -> r.packId().toString()).collect(Collectors.toSet());
  }

  private static Map<String, Object> kafka() {
    return Map.of("bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
  }

  private static void createTopic(String topic) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
  }
}
