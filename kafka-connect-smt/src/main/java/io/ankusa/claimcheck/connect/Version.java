package io.ankusa.claimcheck.connect;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of this plugin, as built; immutable. */
final class Version {

  private static final String VERSION = load();

  private Version() {}

  static String get() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = Version.class.getResourceAsStream("/claimcheck-connect-smt.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        return p.getProperty("version", "unknown");
      }
    } catch (IOException e) {
      // fall through: an unreadable version is not a reason to refuse to run
    }
    return "unknown";
  }
}
