package io.ankusa.claimcheck.collect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Fixtures;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The conservative mark's scanner: refs embedded anywhere in arbitrary bytes (key, value, header)
 * are all found, and bytes holding no ref, even near misses around the magic, yield none.
 */
class RecordRefsPropertiesTest {

  @Property
  void everyRefEmbeddedAtAnyOffsetOfRandomBytesIsFound(
      @ForAll("refs") List<ClaimRef> refs,
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 2) int where) {
    Random random = new Random(seed);
    byte[] data = embed(refs, random);
    ConsumerRecord<byte[], byte[]> r =
        switch (where) {
          case 0 -> new ConsumerRecord<>("t", 0, 0, data, noise(random, 40));
          case 1 -> new ConsumerRecord<>("t", 0, 0, noise(random, 40), data);
          default -> {
            ConsumerRecord<byte[], byte[]> h = new ConsumerRecord<>("t", 0, 0, null, null);
            h.headers().add("forwarded", data);
            yield h;
          }
        };
    Found found = visit(r);
    assertThat(found.refs).containsAll(refs);
    assertThat(found.malformed).isEmpty();
    String field =
        where == 0
            ? RefVisitor.KEY
            : where == 1 ? RefVisitor.VALUE : RefVisitor.header("forwarded");
    assertThat(found.fields).containsOnly(field);
  }

  @Property
  void randomBytesWithoutRefsYieldNone(
      @ForAll @Size(max = 2000) byte[] key, @ForAll @Size(max = 2000) byte[] value) {
    ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("t", 0, 0, key, value);
    r.headers().add("h", value);
    Found found = visit(r);
    assertThat(found.refs).isEmpty();
    assertThat(found.malformed).isEmpty();
  }

  /** Magic bytes, even a whole head, followed by garbage: not a ref (the CRC decides). */
  @Property
  void nearMissesAroundTheMagicYieldNone(
      @ForAll long seed, @ForAll @IntRange(min = 1, max = 20) int misses) {
    Random random = new Random(seed);
    List<byte[]> parts = new ArrayList<>();
    for (int i = 0; i < misses; i++) {
      parts.add(noise(random, random.nextInt(20)));
      byte[] frame = RefCodec.encode(Fixtures.ref(random));
      frame[RefCodec.MAGIC.length + 2 + random.nextInt(frame.length - RefCodec.MAGIC.length - 2)] ^=
          (byte) (1 + random.nextInt(255));
      parts.add(
          random.nextBoolean()
              ? frame
              : java.util.Arrays.copyOf(frame, 4 + random.nextInt(frame.length - 4)));
    }
    Found found = visit(new ConsumerRecord<>("t", 0, 0, null, concat(parts)));
    assertThat(found.refs).isEmpty();
    assertThat(found.malformed).isEmpty();
  }

  @Provide
  Arbitrary<List<ClaimRef>> refs() {
    return Arbitraries.longs()
        .map(seed -> Fixtures.ref(new Random(seed)))
        .list()
        .ofMinSize(1)
        .ofMaxSize(5);
  }

  /** The refs' frames in order, each after 0..63 random bytes, then 0..63 more. */
  private static byte[] embed(List<ClaimRef> refs, Random random) {
    List<byte[]> parts = new ArrayList<>();
    for (ClaimRef ref : refs) {
      parts.add(noise(random, random.nextInt(64)));
      parts.add(RefCodec.encode(ref));
    }
    parts.add(noise(random, random.nextInt(64)));
    return concat(parts);
  }

  static byte[] noise(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  static byte[] concat(List<byte[]> parts) {
    int n = parts.stream().mapToInt(p -> p.length).sum();
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  static Found visit(ConsumerRecord<byte[], byte[]> r) {
    Found found = new Found();
    RecordRefs.visit(r, found);
    return found;
  }

  /** What one visit found. */
  static final class Found implements RefVisitor {
    final List<ClaimRef> refs = new ArrayList<>();
    final List<String> fields = new ArrayList<>();
    final List<MalformedRefException> malformed = new ArrayList<>();

    @Override
    public void ref(String topic, int partition, long offset, String field, ClaimRef ref) {
      refs.add(ref);
      fields.add(field);
    }

    @Override
    public void malformed(
        String topic, int partition, long offset, String field, MalformedRefException e) {
      malformed.add(e);
      fields.add(field);
    }
  }
}
