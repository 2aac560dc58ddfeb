package io.ankusa.claimcheck.architecture;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** No module's packages import each other in a circle (core included, with no exception). */
class PackageCyclesPerModuleTest {

  @ParameterizedTest
  @EnumSource(Modules.class)
  void packagesFormNoCycle(Modules module) {
    Rules.noPackageCycles().check(module.classes());
  }
}
