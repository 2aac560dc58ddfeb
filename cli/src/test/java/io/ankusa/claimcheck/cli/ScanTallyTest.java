package io.ankusa.claimcheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@code scan}'s memory stays bounded over any number of refs: it used to keep one outcome per
 * distinct ref, one future per ref and every problem record.
 */
class ScanTallyTest {

  @Test
  void aScanOfManyDistinctDanglingRefsKeepsOnlyTheFirstProblemsAndTheLastClaims() {
    ScanTally tally = new ScanTally(7, 100);
    for (int i = 0; i < 50_000; i++) {
      boolean[] started = {false};
      CompletableFuture<String> outcome = tally.outcome(ref(i), started);
      assertThat(started[0]).isTrue();
      outcome.complete("dangling");
      tally.count("refs");
      tally.count("dangling");
      tally.problem(Map.of("offset", i));
    }
    assertThat(tally.remembered()).isEqualTo(100);
    assertThat(tally.problems())
        .hasSize(7)
        .extracting(p -> p.get("offset"))
        .containsExactly(0, 1, 2, 3, 4, 5, 6);
    assertThat(tally.problemCount()).isEqualTo(50_000);
    assertThat(tally.get("refs")).isEqualTo(50_000);
    assertThat(tally.get("dangling")).isEqualTo(50_000);
    assertThat(tally.redeems()).isEqualTo(50_000);
  }

  @Test
  void aClaimNamedAgainWhileRememberedIsRedeemedOnceAndAgainOnceForgotten() {
    ScanTally tally = new ScanTally(0, 2);
    boolean[] first = {false};
    CompletableFuture<String> a = tally.outcome(ref(1), first);
    boolean[] again = {false};
    assertThat(tally.outcome(ref(1), again)).isSameAs(a);
    assertThat(again[0]).isFalse();
    tally.outcome(ref(2), new boolean[1]);
    tally.outcome(ref(3), new boolean[1]); // forgets ref 1, the least recently named
    boolean[] later = {false};
    assertThat(tally.outcome(ref(1), later)).isNotSameAs(a);
    assertThat(later[0]).isTrue();
    assertThat(tally.redeems()).isEqualTo(4);
    tally.problem(Map.of("offset", 1));
    assertThat(tally.problems()).isEmpty();
    assertThat(tally.problemCount()).isEqualTo(1);
  }

  private static ClaimRef ref(long pack) {
    return ClaimRef.of(Tenant.of("t"), new ClaimId(new PackId(pack), 0), 64, 10, 0, Codec.NONE);
  }
}
