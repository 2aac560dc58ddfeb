package io.ankusa.claimcheck.ref.archfixture;

import io.ankusa.claimcheck.internal.wire.Checksums;

/** A ref-model class that uses the engine's parts, for {@code RulesCanFailTest}; never run. */
public final class BadRef {
  Checksums checksums;
}
