package io.ankusa.claimcheck.internal.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link EarlyOpening}: segments open while the envelope arrives, and the plaintext is handed over
 * only for the very array watched, whole and verified; anything else falls back to {@link
 * Encryption#open}, which gives its own answer (never bytes from a tampered envelope).
 */
class EarlyOpeningTest {

  private final FakeTicker ticker = new FakeTicker();
  private final String kek = "counting:" + UUID.randomUUID();
  private final long far = Long.MAX_VALUE / 2;
  private final Encryption encryption = newEncryption();
  private final byte[] plain = new byte[200_000];
  private final byte[] envelope;
  private final ClaimRef ref;

  EarlyOpeningTest() {
    new Random(7).nextBytes(plain);
    envelope = encryption.sealer("acme", far).seal("acme", 9, 0, Codec.NONE.id(), plain);
    CRC32C crc = new CRC32C();
    crc.update(envelope);
    ref =
        ClaimRef.ofEncrypted(
            Tenant.of("acme"),
            new ClaimId(new PackId(9), 0),
            38,
            envelope.length,
            (int) crc.getValue(),
            Codec.NONE,
            plain.length);
  }

  /** An encryption under the test KEK, as a fresh process has it. */
  private Encryption newEncryption() {
    return new Encryption(
        new EncryptionSettings(
            kek,
            Map.of(),
            false,
            5_000_000,
            Duration.ofHours(1).toNanos(),
            100,
            Duration.ofHours(1).toNanos(),
            Map.of()),
        ticker,
        KekProviders.load(),
        0);
  }

  /** Feeds {@code source} into a fresh answer array in chunks, as a store's inline read would. */
  private byte[] arrive(EarlyOpening early, byte[] source, int upTo) {
    byte[] answer = new byte[source.length];
    for (int at = 0; at < upTo; ) {
      int n = Math.min(10_000, upTo - at);
      System.arraycopy(source, at, answer, at, n);
      at += n;
      early.arrived(answer, at);
    }
    return answer;
  }

  private static void fill(byte[] answer, byte[] source) {
    System.arraycopy(source, 0, answer, 0, source.length);
  }

  @Test
  void segmentsOpenWhileTheEnvelopeArrivesAndTheWholeWatchedArrayIsHandedOver() {
    EarlyOpening early = encryption.early(ref);
    byte[] answer = arrive(early, envelope, envelope.length / 2);
    int half = early.opened();
    assertThat(half).as("segments opened before the transfer ended").isBetween(2, 4);
    fill(answer, envelope);
    early.arrived(answer, answer.length);
    assertThat(early.opened()).isEqualTo(7); // 200,000 bytes in 32 KiB segments
    byte[] opened = early.finish(answer);
    assertThat(opened).isEqualTo(plain);
    assertThat(encryption.open(ref, answer, far, early).join()).isEqualTo(plain);
  }

  @Test
  void anotherArrayThanTheOneWatchedIsOpenedFromScratch() {
    EarlyOpening early = encryption.early(ref);
    byte[] watched = arrive(early, envelope, envelope.length);
    byte[] copy = watched.clone();
    assertThat(early.finish(copy)).isNull();
    assertThat(encryption.open(ref, copy, far, early).join()).isEqualTo(plain);
  }

  @Test
  void aNewAttemptStartsAfreshAndOnlyItsArrayIsHandedOver() {
    EarlyOpening early = encryption.early(ref);
    byte[] first = arrive(early, envelope, envelope.length / 2);
    byte[] second = arrive(early, envelope, envelope.length);
    assertThat(early.finish(first)).isNull();
    assertThat(early.finish(second)).isEqualTo(plain);
  }

  @Test
  void aTamperedSegmentStopsEarlyOpeningAndTheAnswerIsCorrupt() {
    byte[] tampered = envelope.clone();
    tampered[tampered.length / 2] ^= 1;
    EarlyOpening early = encryption.early(ref);
    byte[] answer = arrive(early, tampered, tampered.length);
    assertThat(early.finish(answer)).isNull();
    assertThatThrownBy(() -> encryption.open(ref, answer, far, early).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(Failure.class)
        .matches(e -> ((Failure) e).reason() == Reason.CORRUPT);
  }

  @Test
  void aCutEnvelopeIsNeverHandedOver() {
    EarlyOpening early = encryption.early(ref);
    byte[] answer = arrive(early, envelope, envelope.length - 5);
    assertThat(early.finish(answer)).as("the last segment did not arrive").isNull();
  }

  @Test
  void arrivalsReportedOnAnotherThreadAreIgnored() throws InterruptedException {
    EarlyOpening early = encryption.early(ref);
    byte[] answer = envelope.clone();
    Thread other = new Thread(() -> early.arrived(answer, answer.length));
    other.start();
    other.join();
    assertThat(early.opened()).isZero();
    assertThat(early.finish(answer)).as("never watched on its thread").isNull();
    assertThat(encryption.open(ref, answer, far, early).join()).isEqualTo(plain);
  }

  @Test
  void aReaderThatHasNotOpenedTheKekYetOpensAfterTheTransfer() {
    Encryption reader = newEncryption(); // another process: nothing opened, nothing cached
    EarlyOpening early = reader.early(ref);
    byte[] answer = arrive(early, envelope, envelope.length);
    assertThat(early.finish(answer)).isNull();
    assertThat(reader.open(ref, answer, far, early).join()).isEqualTo(plain);
    EarlyOpening next = reader.early(ref); // the KEK is open now
    assertThat(next.finish(arrive(next, envelope, envelope.length))).isEqualTo(plain);
  }

  @Test
  void plaintextAndOffReadersOpenNothingEarly() {
    assertThat(Encryption.off().early(ref)).isNull();
  }
}
