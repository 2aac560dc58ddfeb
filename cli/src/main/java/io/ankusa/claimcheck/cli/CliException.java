package io.ankusa.claimcheck.cli;

/** A failure the CLI reports as one clear line and an exit code; immutable. */
final class CliException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
