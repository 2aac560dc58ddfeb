package io.ankusa.claimcheck.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import org.junit.jupiter.api.Test;

/** The README demo's Connect pipeline, run as CI runs the tests, so it keeps working. */
class ConnectDemoIT {

  @Test
  void everyValueReachesTheConsumerAndTheSinkByteIdentical() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedS3 s3 = EmbeddedS3.start()) {
      ConnectDemo.Outcome outcome = ConnectDemo.run(kafka, s3);

      assertThat(outcome.sent()).isEqualTo(DemoSourceConnector.SIZES.length);
      assertThat(outcome.consumed()).as("records read by the consumer").isEqualTo(outcome.sent());
      assertThat(outcome.sunk()).as("records handed to the sink task").isEqualTo(outcome.sent());
      assertThat(outcome.allIdentical()).isTrue();
    }
  }
}
