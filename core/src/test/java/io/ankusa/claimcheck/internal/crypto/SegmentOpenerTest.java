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
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link SegmentOpener} through {@link EarlyOpening}: segments handed to a helper in batches, the
 * owner opening the rest when it finishes, nothing opened after that, and the same answers as
 * opening after the transfer whichever thread decrypted (a helper's failure is the owner's fallback
 * to {@link Encryption#open}, never bytes).
 */
class SegmentOpenerTest {

  private final FakeTicker ticker = new FakeTicker();
  private final String kek = "counting:" + UUID.randomUUID();
  private final long far = Long.MAX_VALUE / 2;
  private final Queue<Runnable> tasks = new ArrayDeque<>();
  private final Encryption encryption = newEncryption(tasks::add);
  private final byte[] plain = new byte[500_000]; // 16 segments of 32 KiB
  private final byte[] envelope;
  private final ClaimRef ref;

  SegmentOpenerTest() {
    new Random(11).nextBytes(plain);
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

  private Encryption newEncryption(java.util.concurrent.Executor opening) {
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
        0,
        opening);
  }

  /**
   * Feeds {@code source[0, upTo)} into {@code answer} in chunks, as a store's inline read would.
   */
  private static void arrive(EarlyOpening early, byte[] answer, byte[] source, int from, int upTo) {
    for (int at = from; at < upTo; ) {
      int n = Math.min(10_000, upTo - at);
      System.arraycopy(source, at, answer, at, n);
      at += n;
      early.arrived(answer, at);
    }
  }

  /** Whether {@code opened} is the plaintext (compared quietly: a failure prints no megabytes). */
  private boolean same(byte[] opened) {
    return Arrays.equals(opened, plain);
  }

  private void runTasks() {
    for (Runnable r; (r = tasks.poll()) != null; ) {
      r.run();
    }
  }

  @Test
  void segmentsGoToTheHelperInBatchesAndTheOwnerOpensTheRest() {
    EarlyOpening early = encryption.early(ref);
    byte[] answer = new byte[envelope.length];
    arrive(early, answer, envelope, 0, envelope.length / 2);
    assertThat(early.opened()).as("the owner decrypts nothing while reading").isZero();
    assertThat(tasks).as("one hand-off in flight at a time").hasSize(1);
    runTasks();
    int half = early.opened();
    assertThat(half).as("the helper opened what had arrived").isBetween(6, 8);
    arrive(early, answer, envelope, envelope.length / 2, envelope.length);
    assertThat(tasks).hasSize(1);
    assertThat(early.opened()).isEqualTo(half);
    assertThat(same(early.finish(answer))).as("the owner opens what the helper has not").isTrue();
    assertThat(early.opened()).isEqualTo(16);
    runTasks(); // a task that runs after the owner finished decrypts nothing more
    assertThat(early.opened()).isEqualTo(16);
    assertThat(same(encryption.open(ref, answer, far, early).join())).isTrue();
  }

  @Test
  void aCutEnvelopeOpensNothingPastWhatArrived() {
    EarlyOpening early = encryption.early(ref);
    byte[] answer = new byte[envelope.length];
    arrive(early, answer, envelope, 0, envelope.length - 40_000);
    runTasks();
    assertThat(early.opened()).as("only whole segments that arrived").isBetween(13, 15);
    assertThat(early.finish(answer)).as("the missing bytes do not verify").isNull();
  }

  @Test
  void aSegmentTheHelperFindsTamperedEndsInTheOwnersOwnAnswerCorrupt() {
    byte[] tampered = envelope.clone();
    tampered[1_000] ^= 1; // segment 0
    EarlyOpening early = encryption.early(ref);
    byte[] answer = new byte[tampered.length];
    arrive(early, answer, tampered, 0, tampered.length);
    runTasks();
    assertThat(early.opened()).isZero();
    assertThat(early.finish(answer)).isNull();
    assertThatThrownBy(() -> encryption.open(ref, answer, far, early).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(Failure.class)
        .matches(e -> ((Failure) e).reason() == Reason.CORRUPT);
  }

  @Test
  void aTaskForAnAbandonedAttemptOpensNothing() {
    EarlyOpening early = encryption.early(ref);
    byte[] first = new byte[envelope.length];
    arrive(early, first, envelope, 0, envelope.length / 2);
    assertThat(tasks).hasSize(1);
    Runnable stale = tasks.poll();
    byte[] second = new byte[envelope.length];
    arrive(early, second, envelope, 0, envelope.length);
    stale.run(); // the first attempt's task, run late: its opener was closed
    assertThat(early.opened()).as("the new attempt's opener").isZero();
    assertThat(early.finish(first)).isNull();
    assertThat(same(early.finish(second))).isTrue();
  }

  @Test
  void aHelperThatRefusesWorkLeavesItAllToTheOwner() {
    Encryption refusing =
        newEncryption(
            r -> {
              throw new RejectedExecutionException("shut down");
            });
    refusing.sealer("acme", far); // opens the KEK and caches the data key, as a writer's would
    EarlyOpening early = refusing.early(ref);
    byte[] answer = new byte[envelope.length];
    arrive(early, answer, envelope, 0, envelope.length);
    assertThat(same(early.finish(answer))).isTrue();
  }

  @Test
  void aRealHelperThreadGivesTheSamePlaintextEveryTime() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Encryption parallel = newEncryption(pool);
      byte[] sealed = parallel.sealer("acme", far).seal("acme", 9, 0, Codec.NONE.id(), plain);
      assertThat(sealed).hasSameSizeAs(envelope);
      CRC32C crc = new CRC32C();
      crc.update(sealed);
      ClaimRef own =
          ClaimRef.ofEncrypted(
              Tenant.of("acme"),
              new ClaimId(new PackId(9), 0),
              38,
              sealed.length,
              (int) crc.getValue(),
              Codec.NONE,
              plain.length);
      for (int i = 0; i < 200; i++) {
        EarlyOpening early = parallel.early(own);
        byte[] answer = new byte[sealed.length];
        arrive(early, answer, sealed, 0, sealed.length);
        assertThat(same(early.finish(answer))).as("round " + i).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
