package io.ankusa.claimcheck.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The README's demo, run as CI runs the tests, so the documented command keeps working and keeps
 * showing what it claims: store A goes down and comes back, and nothing is lost or altered.
 */
class DemoIT {

  @Test
  void everyValueComesBackByteIdenticalThroughAnOutageOfStoreA() throws Exception {
    FailoverDemo.Outcome o = Demo.run();

    assertThat(o.identical()).as("values identical at the consumer").isEqualTo(o.sent());
    assertThat(o.checkInsBBeforeOutage())
        .as("check-ins store B took while A was up (ordered)")
        .isZero();
    assertThat(o.failovers()).as("check-ins store B took while A was down").isPositive();
    assertThat(o.failedCheckIns()).as("check-ins no store took").isZero();
    assertThat(o.breakerOpened()).as("breaker of store A opened").isPositive();
    assertThat(o.breakerClosed()).as("breaker of store A closed again").isPositive();
    assertThat(o.checkInsAAfterRecovery())
        .as("check-ins store A took after it came back")
        .isPositive();
  }
}
