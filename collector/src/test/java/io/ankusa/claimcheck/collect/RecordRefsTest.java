package io.ankusa.claimcheck.collect;

import static io.ankusa.claimcheck.collect.RecordRefsPropertiesTest.visit;
import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Fixtures;
import io.ankusa.claimcheck.ref.MalformedRefException.Reason;
import io.ankusa.claimcheck.ref.RefCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** What the mark counts as a ref and as malformed, field by field. */
class RecordRefsTest {

  private static final ClaimRef REF = Fixtures.ref(new Random(1));
  private static final ClaimRef OTHER = Fixtures.ref(new Random(2));

  @Test
  void wholeFieldRefsInKeyAndValueAreFound() {
    Found found = visitBoth(RefCodec.encode(OTHER), RefCodec.encode(REF), true);
    assertThat(found.refs).containsExactly(OTHER, REF);
    assertThat(found.fields).containsExactly(RefVisitor.KEY, RefVisitor.VALUE);
  }

  @Test
  void refsInsideAnotherFormatAreFoundWithAndWithoutMarker() {
    byte[] inner = RefCodec.encode(REF);
    byte[] windowed = Arrays.copyOf(inner, inner.length + 12); // a windowed key: + ts + seq
    byte[] change =
        concat(
            new byte[] {0, 0, 0, (byte) inner.length},
            inner,
            RefCodec.encode(OTHER),
            new byte[] {1});
    for (boolean marked : new boolean[] {false, true}) {
      Found found = visitBoth(windowed, change, marked);
      assertThat(found.refs).containsExactly(REF, REF, OTHER);
      assertThat(found.malformed).isEmpty();
    }
  }

  @Test
  void aRefInAHeaderValueIsFound() {
    ConsumerRecord<byte[], byte[]> r =
        new ConsumerRecord<>("t", 0, 0, null, "inline".getBytes(StandardCharsets.UTF_8));
    r.headers().add("forwarded-ref", RefCodec.encode(REF));
    Found found = new Found(r);
    assertThat(found.refs).containsExactly(REF);
    assertThat(found.fields).containsExactly(RefVisitor.header("forwarded-ref"));
  }

  @Test
  void aMarkedFieldStartingWithTheMagicButDamagedIsMalformed() {
    byte[] damaged = RefCodec.encode(REF);
    damaged[damaged.length - 1] ^= 1;
    Found found = visitBoth(null, damaged, true);
    assertThat(found.refs).isEmpty();
    assertThat(found.malformed).extracting(e -> e.reason()).containsExactly(Reason.BAD_CRC);
    assertThat(visitBoth(null, damaged, false).malformed).as("unmarked: just bytes").isEmpty();
  }

  @Test
  void aMarkedFieldWithoutTheMagicIsInlineNotMalformed() {
    Found found = visitBoth(null, "small new value".getBytes(StandardCharsets.UTF_8), true);
    assertThat(found.refs).isEmpty();
    assertThat(found.malformed).isEmpty();
  }

  @Test
  void anIntactFrameOfAnUnknownVersionAnywhereIsMalformedAsNeedingANewerReader() {
    byte[] future = frame(9, new byte[] {1, 2, 3});
    Found found = visitBoth(null, concat(new byte[] {7, 7}, future, new byte[] {8}), false);
    assertThat(found.refs).isEmpty();
    assertThat(found.malformed)
        .singleElement()
        .satisfies(e -> assertThat(e.needsNewerReader()).isTrue());
  }

  private static Found visitBoth(byte[] key, byte[] value, boolean marked) {
    ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("t", 0, 0, key, value);
    if (marked) {
      r.headers().add(RefFields.KEY_MARKER, new byte[] {'1'});
      r.headers().add(RefFields.VALUE_MARKER, new byte[] {'1'});
    }
    return new Found(r);
  }

  private static byte[] frame(int version, byte[] body) {
    byte[] out = new byte[6 + body.length + 4];
    System.arraycopy(RefCodec.MAGIC, 0, out, 0, 4);
    out[4] = (byte) version;
    out[5] = (byte) body.length;
    System.arraycopy(body, 0, out, 6, body.length);
    CRC32 crc = new CRC32();
    crc.update(out, 0, out.length - 4);
    ByteBuffer.wrap(out).putInt(out.length - 4, (int) crc.getValue());
    return out;
  }

  private static byte[] concat(byte[]... parts) {
    return RecordRefsPropertiesTest.concat(Arrays.asList(parts));
  }

  /** The visit of one record. */
  private static final class Found {
    final java.util.List<ClaimRef> refs;
    final java.util.List<String> fields;
    final java.util.List<io.ankusa.claimcheck.ref.MalformedRefException> malformed;

    Found(ConsumerRecord<byte[], byte[]> r) {
      RecordRefsPropertiesTest.Found f = visit(r);
      refs = f.refs;
      fields = f.fields;
      malformed = f.malformed;
    }
  }
}
