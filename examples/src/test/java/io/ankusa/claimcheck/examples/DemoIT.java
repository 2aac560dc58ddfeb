package io.ankusa.claimcheck.examples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The README's demo, run as CI runs the tests, so the documented command keeps working. */
class DemoIT {

  @Test
  void everyValueComesBackByteIdentical() throws Exception {
    assertThat(Demo.run()).isTrue();
  }
}
