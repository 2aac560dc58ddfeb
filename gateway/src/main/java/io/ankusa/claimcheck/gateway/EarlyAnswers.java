package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.store.InlineArrivals;
import io.ankusa.claimcheck.store.InlineCalls;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Which whole-claim {@code GET}s are sent as their store read arrives ({@link EarlyAnswer}), and
 * the claims whose last such answer was aborted, each answered whole once so that a retry gets the
 * failure's status; thread-safe.
 *
 * <p>Sent early: a packed plaintext uncompressed claim larger than {@link EarlyAnswer#MIN_BYTES}
 * and of at most one inline read ({@link InlineLeads#MAX_BYTES}, within the read limit). Whether
 * its read is in fact led on the request's thread is the reader's and {@link InlineLeads}' call;
 * when it is not (a cache hit, a coalesced request, no lead free) nothing arrives early and the
 * answer is the whole redeem's. The remembered claims are bounded ({@value #REMEMBERED_MAX}; past
 * it the memory starts afresh, which costs at worst one more aborted answer per claim).
 */
final class EarlyAnswers {

  private static final int REMEMBERED_MAX = 1024;

  private final ClaimCheck cc;
  private final InlineLeads inline;
  private final long maxBytes;
  private final Set<ClaimRef> answerWhole = ConcurrentHashMap.newKeySet();

  EarlyAnswers(ClaimCheck cc, InlineLeads inline, long readMaxBytes) {
    this.cc = cc;
    this.inline = inline;
    this.maxBytes = Math.min(InlineLeads.MAX_BYTES, readMaxBytes);
  }

  /**
   * Whether a whole {@code GET} of {@code ref}'s claim of {@code size} bytes is answered early; a
   * remembered claim is answered whole this once (and forgotten).
   */
  boolean serves(ClaimRef ref, long size) {
    return !ref.isStreamed()
        && !ref.isEncrypted()
        && ref.codec() == Codec.NONE
        && size > EarlyAnswer.MIN_BYTES
        && size <= maxBytes
        && (answerWhole.isEmpty() || !answerWhole.remove(ref));
  }

  /** Redeems {@code ref} (deadline {@code deadline} on the ticker) and answers it early. */
  void answer(Exchange x, ClaimRef ref, String etag, int size, long deadlineMs, long deadline) {
    EarlyAnswer answer = new EarlyAnswer(x, ref, etag, size, () -> remember(ref));
    CompletableFuture<byte[]> f;
    try (InlineCalls.Scope s = InlineArrivals.watch(answer)) {
      f = inline.run(size, deadline, () -> cc.redeem(ref, deadline));
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.orTimeout(deadlineMs + ClaimAnswers.GRACE_MS, TimeUnit.MILLISECONDS)
        .whenComplete(answer::complete);
  }

  private void remember(ClaimRef ref) {
    if (answerWhole.size() >= REMEMBERED_MAX) {
      answerWhole.clear();
    }
    answerWhole.add(ref);
  }
}
