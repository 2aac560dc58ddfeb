package io.ankusa.claimcheck.architecture;

import org.junit.jupiter.api.Test;

/**
 * The surfaces use core's facade, not its internals, and keep to their layers: no class of the
 * collector, the serde, Connect, the CLI or the examples depends on {@code
 * io.ankusa.claimcheck.internal..}.
 */
class InternalsStayInCoreTest {

  @Test
  void noClassOutsideCoreDependsOnInternals() {
    Rules.noInternalsOutsideCore()
        .check(
            Modules.of(
                Modules.COLLECTOR, Modules.SERDE, Modules.CONNECT, Modules.CLI, Modules.EXAMPLES));
  }

  @Test
  void surfacesToFacadeToInternals() {
    Rules.layers()
        .check(
            Modules.of(
                Modules.CORE, Modules.COLLECTOR, Modules.SERDE, Modules.CONNECT, Modules.CLI));
  }
}
