package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.kafka.prefetch.PrefetchingConsumer;
import io.ankusa.claimcheck.kafka.producer.ClaimCheckProducer;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStore.Op;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClaimCheckClientSupplierTest {

  private final String name = "supplier-" + UUID.randomUUID();
  private final TopicPartition tp = new TopicPartition("in", 0);

  /** Hands out MockConsumers and records them, standing in for the broker-backed clients. */
  private class Mocks implements KafkaClientSupplier {
    final List<MockConsumer<byte[], byte[]>> consumers = new ArrayList<>();

    @Override
    public Admin getAdmin(Map<String, Object> config) {
      throw new UnsupportedOperationException("not needed here");
    }

    @Override
    public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
      return new MockProducer<>();
    }

    @Override
    public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
      return mock();
    }

    @Override
    public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
      return mock();
    }

    @Override
    public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
      return mock();
    }

    private MockConsumer<byte[], byte[]> mock() {
      MockConsumer<byte[], byte[]> c = new MockConsumer<>("earliest");
      consumers.add(c);
      return c;
    }
  }

  @AfterEach
  void forget() {
    MemoryStores.forget(name);
  }

  private StreamsConfig streamsConfig(Properties extra) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
    p.putAll(extra);
    return new StreamsConfig(p);
  }

  @Test
  void theMainConsumerPrefetchesWithTheTopLevelClaimCheckKeysStreamsPassesOn() {
    Properties p = new Properties();
    p.put("claimcheck.stores", "faulty:" + name); // top level, as the serde reads it
    p.put("consumer.claimcheck.read.deadline.ms", "5000"); // consumer override, prefix stripped
    Map<String, Object> mainConfig = streamsConfig(p).getMainConsumerConfigs("app", "c", 0);
    assertThat(mainConfig)
        .containsEntry("claimcheck.stores", "faulty:" + name)
        .containsEntry("claimcheck.read.deadline.ms", "5000");

    ClaimRef ref;
    try (ClaimCheck producer = ClaimCheck.open(Map.of("claimcheck.stores", "faulty:" + name))) {
      ref = producer.checkIn(new byte[] {1, 2, 3});
    }
    Mocks mocks = new Mocks();
    try (Consumer<byte[], byte[]> main =
        new ClaimCheckClientSupplier(mocks).getConsumer(mainConfig)) {
      assertThat(main).isInstanceOf(PrefetchingConsumer.class);
      MockConsumer<byte[], byte[]> mock = mocks.consumers.get(0);
      mock.assign(List.of(tp));
      mock.updateBeginningOffsets(Map.of(tp, 0L));
      RecordHeaders h = new RecordHeaders();
      ClaimCheckHeaders.mark(h, false);
      mock.addRecord(
          new ConsumerRecord<>(
              tp.topic(),
              0,
              0,
              0L,
              TimestampType.CREATE_TIME,
              -1,
              -1,
              null,
              RefCodec.encode(ref),
              h,
              Optional.empty()));
      assertThat(main.poll(Duration.ZERO).count()).isEqualTo(1);
      assertThat(MemoryStores.named(name).count(Op.GET)).isEqualTo(1);
      assertThat(((PrefetchingConsumer) main).awaitPrefetch(Duration.ofSeconds(10))).isTrue();
      assertThat(((PrefetchingConsumer) main).stats().succeeded()).isEqualTo(1);
    }
    assertThat(mocks.consumers.get(0).closed()).isTrue();
  }

  @Test
  void withoutClaimCheckStoresTheMainConsumerIsRefusedByKeyAndClosed() {
    Map<String, Object> mainConfig =
        streamsConfig(new Properties()).getMainConsumerConfigs("app", "c", 0);
    Mocks mocks = new Mocks();
    assertThatThrownBy(() -> new ClaimCheckClientSupplier(mocks).getConsumer(mainConfig))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.stores");
    assertThat(mocks.consumers.get(0).closed()).isTrue();
  }

  @Test
  void everyOtherClientIsTheWrappedSuppliersOwn() {
    Mocks mocks = new Mocks();
    ClaimCheckClientSupplier supplier = new ClaimCheckClientSupplier(mocks);
    assertThat(supplier.getRestoreConsumer(Map.of())).isSameAs(mocks.consumers.get(0));
    assertThat(supplier.getGlobalConsumer(Map.of())).isSameAs(mocks.consumers.get(1));
    assertThat(supplier.getProducer(Map.of("claimcheck.streams.pipelined", "false")))
        .isInstanceOf(MockProducer.class);
  }

  @Test
  void theProducerPipelinesCheckInsByDefaultWithTheKeysStreamsPassesOn() {
    Properties p = new Properties();
    p.put("claimcheck.stores", "faulty:" + name);
    p.put("producer.claimcheck.write.max.inflight", "4"); // producer override, prefix stripped
    Map<String, Object> producerConfig = streamsConfig(p).getProducerConfigs("app-1-producer");
    assertThat(producerConfig)
        .containsEntry("claimcheck.stores", "faulty:" + name)
        .containsEntry("claimcheck.write.max.inflight", "4");
    try (Producer<byte[], byte[]> producer =
        new ClaimCheckClientSupplier(new Mocks()).getProducer(producerConfig)) {
      assertThat(producer).isInstanceOf(ClaimCheckProducer.class);
    }
  }

  @Test
  void aBadProducerKeyIsRefusedByNameAndTheWrappedProducerClosed() {
    MockProducer<byte[], byte[]> inner = new MockProducer<>();
    Mocks mocks =
        new Mocks() {
          @Override
          public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
            return inner;
          }
        };
    assertThatThrownBy(
            () ->
                new ClaimCheckClientSupplier(mocks)
                    .getProducer(
                        Map.of(
                            "claimcheck.stores",
                            "faulty:" + name,
                            "claimcheck.write.max.inflight",
                            "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.write.max.inflight");
    assertThat(inner.closed()).isTrue();
  }
}
