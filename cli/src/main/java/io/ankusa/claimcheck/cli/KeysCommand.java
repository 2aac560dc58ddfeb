package io.ankusa.claimcheck.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code keys}: commands on encryption keys; only groups its subcommands. */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description = "Commands on envelope-encryption keys (claimcheck.encryption.kek).",
    subcommands = {KeysNewCommand.class})
final class KeysCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a keys command: new");
  }
}
