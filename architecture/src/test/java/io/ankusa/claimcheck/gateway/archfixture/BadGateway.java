package io.ankusa.claimcheck.gateway.archfixture;

import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.kafka.ClaimCheckSerializer;
import io.micrometer.core.instrument.MeterRegistry;

/** A gateway class that breaks the gateway's rules, for {@code RulesCanFailTest}; never run. */
public final class BadGateway {
  Bytes internals;
  ClaimCheckSerializer otherSurface;
  MeterRegistry micrometerOutsideMetrics;
}
