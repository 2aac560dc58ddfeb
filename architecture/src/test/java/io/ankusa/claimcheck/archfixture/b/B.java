package io.ankusa.claimcheck.archfixture.b;

import io.ankusa.claimcheck.archfixture.a.A;

/** The other end of a package cycle, for {@code RulesCanFailTest}. */
public final class B {
  A a;
}
