package io.ankusa.claimcheck.internal.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.compress.Compressor;
import io.ankusa.claimcheck.ref.Codec;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Fuzzes the streamed decoders (the zstd push decoder and the plain one): whatever the stored bytes
 * and however they are cut into chunks, a decoder answers raw pieces never past the raw length, or
 * a typed {@link Decoder.BadStream}; never another exception. A valid frame cut anywhere decodes to
 * exactly its bytes.
 */
class StreamDecoderPropertiesTest {

  @Property
  void arbitraryStoredBytesInArbitraryChunksDecodeToPiecesWithinTheRawLengthOrABadStream(
      @ForAll @Size(max = 3000) byte[] stored,
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 1, max = 700) Integer> cuts,
      @ForAll @IntRange(min = 0, max = 100_000) int rawLength,
      @ForAll boolean zstd) {
    Outcome o = decode(zstd ? Codec.ZSTD : Codec.NONE, stored, cuts, rawLength, 256);
    assertThat(o.raw.length).isLessThanOrEqualTo(rawLength);
    if (o.bad == null) {
      assertThat(o.raw.length).isEqualTo(rawLength);
    }
  }

  @Property
  void aValidFrameInArbitraryChunksDecodesToItsBytes(
      @ForAll @Size(max = 20_000) byte[] raw,
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 1, max = 5000) Integer> cuts,
      @ForAll @IntRange(min = 1, max = 4096) int piece) {
    byte[] stored = Compressor.compress(Codec.ZSTD, raw);
    Outcome o = decode(Codec.ZSTD, stored, cuts, raw.length, piece);
    assertThat(o.bad).isNull();
    assertThat(o.raw).isEqualTo(raw);
  }

  @Property
  void aValidFrameWithBytesAfterItOrCutShortIsABadStream(
      @ForAll @Size(min = 1, max = 5000) byte[] raw, @ForAll boolean trailing) {
    byte[] frame = Compressor.compress(Codec.ZSTD, raw);
    byte[] stored =
        trailing ? Arrays.copyOf(frame, frame.length + 1) : Arrays.copyOf(frame, frame.length - 1);
    Outcome o = decode(Codec.ZSTD, stored, List.of(1000), raw.length, 512);
    assertThat(o.bad).isNotNull();
  }

  @Property
  void aFrameInflatingPastTheRawLengthItsRefRecordsIsABadStream(
      @ForAll @Size(min = 2, max = 5000) byte[] raw) {
    byte[] stored = Compressor.compress(Codec.ZSTD, raw);
    Outcome o = decode(Codec.ZSTD, stored, List.of(777), raw.length - 1, 100);
    assertThat(o.bad).isNotNull();
    assertThat(o.raw.length).isLessThan(raw.length);
  }

  private record Outcome(byte[] raw, Decoder.BadStream bad) {}

  /** Feeds {@code stored} in chunks cut by {@code cuts} (cycled) and collects what comes out. */
  private static Outcome decode(
      Codec codec, byte[] stored, List<Integer> cuts, long rawLength, int piece) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (Decoder d = Decoder.of(codec, rawLength, piece)) {
      int at = 0;
      int i = 0;
      while (at < stored.length) {
        int n = Math.min(cuts.get(i++ % cuts.size()), stored.length - at);
        drain(d, out);
        d.feed(Arrays.copyOfRange(stored, at, at + n));
        at += n;
      }
      drain(d, out);
      d.finish();
      return new Outcome(out.toByteArray(), null);
    } catch (Decoder.BadStream e) {
      assertThat(e.getMessage()).isNotBlank();
      return new Outcome(out.toByteArray(), e);
    }
  }

  private static void drain(Decoder d, ByteArrayOutputStream out) {
    for (ByteBuffer b; (b = d.drain()) != null; ) {
      assertThat(b.remaining()).isPositive();
      byte[] bytes = new byte[b.remaining()];
      b.get(bytes);
      out.write(bytes, 0, bytes.length);
    }
  }
}
