package io.ankusa.claimcheck.architecture;

import static com.tngtech.archunit.library.freeze.FreezingArchRule.freeze;

import org.junit.jupiter.api.Test;

/**
 * The surfaces use core's facade, not its internals, and keep to their layers. The first rule is
 * frozen ({@code src/test/resources/frozen}): the violations main had when it was written pass, a
 * new one fails, a fixed one leaves the store (commit the store's change).
 */
class InternalsStayInCoreTest {

  @Test
  void noClassOutsideCoreDependsOnInternals() {
    freeze(Rules.noInternalsOutsideCore())
        .check(Modules.of(Modules.SERDE, Modules.CONNECT, Modules.CLI, Modules.EXAMPLES));
  }

  @Test
  void surfacesToFacadeToInternals() {
    Rules.layers().check(Modules.of(Modules.CORE, Modules.SERDE, Modules.CONNECT, Modules.CLI));
  }
}
