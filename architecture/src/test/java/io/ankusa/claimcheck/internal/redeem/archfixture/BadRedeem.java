package io.ankusa.claimcheck.internal.redeem.archfixture;

import io.ankusa.claimcheck.internal.write.CheckIns;

/** A redeemer class that uses the writer, for {@code RulesCanFailTest}; never run. */
public final class BadRedeem {
  CheckIns writer;
}
