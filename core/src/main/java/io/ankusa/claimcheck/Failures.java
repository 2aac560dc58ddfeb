package io.ankusa.claimcheck;

import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.store.StoreException;
import java.util.concurrent.CompletableFuture;

/**
 * Gives the writer's and the redeemer's {@link Failure}s their public type; stateless and
 * thread-safe. A {@link ClaimCheckFailure} keeps the reason, the message and the cause (a cause
 * that is itself a {@link Failure} is given its public type too); anything else passes unchanged.
 */
final class Failures {

  private Failures() {}

  static ClaimCheckFailure of(Failure f) {
    Throwable cause = f.getCause() instanceof Failure inner ? of(inner) : f.getCause();
    return new ClaimCheckFailure(
        ClaimCheckFailure.Reason.valueOf(f.reason().name()), f.detail(), cause);
  }

  /**
   * The future of {@code f}'s outcome with a {@link Failure} behind it given its public type;
   * already failed when {@code f} was.
   */
  static <T> CompletableFuture<T> of(CompletableFuture<T> f) {
    CompletableFuture<T> out = new CompletableFuture<>();
    f.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.complete(v);
          } else {
            out.completeExceptionally(publicOf(e));
          }
        });
    return out;
  }

  private static Throwable publicOf(Throwable e) {
    return StoreException.unwrap(e) instanceof Failure f ? of(f) : e;
  }
}
