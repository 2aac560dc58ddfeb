package io.ankusa.claimcheck.cli;

/** The CLI's exit codes, for scripts (also in {@code --help} and the module README). */
final class ExitCodes {

  /** Done, and (scan) every ref redeems. */
  static final int OK = 0;

  /** An unexpected error (a bug, or a failure without a better code). */
  static final int ERROR = 1;

  /** Bad command line (picocli's usage code). */
  static final int USAGE = 2;

  /** Bad config file or key. */
  static final int CONFIG = 3;

  /** scan / inspect --redeem: some refs dangle, are corrupt or could not be read. */
  static final int UNHEALTHY = 4;

  /** Could not read every partition or list every store, or the topics changed: nothing deleted. */
  static final int INCOMPLETE = 5;

  /**
   * gc --delete: some store's sweep stopped: a batch failed or another run held the lock (run
   * again).
   */
  static final int PARTIAL = 6;

  static final String FOOTER =
      "%nExit codes: 0 ok; 1 unexpected error; 2 usage; 3 bad config;"
          + " 4 unhealthy refs found (scan, inspect --redeem); 5 incomplete: a partition or store"
          + " could not be read or the topics changed, nothing deleted; 6 some deletes failed.";

  private ExitCodes() {}
}
