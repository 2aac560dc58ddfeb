package io.ankusa.claimcheck.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A Streams producer's offer binds its stream thread through the thread's main consumer: matched by
 * Kafka Streams' client ids ({@code <thread>-producer}, {@code <thread>-consumer}), never for other
 * ids, cancelled when two producers offer under one id, gone when withdrawn.
 */
class PendingCheckInsOfferTest {

  private final String thread = "app-" + UUID.randomUUID() + "-StreamThread-1";

  /** Runs {@code r} on a fresh thread (no binding yet) and returns whether it ended up bound. */
  private static boolean onFreshThread(Runnable r) {
    CompletableFuture<Boolean> bound = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              r.run();
              bound.complete(PendingCheckIns.boundHere());
            });
    t.start();
    return bound.join();
  }

  @Test
  void theMainConsumersPollBindsItsThreadToTheOfferedProducer() {
    BooleanSupplier open = () -> true;
    PendingCheckIns.offer(thread + "-producer", open);
    try {
      assertThat(onFreshThread(() -> PendingCheckIns.bindOffered(thread + "-consumer"))).isTrue();
      assertThat(onFreshThread(() -> PendingCheckIns.bindOffered(thread + "-restore-consumer")))
          .isFalse();
      assertThat(onFreshThread(() -> PendingCheckIns.bindOffered("other-consumer"))).isFalse();
      assertThat(onFreshThread(() -> PendingCheckIns.bindOffered(null))).isFalse();
    } finally {
      PendingCheckIns.withdraw(thread + "-producer", open);
    }
    assertThat(onFreshThread(() -> PendingCheckIns.bindOffered(thread + "-consumer"))).isFalse();
  }

  @Test
  void twoProducersOfferingUnderOneIdBindNobody() {
    BooleanSupplier a = () -> true;
    BooleanSupplier b = () -> true;
    PendingCheckIns.offer(thread + "-producer", a);
    PendingCheckIns.offer(thread + "-producer", b);
    assertThat(onFreshThread(() -> PendingCheckIns.bindOffered(thread + "-consumer"))).isFalse();
  }

  @Test
  void aClosedProducersOfferBindsButTakesNothing() {
    boolean[] open = {true};
    BooleanSupplier s = () -> open[0];
    PendingCheckIns.offer(thread + "-producer", s);
    try {
      open[0] = false;
      assertThat(onFreshThread(() -> PendingCheckIns.bindOffered(thread + "-consumer"))).isFalse();
    } finally {
      PendingCheckIns.withdraw(thread + "-producer", s);
    }
  }

  @Test
  void anIdThatIsNotAStreamThreadsProducerOffersNothing() {
    BooleanSupplier open = () -> true;
    PendingCheckIns.offer("my-producer-client", open);
    PendingCheckIns.offer("-producer", open);
    assertThat(onFreshThread(() -> PendingCheckIns.bindOffered("my-producer-client-consumer")))
        .isFalse();
    assertThat(onFreshThread(() -> PendingCheckIns.bindOffered("-consumer"))).isFalse();
  }
}
