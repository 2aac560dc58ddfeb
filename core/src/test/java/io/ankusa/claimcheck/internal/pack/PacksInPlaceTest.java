package io.ankusa.claimcheck.internal.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.ankusa.claimcheck.ref.Codec;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * {@link Packs#encode(List, SlotWriter)}: a pack whose claims are written into their slots in place
 * is byte for byte the pack {@link Packs#encode(List)} writes, and a writer that fills other than
 * its slot's length fails the encoding.
 */
class PacksInPlaceTest {

  private static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Property(tries = 100)
  void aPackWrittenInPlaceIsTheCopiedPack(
      @ForAll @Size(min = 1, max = 20) List<@IntRange(min = 1, max = 70_000) Integer> lengths,
      @ForAll long seed) {
    List<PackEntryInput> inputs = new ArrayList<>();
    List<PackSlot> slots = new ArrayList<>();
    for (int i = 0; i < lengths.size(); i++) {
      Codec codec = i % 2 == 0 ? Codec.NONE : Codec.LZ4;
      inputs.add(new PackEntryInput(bytes(lengths.get(i), seed + i), codec));
      slots.add(new PackSlot(lengths.get(i), codec));
    }
    EncodedPack copied = Packs.encode(inputs);
    List<Integer> calls = new ArrayList<>();
    EncodedPack inPlace =
        Packs.encode(
            slots,
            (i, out, at, length) -> {
              calls.add(i);
              byte[] stored = inputs.get(i).storedBytes();
              System.arraycopy(stored, 0, out, at, stored.length);
              return stored.length;
            });
    assertThat(inPlace).isEqualTo(copied);
    assertThat(calls)
        .as("once per claim, in index order")
        .isEqualTo(IntStream.range(0, lengths.size()).boxed().toList());
    assertThat(PackReader.parseIndex(inPlace.bytes())).isEqualTo(inPlace.entries());
    for (PackEntry entry : inPlace.entries()) {
      assertThat(PackReader.readClaim(inPlace.bytes(), entry))
          .isEqualTo(inputs.get(entry.index()).storedBytes());
    }
  }

  @Test
  void aWriterThatReportsAnotherLengthThanItsSlotFailsTheEncoding() {
    List<PackSlot> slots = List.of(new PackSlot(10, Codec.NONE), new PackSlot(5, Codec.NONE));
    for (int delta : new int[] {-1, 1}) {
      assertThatIllegalStateException()
          .isThrownBy(
              () -> Packs.encode(slots, (i, out, at, length) -> i == 1 ? length + delta : length))
          .withMessageContaining("claim 1")
          .withMessageContaining("slot of 5");
    }
  }

  @Test
  void emptySlotsAndCountsOutOfRangeAreRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> new PackSlot(0, Codec.NONE));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Packs.encode(List.of(), (i, out, at, length) -> length));
    List<PackSlot> tooMany = new ArrayList<>();
    for (int i = 0; i <= PackFormat.MAX_ENTRIES; i++) {
      tooMany.add(new PackSlot(1, Codec.NONE));
    }
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Packs.encode(tooMany, (i, out, at, length) -> length));
    List<PackSlot> huge =
        List.of(new PackSlot(Integer.MAX_VALUE - 20, Codec.NONE), new PackSlot(100, Codec.NONE));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Packs.encode(huge, (i, out, at, length) -> length))
        .withMessageContaining("largest array");
  }
}
