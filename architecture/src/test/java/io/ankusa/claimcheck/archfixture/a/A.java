package io.ankusa.claimcheck.archfixture.a;

import io.ankusa.claimcheck.archfixture.b.B;

/** One end of a package cycle, for {@code RulesCanFailTest}. */
public final class A {
  B b;
}
