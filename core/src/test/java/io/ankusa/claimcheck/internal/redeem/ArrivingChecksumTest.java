package io.ankusa.claimcheck.internal.redeem;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.internal.wire.Checksums;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * The checksum summed while an answer arrives equals the one summed after its last byte, for the
 * array it watched only; every other array is summed whole; the watcher it wraps sees every arrival
 * first.
 */
class ArrivingChecksumTest {

  private final AtomicInteger wholes = new AtomicInteger();
  private final ToIntFunction<byte[]> whole =
      bytes -> {
        wholes.incrementAndGet();
        return Checksums.crc32c(bytes);
      };

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void anAnswerSummedAsItArrivesHasTheChecksumOfTheWholeAnswer() {
    byte[] answer = random(300_000, 1);
    ArrivingChecksum sum = new ArrivingChecksum(answer.length, null);
    sum.arrived(answer, 1);
    sum.arrived(answer, 8192);
    sum.arrived(answer, 8192); // nothing new
    sum.arrived(answer, 200_001);

    assertThat(sum.crc32c(answer, whole)).isEqualTo(Checksums.crc32c(answer));
    assertThat(wholes.get()).as("continued, not summed again").isZero();
  }

  @Test
  void theSumIsSpentOnceAndAnyOtherArrayIsSummedWhole() {
    byte[] answer = random(100_000, 2);
    ArrivingChecksum sum = new ArrivingChecksum(answer.length, null);
    sum.arrived(answer, 50_000);
    byte[] copy = answer.clone();
    copy[10] ^= 1; // a different array, whatever its bytes: summed on its own

    assertThat(sum.crc32c(copy, whole)).isEqualTo(Checksums.crc32c(copy));
    assertThat(sum.crc32c(answer, whole)).isEqualTo(Checksums.crc32c(answer));
    assertThat(sum.crc32c(answer, whole)).isEqualTo(Checksums.crc32c(answer));
    assertThat(wholes.get())
        .as("the copy, then the watched array once its sum was spent")
        .isEqualTo(2);
  }

  @Test
  void aNewAttemptStartsTheSumOverAndAnAnswerOfAnotherLengthIsNotWatched() {
    byte[] first = random(100_000, 3);
    byte[] second = random(100_000, 4);
    ArrivingChecksum sum = new ArrivingChecksum(100_000, null);
    sum.arrived(first, 70_000);
    sum.arrived(second, 10_000);
    sum.arrived(new byte[5], 5); // not an answer of this claim's length: ignored

    assertThat(sum.crc32c(second, whole)).isEqualTo(Checksums.crc32c(second));
    assertThat(wholes.get()).isZero();
  }

  @Test
  void bytesChangedBeforeTheirArrivalAreSummedAsTheyArrived() {
    byte[] answer = random(100_000, 5);
    int expected = Checksums.crc32c(answer);
    byte[] damaged = answer.clone();
    damaged[99_999] ^= (byte) 0x80; // in transit, before the arrival that reports it
    ArrivingChecksum sum = new ArrivingChecksum(answer.length, null);
    sum.arrived(damaged, 100_000);

    assertThat(sum.crc32c(damaged, whole)).isNotEqualTo(expected);
  }

  @Test
  void theWatcherItWrapsSeesEachArrivalAndOneThatFailsIsNotToldAgain() {
    byte[] answer = random(100_000, 6);
    List<Integer> seen = new ArrayList<>();
    ArrivingChecksum sum = new ArrivingChecksum(answer.length, (a, filled) -> seen.add(filled));
    sum.arrived(answer, 10);
    sum.arrived(answer, 20);
    assertThat(seen).containsExactly(10, 20);

    AtomicInteger calls = new AtomicInteger();
    ArrivingChecksum failing =
        new ArrivingChecksum(
            answer.length,
            (a, filled) -> {
              calls.incrementAndGet();
              throw new IllegalStateException("a hint that fails");
            });
    failing.arrived(answer, 10);
    failing.arrived(answer, 100_000);
    assertThat(calls.get()).isEqualTo(1);
    assertThat(failing.crc32c(answer, whole)).isEqualTo(Checksums.crc32c(answer));
    assertThat(wholes.get()).isZero();
  }
}
