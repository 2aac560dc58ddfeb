package io.ankusa.claimcheck.ref;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.wire.Bytes;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Inline payloads must never be taken for refs: {@link RefCodec#isRef} on everything but refs. */
class RefDetectionTest {

  @Test
  void nullAndEmptyAreNotRefs() {
    assertThat(RefCodec.isRef(null)).isFalse();
    assertThat(RefCodec.isRef(new byte[0])).isFalse();
    assertThat(RefCodec.isRef(RefCodec.MAGIC.clone())).isFalse();
  }

  @Test
  void randomPayloadsOfManySizesAreNeverRefs() {
    Random random = new Random(2024);
    for (int i = 0; i < 100_000; i++) {
      int size =
          switch (i % 4) {
            case 0 -> random.nextInt(16);
            case 1 -> random.nextInt(RefCodec.MAX_LENGTH + 2);
            case 2 -> RefCodec.MIN_LENGTH + random.nextInt(80);
            default -> random.nextInt(4096);
          };
      byte[] payload = new byte[size];
      random.nextBytes(payload);
      assertThat(RefCodec.isRef(payload)).as("random payload #%d", i).isFalse();
    }
  }

  @Test
  void payloadsWithTheMagicAndAConsistentLengthButWrongCrcAreNotRefs() {
    Random random = new Random(99);
    for (int i = 0; i < 100_000; i++) {
      int bodyLength = random.nextInt(256);
      byte[] payload = new byte[RefCodec.FRAME_HEAD + bodyLength + RefCodec.FRAME_TAIL];
      random.nextBytes(payload);
      System.arraycopy(RefCodec.MAGIC, 0, payload, 0, RefCodec.MAGIC.length);
      payload[4] = 1;
      payload[5] = (byte) bodyLength;
      assertThat(RefCodec.isRef(payload)).as("magic-prefixed payload #%d", i).isFalse();
    }
  }

  @Test
  void aRefFollowedOrPrecededByMoreBytesIsNotARef() {
    Random random = new Random(5);
    for (int i = 0; i < 1000; i++) {
      byte[] ref = RefCodec.encode(Fixtures.ref(random));
      byte[] payload = new byte[ref.length + 1 + random.nextInt(100)];
      random.nextBytes(payload);
      boolean prefix = random.nextBoolean();
      System.arraycopy(ref, 0, payload, prefix ? payload.length - ref.length : 0, ref.length);
      assertThat(RefCodec.isRef(payload)).isFalse();
    }
  }

  @Test
  void structuredPayloadsAreNotRefs() {
    Random random = new Random(11);
    for (int i = 0; i < 2000; i++) {
      assertThat(RefCodec.isRef(json(random))).isFalse();
      assertThat(RefCodec.isRef(protobufLike(random))).isFalse();
      assertThat(RefCodec.isRef(avroSingleObject(random))).isFalse();
      assertThat(RefCodec.isRef(confluentFramed(random))).isFalse();
      byte[] text =
          ("line " + i + "\n").repeat(1 + random.nextInt(20)).getBytes(StandardCharsets.UTF_8);
      assertThat(RefCodec.isRef(text)).isFalse();
      assertThat(RefCodec.isRef(Arrays.copyOf(text, RefCodec.MIN_LENGTH + i % 70))).isFalse();
    }
    assertThat(RefCodec.isRef(new byte[78])).isFalse();
    byte[] ones = new byte[60];
    Arrays.fill(ones, (byte) 0xff);
    assertThat(RefCodec.isRef(ones)).isFalse();
  }

  private static byte[] json(Random random) {
    StringBuilder sb = new StringBuilder("{\"id\":").append(random.nextInt()).append(",\"tags\":[");
    for (int i = 0; i < random.nextInt(10); i++) {
      sb.append(i == 0 ? "" : ",")
          .append('"')
          .append(Long.toHexString(random.nextLong()))
          .append('"');
    }
    return sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Protobuf-like: field keys (tag << 3 | wire type), varints and length-delimited bytes. */
  private static byte[] protobufLike(Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int field = 1; field <= 1 + random.nextInt(8); field++) {
      if (random.nextBoolean()) {
        out.write(field << 3);
        varint(out, random.nextInt() & Integer.MAX_VALUE);
      } else {
        out.write((field << 3) | 2);
        byte[] value = new byte[random.nextInt(40)];
        random.nextBytes(value);
        varint(out, value.length);
        out.writeBytes(value);
      }
    }
    return out.toByteArray();
  }

  /** Avro single-object encoding: C3 01, an 8-byte schema fingerprint, then the datum. */
  private static byte[] avroSingleObject(Random random) {
    byte[] out = new byte[10 + random.nextInt(90)];
    random.nextBytes(out);
    out[0] = (byte) 0xC3;
    out[1] = 0x01;
    return out;
  }

  /** Confluent wire format: magic 0, a 4-byte schema id, then Avro/Protobuf/JSON data. */
  private static byte[] confluentFramed(Random random) {
    byte[] out = new byte[5 + random.nextInt(95)];
    random.nextBytes(out);
    out[0] = 0;
    Bytes.putInt(out, 1, random.nextInt(100_000));
    return out;
  }

  private static void varint(ByteArrayOutputStream out, int value) {
    while ((value & ~0x7f) != 0) {
      out.write((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write(value);
  }
}
