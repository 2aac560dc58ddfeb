package io.ankusa.claimcheck.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** Options every command shares, and small helpers; a picocli mixin. */
final class Common {

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Properties: bootstrap.servers, client security settings, claimcheck.* keys.")
  Path config;

  @Option(names = "--json", description = "Print one JSON object on stdout instead of a table.")
  boolean json;

  CliConfig load() {
    if (config == null) {
      throw new CliException(ExitCodes.USAGE, "--config FILE is required for this command");
    }
    return CliConfig.load(config);
  }

  /**
   * Parses {@code 90s}, {@code 10m}, {@code 1h}, {@code 2d}, {@code 500ms} or ISO-8601 {@code
   * PT1H}.
   */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.trim().toLowerCase(Locale.ROOT);
      try {
        if (v.startsWith("p")) {
          return Duration.parse(v.toUpperCase(Locale.ROOT));
        }
        if (v.endsWith("ms")) {
          return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        }
        long n = Long.parseLong(v.substring(0, v.length() - 1));
        return switch (v.charAt(v.length() - 1)) {
          case 's' -> Duration.ofSeconds(n);
          case 'm' -> Duration.ofMinutes(n);
          case 'h' -> Duration.ofHours(n);
          case 'd' -> Duration.ofDays(n);
          default -> throw new IllegalArgumentException();
        };
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "invalid duration '" + value + "': use e.g. 90s, 10m, 1h, 2d or PT1H");
      }
    }
  }
}
