package io.ankusa.claimcheck.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's demo, run as CI runs the tests, so the documented command keeps working and keeps
 * showing what it claims: store A goes down and comes back, and nothing is lost or altered. Then
 * what the README says to do with the demo's {@code --serve} hand-off: the gateway jar started with
 * the printed command against the demo's servers, and the printed {@code curl} of a ref the demo
 * produced (sent here with Java's HTTP client, as curl sends it), byte for byte.
 */
class DemoIT {

  /** The command the README gives, from the repository's root. */
  static final String README_COMMAND =
      "java -jar gateway/target/claimcheck-gateway.jar --config"
          + " examples/target/demo-gateway/gateway.properties";

  static final Pattern CURL =
      Pattern.compile(
          "curl -s -H 'Authorization: Bearer (\\S+)' http://127\\.0\\.0\\.1:8080(/v1/claims/[A-Za-z0-9_-]+)"
              + " \\| cmp - (\\S+) && echo identical");

  @Test
  void everyValueComesBackByteIdenticalThroughAnOutageOfStoreAAndThroughTheGatewayJar()
      throws Exception {
    List<byte[]> redeemed = new ArrayList<>();
    FailoverDemo.Outcome o =
        Demo.run(Path.of("target", "demo-gateway"), h -> redeemed.add(throughTheJar(h)));

    assertThat(o.identical()).as("values identical at the consumer").isEqualTo(o.sent());
    assertThat(o.checkInsBBeforeOutage())
        .as("check-ins store B took while A was up (ordered)")
        .isZero();
    assertThat(o.failovers()).as("check-ins store B took while A was down").isPositive();
    assertThat(o.failedCheckIns()).as("check-ins no store took").isZero();
    assertThat(o.breakerOpened()).as("breaker of store A opened").isPositive();
    assertThat(o.breakerClosed()).as("breaker of store A closed again").isPositive();
    assertThat(o.checkInsAAfterRecovery())
        .as("check-ins store A took after it came back")
        .isPositive();
    assertThat(redeemed).hasSize(1);
    assertThat(redeemed.get(0))
        .as("the demo's value, redeemed through the gateway jar")
        .isEqualTo(FailoverDemo.values().get(GatewayDemo.VALUE));
  }

  @Test
  void theReadmeGivesTheCommandTheDemoPrints() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    assertThat(readme).contains(README_COMMAND).contains("-Dexec.args=--serve");
  }

  /**
   * Starts the jar as the printed command does (from the repository's root; the properties file
   * named by its absolute path, and {@code gateway.listen=127.0.0.1:0}, since 8080 may be taken on
   * a build machine), then GETs the printed curl's path with its header; returns the body.
   */
  private static byte[] throughTheJar(GatewayDemo.Handoff h) throws Exception {
    assertThat(h.command())
        .startsWith("java -jar gateway/target/claimcheck-gateway.jar --config ")
        .endsWith("gateway.properties");
    Path root = Path.of("..");
    Path jar = root.resolve("gateway/target/claimcheck-gateway.jar");
    assertThat(jar).as("built by the reactor before this module (a test dependency)").exists();
    Matcher curl = CURL.matcher(h.curl());
    assertThat(curl.matches()).as(h.curl()).isTrue();
    assertThat(Path.of(curl.group(3))).isEqualTo(h.valueFile());

    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    List<String> args = Arrays.asList(h.command().split(" "));
    command.addAll(args.subList(1, args.size() - 1));
    command.add(h.properties().toAbsolutePath().toString());
    command.add("gateway.listen=127.0.0.1:0");
    Path stderr = Files.createTempFile("demo-gateway", ".stderr");
    Process p =
        new ProcessBuilder(command).directory(root.toFile()).redirectError(stderr.toFile()).start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      Pattern listening = Pattern.compile("gateway listening on (http://127\\.0\\.0\\.1:\\d+)");
      URI uri = null;
      String line;
      while ((line = out.readLine()) != null) {
        Matcher m = listening.matcher(line);
        if (m.matches()) {
          uri = URI.create(m.group(1));
          break;
        }
      }
      assertThat(uri).as("the jar started: %s", Files.readString(stderr)).isNotNull();
      HttpResponse<byte[]> got =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(uri.resolve(curl.group(2)))
                      .header("Authorization", "Bearer " + curl.group(1))
                      .timeout(Duration.ofSeconds(60))
                      .build(),
                  HttpResponse.BodyHandlers.ofByteArray());
      assertThat(got.statusCode())
          .as(new String(got.body(), StandardCharsets.UTF_8))
          .isEqualTo(200);
      assertThat(got.body())
          .as("what curl | cmp compares")
          .isEqualTo(Files.readAllBytes(h.valueFile()));
      return got.body();
    } finally {
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }
}
