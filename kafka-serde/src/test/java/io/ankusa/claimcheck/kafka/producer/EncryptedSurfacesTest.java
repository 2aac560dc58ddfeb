package io.ankusa.claimcheck.kafka.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.kafka.ClaimCheckException;
import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.ankusa.claimcheck.kafka.DrivenTicker;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Envelope encryption from config alone on the Kafka surfaces (issue 19), over an in-memory store
 * with a {@code local:} key file: the serializer / deserializer and the pipelined {@link
 * ClaimCheckProducer} round-trip, every stored object holds none of a planted plaintext marker, and
 * a deserializer without the KEK fails naming it instead of returning ciphertext.
 */
class EncryptedSurfacesTest {

  private static final String TOPIC = "t";
  private static final byte[] MARKER = "PLANTED-MARKER-19".getBytes(StandardCharsets.US_ASCII);
  private static final Node NODE = new Node(0, "localhost", 9092);

  private final String store = "enc-surfaces-" + UUID.randomUUID();
  private final List<AutoCloseable> opened = new ArrayList<>();
  @TempDir Path dir;

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened) {
      if (c instanceof ClaimCheckProducer<?, ?> p) {
        p.close(Duration.ZERO);
      } else {
        c.close();
      }
    }
    MemoryStores.forget(store);
  }

  private Map<String, Object> config(boolean encrypted) throws Exception {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "faulty:" + store);
    m.put("claimcheck.tenant", "acme");
    m.put("claimcheck.threshold.bytes", 100);
    if (encrypted) {
      Path k = dir.resolve("kek.json");
      if (!Files.exists(k)) {
        Files.writeString(k, LocalKekProvider.newKeyFile());
      }
      m.put("claimcheck.encryption.kek", "local:" + k);
    }
    return m;
  }

  static byte[] value(int id) {
    byte[] v = new byte[20_000 + id];
    v[0] = (byte) id;
    for (int at = 1; at + MARKER.length <= v.length; at += 1000) {
      System.arraycopy(MARKER, 0, v, at, MARKER.length);
    }
    return v;
  }

  private void noPlaintextStored() {
    MemoryStore m = MemoryStores.named(store);
    assertThat(m.keys()).isNotEmpty();
    for (String k : m.keys()) {
      byte[] o = m.object(k);
      assertThat(new String(o, StandardCharsets.ISO_8859_1))
          .as("stored object " + k)
          .doesNotContain(new String(MARKER, StandardCharsets.ISO_8859_1));
    }
  }

  private ClaimCheckDeserializer<byte[]> deserializer(boolean encrypted) throws Exception {
    ClaimCheckDeserializer<byte[]> d = new ClaimCheckDeserializer<>();
    d.configure(config(encrypted), false);
    opened.add(d);
    return d;
  }

  @Test
  void theSerializerEncryptsAndOnlyADeserializerWithAKekDecrypts() throws Exception {
    ClaimCheckSerializer<byte[]> s = new ClaimCheckSerializer<>();
    s.configure(config(true), false);
    opened.add(s);
    Headers h = new RecordHeaders();
    byte[] ref = s.serialize(TOPIC, h, value(1));
    ClaimRef r = RefCodec.decode(ref);
    assertThat(r.isEncrypted()).isTrue();
    assertThat(h.lastHeader(ClaimCheckHeaders.VALUE_MARKER).value()).containsExactly('3');
    assertThat(deserializer(true).deserialize(TOPIC, h, ref)).isEqualTo(value(1));
    noPlaintextStored();
    ClaimCheckDeserializer<byte[]> without = deserializer(false);
    assertThatThrownBy(() -> without.deserialize(TOPIC, h, ref))
        .isInstanceOf(ClaimCheckException.class)
        .hasMessageContaining("REFUSED")
        .hasMessageContaining("encrypted under KEK local:" + dir.resolve("kek.json"));
  }

  @Test
  void thePipelinedProducerEncryptsEveryClaimOfItsPacks() throws Exception {
    List<PartitionInfo> parts =
        List.of(new PartitionInfo(TOPIC, 0, NODE, new Node[] {NODE}, new Node[] {NODE}));
    DrivenTicker ticker = new DrivenTicker();
    Cluster cluster = new Cluster("c", List.of(NODE), parts, Set.of(), Set.of());
    MockProducer<byte[], byte[]> mock =
        new MockProducer<>(
            cluster, true, null, new ByteArraySerializer(), new ByteArraySerializer());
    ClaimCheckProducer<String, byte[]> p =
        new ClaimCheckProducer<>(
            mock,
            config(true),
            new StringSerializer(),
            new ByteArraySerializer(),
            c -> io.ankusa.claimcheck.ClaimCheck.open(c, null, ticker),
            ticker,
            () -> 1_000L);
    opened.add(p);
    for (int i = 1; i <= 5; i++) {
      p.send(new ProducerRecord<>(TOPIC, 0, null, value(i)));
    }
    p.flush();
    assertThat(mock.history()).hasSize(5);
    ClaimCheckDeserializer<byte[]> d = deserializer(true);
    for (int i = 0; i < 5; i++) {
      ProducerRecord<byte[], byte[]> rec = mock.history().get(i);
      assertThat(RefCodec.decode(rec.value()).isEncrypted()).isTrue();
      assertThat(d.deserialize(TOPIC, rec.headers(), rec.value())).isEqualTo(value(i + 1));
    }
    noPlaintextStored();
  }
}
