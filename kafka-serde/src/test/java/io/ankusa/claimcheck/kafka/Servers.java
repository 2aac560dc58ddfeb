package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Config and data helpers for the kafka-serde ITs: real broker, real S3 server, fault proxies. */
public final class Servers {

  private Servers() {}

  public static EmbeddedKafka kafka() {
    return EmbeddedKafka.shared();
  }

  public static EmbeddedS3 s3() {
    return EmbeddedS3.shared();
  }

  public static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** One S3 store (bucket {@code bucket}) reached through {@code proxy}. */
  public static Map<String, Object> oneStore(FaultProxy proxy, String bucket) {
    Map<String, Object> m = credentials();
    m.put("claimcheck.stores", "s3://" + bucket);
    m.put("claimcheck.s3.endpoint", proxy.endpoint().toString());
    return m;
  }

  /** Two S3 stores, each through its own proxy; store 0 is home. */
  public static Map<String, Object> twoStores(
      FaultProxy a, String bucketA, FaultProxy b, String bucketB) {
    Map<String, Object> m = credentials();
    m.put("claimcheck.stores", "s3://" + bucketA + ",s3://" + bucketB);
    m.put("claimcheck.store.0.s3.endpoint", a.endpoint().toString());
    m.put("claimcheck.store.1.s3.endpoint", b.endpoint().toString());
    return m;
  }

  private static Map<String, Object> credentials() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.s3.region", s3().region());
    m.put("claimcheck.s3.path.style.access", "true");
    m.put("claimcheck.s3.access.key.id", s3().accessKey());
    m.put("claimcheck.s3.secret.access.key", s3().secretKey());
    m.put("claimcheck.tenant", "it");
    return m;
  }

  /** A plain producer config: String keys, claim-checked byte[] values, set by class name. */
  public static Map<String, Object> producer(Map<String, Object> claimcheck) {
    Map<String, Object> m = new HashMap<>(claimcheck);
    m.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers());
    m.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    m.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ClaimCheckSerializer.class.getName());
    m.put(ProducerConfig.ACKS_CONFIG, "all");
    m.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    return m;
  }

  /** A plain consumer config: String keys, claim-checked byte[] values, manual commits. */
  public static Map<String, Object> consumer(Map<String, Object> claimcheck, String group) {
    Map<String, Object> m = new HashMap<>(claimcheck);
    m.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers());
    m.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    m.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    m.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ClaimCheckDeserializer.class.getName());
    m.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    m.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    return m;
  }

  /** Polls until {@code n} records arrived or {@code timeout} passed. */
  public static <K, V> List<ConsumerRecord<K, V>> pollAll(
      KafkaConsumer<K, V> consumer, int n, Duration timeout) {
    List<ConsumerRecord<K, V>> out = new ArrayList<>();
    long end = System.nanoTime() + timeout.toNanos();
    while (out.size() < n && System.nanoTime() < end) {
      consumer.poll(Duration.ofMillis(200)).forEach(out::add);
    }
    return out;
  }

  /** Deterministic bytes of {@code size} for {@code seed}. */
  /**
   * How many PUT requests one uncompressed check-in of a {@code valueSize}-byte value makes with
   * the default S3 settings: one, or one per part once the one-claim pack (value + 42 bytes of
   * header and index) reaches the multipart threshold.
   */
  public static int putRequests(int valueSize) {
    long pack = valueSize + 42L;
    if (pack
        < (int)
            io.ankusa.claimcheck.config.ClaimCheckConfig.CONFIG_DEF
                .defaultValues()
                .get("claimcheck.s3.multipart.threshold.bytes")) {
      return 1;
    }
    int part =
        (int)
            io.ankusa.claimcheck.config.ClaimCheckConfig.CONFIG_DEF
                .defaultValues()
                .get("claimcheck.s3.multipart.part.bytes");
    return (int) ((pack + part - 1) / part);
  }

  public static byte[] payload(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }
}
