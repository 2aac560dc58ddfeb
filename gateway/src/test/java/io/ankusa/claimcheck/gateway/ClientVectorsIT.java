package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python and the Node client's own unit tests (the shared wire vectors of {@code
 * docs/wire-vectors.json}, and each gateway client against a stub server on 127.0.0.1), run as a
 * user of that language runs them, so the build fails when a client stops reading what core writes.
 * Each run must report exactly as many tests as its files define, all passed.
 *
 * <p>Skipped (a JUnit assumption, with the reason) only when {@code python3} or {@code node} is not
 * on the PATH.
 */
class ClientVectorsIT {

  static final Path PYTHON = Path.of("..", "clients", "python");
  static final Path NODE = Path.of("..", "clients", "node");
  static final List<String> NODE_TESTS = List.of("test/vectors.test.js", "test/gateway.test.js");

  @TempDir Path dir;

  @Test
  void thePythonClientsUnitTestsPass() throws Exception {
    assumeTrue(onPath("python3"), "python3 is not on the PATH: the Python client cannot run here");
    int defined = count(PYTHON.resolve("test_claimcheck.py"), "(?m)^    def test_");
    assertThat(defined).as("tests in test_claimcheck.py").isGreaterThan(20);
    String out = run(PYTHON, "python3", "-m", "unittest", "-v", "test_claimcheck");
    assertThat(out).as(out).contains("\nRan " + defined + " tests in ");
    assertThat(out).as(out).containsPattern("(?m)^OK$");
  }

  @Test
  void theNodeClientsUnitTestsPass() throws Exception {
    assumeTrue(onPath("node"), "node is not on the PATH: the Node client cannot run here");
    int defined = 0;
    for (String file : NODE_TESTS) {
      defined += count(NODE.resolve(file), "(?m)^test\\(");
    }
    assertThat(defined).as("tests in %s", NODE_TESTS).isGreaterThan(20);
    List<String> command = new ArrayList<>(List.of("node", "--test", "--test-reporter=tap"));
    command.addAll(NODE_TESTS);
    String out = run(NODE, command.toArray(String[]::new));
    assertThat(out).as(out).containsPattern("(?m)^# tests " + defined + "$");
    assertThat(out).as(out).containsPattern("(?m)^# pass " + defined + "$");
    assertThat(out).as(out).containsPattern("(?m)^# fail 0$");
  }

  private static int count(Path file, String regex) throws Exception {
    Matcher m = Pattern.compile(regex).matcher(Files.readString(file));
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private static boolean onPath(String command) {
    try {
      Process p = new ProcessBuilder(command, "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  private String run(Path workDir, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile());
    pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    Path log = dir.resolve("child-" + UUID.randomUUID() + ".log");
    Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    assertThat(done).as("finished in time: %s", out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
