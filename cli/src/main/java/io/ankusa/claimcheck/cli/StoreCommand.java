package io.ankusa.claimcheck.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code store}: commands on the stores themselves; only groups its subcommands. */
@Command(
    name = "store",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description = "Commands on the claim stores themselves.",
    subcommands = {StoreInitCommand.class})
final class StoreCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a store command: init");
  }
}
