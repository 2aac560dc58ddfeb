package io.ankusa.claimcheck.connect.archfixture;

import com.azure.core.util.BinaryData;
import io.ankusa.claimcheck.collect.Collector;
import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.common.internals.Topic;
import software.amazon.awssdk.core.SdkBytes;

/** A Connect class that breaks every rule, for {@code RulesCanFailTest}; never run. */
public final class BadSmt {
  Bytes internals;
  ClaimCheckSerializer otherSurface;
  Collector collectorOutsideTheCli;
  MeterRegistry micrometer;
  Topic kafkaInternals;
  SdkBytes awsSdk;
  BinaryData azureSdk;
}
