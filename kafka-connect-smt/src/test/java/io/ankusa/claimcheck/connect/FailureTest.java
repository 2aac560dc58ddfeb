package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.kafka.ClaimCheckHeaders;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.memory.MemoryStore;
import io.ankusa.claimcheck.store.memory.MemoryStores;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each claim-check failure maps onto what a worker acts on: unavailable is retriable, the rest is
 * bad data for errors.tolerance and the dead-letter queue.
 */
class FailureTest {

  private static final int THRESHOLD = 100;
  private final String name = "smt-" + java.util.UUID.randomUUID();
  private final Map<String, Object> config = faulty(Wire.config(THRESHOLD), name);
  private final MemoryStore store = MemoryStores.named(name);
  private final CheckIn.Value<SourceRecord> checkIn = new CheckIn.Value<>();
  private final Redeem.Value<SinkRecord> redeem = new Redeem.Value<>();

  /** {@code config} on the fault-injecting store {@code name} (core's test-jar). */
  private static Map<String, Object> faulty(Map<String, Object> config, String name) {
    config.put("claimcheck.stores", "faulty:" + name);
    return config;
  }

  @AfterEach
  void close() {
    checkIn.close();
    redeem.close();
  }

  /** A record as Kafka holds it after CheckIn, and its ref. */
  private SinkRecord checkedIn(byte[] value) {
    checkIn.configure(config);
    SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));
    assertThat(out.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNotNull();
    return Wire.overKafka(out);
  }

  private static String claim(SinkRecord r) {
    ClaimRef ref = RefCodec.decode((byte[]) r.value());
    return ref.tenant().value() + "/" + ref.claimId();
  }

  @Test
  void aStoreThatCannotAnswerIsRetriableAndTheRecordIsReadableOnceItAnswers() {
    SinkRecord r = checkedIn(Wire.payload(500, 1));
    redeem.configure(config);
    store.failAlways(MemoryStore.Op.GET, StoreException.Kind.UNAVAILABLE);
    assertThatThrownBy(() -> redeem.apply(r))
        .isExactlyInstanceOf(RetriableException.class)
        .hasMessageContaining("UNAVAILABLE")
        .hasMessageContaining(claim(r))
        .hasMessageContaining("topic t partition 0 offset 42");

    store.clearFaults();
    assertThat((byte[]) redeem.apply(r).value()).isEqualTo(Wire.payload(500, 1));
  }

  @Test
  void aGoneClaimIsBadData() {
    SinkRecord r = checkedIn(Wire.payload(500, 2));
    redeem.configure(config);
    store.clearObjects();
    assertThatThrownBy(() -> redeem.apply(r))
        .isExactlyInstanceOf(DataException.class)
        .hasMessageContaining("NOT_FOUND")
        .hasMessageContaining(claim(r));
  }

  @Test
  void aCorruptClaimIsBadData() {
    SinkRecord r = checkedIn(Wire.payload(500, 3));
    redeem.configure(config);
    String key = store.keys().iterator().next();
    byte[] stored = store.object(key);
    stored[stored.length - 1] ^= 0x55;
    store.clearObjects();
    store.putIfAbsent(key, stored, Duration.ofSeconds(1)).join();
    assertThatThrownBy(() -> redeem.apply(r))
        .isExactlyInstanceOf(DataException.class)
        .hasMessageContaining("CORRUPT")
        .hasMessageContaining(claim(r));
  }

  @Test
  void aTenantOutsideTheAllowedOnesIsRefused() {
    SinkRecord r = checkedIn(Wire.payload(500, 4));
    redeem.configure(Wire.with(config, "claimcheck.tenants.allowed", "someone-else"));
    assertThatThrownBy(() -> redeem.apply(r))
        .isExactlyInstanceOf(DataException.class)
        .hasMessageContaining("REFUSED")
        .hasMessageContaining(claim(r));
  }

  @Test
  void aMarkedValueThatStartsWithTheMagicButIsNotARefIsRefused() {
    redeem.configure(config);
    byte[] damaged = {0x00, (byte) 0xF7, (byte) 0xAC, 0x6B, 1, 2, 3};
    SinkRecord r = Wire.sink(null, damaged, List.of());
    r.headers().addString(ClaimCheckHeaders.VALUE_MARKER, "1");
    assertThatThrownBy(() -> redeem.apply(r))
        .isExactlyInstanceOf(DataException.class)
        .hasMessageContaining("REFUSED")
        .hasMessageContaining("is marked as a claim-check ref")
        .hasMessageContaining("is not a readable ref")
        .hasMessageContaining("offset 42");
  }

  /** The bytes decide (issue 15): a marker beside a value without the ref magic is no ref. */
  @Test
  void aMarkedValueWithoutTheRefMagicIsConvertedAsItIs() {
    redeem.configure(config);
    SinkRecord r = Wire.sink(null, new byte[] {1, 2, 3}, List.of());
    r.headers().addString(ClaimCheckHeaders.VALUE_MARKER, "1");
    SinkRecord out = redeem.apply(r);
    assertThat((byte[]) out.value()).containsExactly(1, 2, 3);
    assertThat(out.headers().lastWithName(ClaimCheckHeaders.VALUE_MARKER)).isNull();
  }

  @Test
  void aRefOfAnUnknownVersionIsRetriableNeverBadData() {
    redeem.configure(config);
    byte[] frame = {0x00, (byte) 0xF7, (byte) 0xAC, 0x6B, 9, 0, 0, 0, 0, 0};
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(frame, 0, 6);
    java.nio.ByteBuffer.wrap(frame, 6, 4).putInt((int) crc.getValue());
    SinkRecord r = Wire.sink(null, frame, List.of()); // no marker: an intact frame is a ref
    assertThatThrownBy(() -> redeem.apply(r))
        .isExactlyInstanceOf(org.apache.kafka.connect.errors.RetriableException.class)
        .hasMessageContaining("UNAVAILABLE")
        .hasMessageContaining("upgrade the reader")
        .hasMessageContaining("version 9");
  }

  @Test
  void aCheckInNoStoreTakesIsRetriable() {
    checkIn.configure(config);
    store.failAlways(MemoryStore.Op.PUT, StoreException.Kind.UNAVAILABLE);
    assertThatThrownBy(
            () -> checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, Wire.payload(500, 5))))
        .isExactlyInstanceOf(RetriableException.class)
        .hasMessageContaining("UNAVAILABLE")
        .hasMessageContaining("topic t partition 0");
    assertThat(store.keys()).isEmpty();
  }

  @Test
  void aFieldThatIsNotBytesNamesTheConverterToUse() {
    redeem.configure(config);
    SinkRecord r = new SinkRecord("t", 0, null, null, Schema.STRING_SCHEMA, "text", 7L);
    assertThatThrownBy(() -> redeem.apply(r))
        .isExactlyInstanceOf(DataException.class)
        .hasMessageContaining("org.apache.kafka.connect.converters.ByteArrayConverter");
  }

  @Test
  void aValueTheConverterCannotTakeIsBadDataNamingTheConverter() {
    checkIn.configure(config); // ByteArrayConverter
    assertThatThrownBy(
            () -> checkIn.apply(Wire.source(null, null, Schema.STRING_SCHEMA, "not bytes")))
        .isExactlyInstanceOf(DataException.class)
        .hasMessageContaining("claimcheck.converter")
        .hasMessageContaining("ByteArrayConverter");
  }
}
