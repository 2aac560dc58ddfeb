package io.ankusa.claimcheck.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The operator CLI: {@code claimcheck <command> --config FILE}; each run is independent, so
 * concurrent runs in one JVM (tests) are safe when given their own streams.
 */
@Command(
    name = "claimcheck",
    mixinStandardHelpOptions = true,
    version = "claimcheck-cli 0.1.0",
    description =
        "Inspect refs, check a deployment's health, measure and collect its packs,"
            + " create file stores.",
    subcommands = {
      InspectCommand.class,
      ScanCommand.class,
      DuCommand.class,
      GcCommand.class,
      LifecycleCommand.class,
      StoreCommand.class,
      KeysCommand.class
    },
    footer = ExitCodes.FOOTER)
public final class ClaimCheckCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Runs the CLI and exits with its code. */
  public static void main(String[] args) {
    System.setProperty(
        "org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    System.exit(run(System.out, System.err, args));
  }

  /**
   * Runs the CLI with {@code args}, writing to {@code out} and {@code err}; returns the exit code.
   */
  public static int run(PrintStream out, PrintStream err, String... args) {
    CommandLine cl = new CommandLine(new ClaimCheckCli());
    PrintWriter o =
        new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true);
    PrintWriter e =
        new PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true);
    cl.setOut(o);
    cl.setErr(e);
    cl.setExecutionExceptionHandler(
        (ex, line, parsed) -> {
          if (ex instanceof CliException ce) {
            line.getErr().println("claimcheck: " + ce.getMessage());
            return ce.exitCode();
          }
          if (ex instanceof IllegalArgumentException iae) {
            line.getErr().println("claimcheck: " + iae.getMessage());
            return ExitCodes.USAGE;
          }
          line.getErr().println("claimcheck: unexpected error: " + ex);
          ex.printStackTrace(line.getErr());
          return ExitCodes.ERROR;
        });
    int code = cl.execute(args);
    o.flush();
    e.flush();
    return code;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a command");
  }
}
