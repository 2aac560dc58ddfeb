package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runnable jar, as a user starts it: {@code java -jar … --config gateway.properties}. */
class GatewayJarIT {

  @TempDir Path dir;

  @Test
  void theJarStartsFromAPropertiesFileAndPrintsWhereItListens() throws Exception {
    Path jar = Path.of("target", "claimcheck-gateway.jar");
    assertThat(jar).exists();
    String bucket =
        EmbeddedS3.shared().createBucket("gwj-" + UUID.randomUUID().toString().substring(0, 8));
    try (FaultProxy proxy = FaultProxy.inFrontOf(EmbeddedS3.shared())) {
      Map<String, Object> m = TestGateways.config(proxy, bucket, TestGateways.tokens(dir));
      StringBuilder props = new StringBuilder();
      m.forEach((k, v) -> props.append(k).append('=').append(v).append('\n'));
      Path file = dir.resolve("gateway.properties");
      Files.writeString(file, props.toString());
      Path java = Path.of(System.getProperty("java.home"), "bin", "java");
      Process p =
          new ProcessBuilder(
                  java.toString(), "-Xmx256m", "-jar", jar.toString(), "--config", file.toString())
              .redirectError(dir.resolve("stderr.txt").toFile())
              .start();
      try {
        BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Pattern listening = Pattern.compile("gateway listening on (http://127\\.0\\.0\\.1:\\d+)");
        String line;
        URI uri = null;
        while ((line = out.readLine()) != null) {
          Matcher mt = listening.matcher(line);
          if (mt.matches()) {
            uri = URI.create(mt.group(1));
            break;
          }
        }
        assertThat(uri).as(Files.readString(dir.resolve("stderr.txt"))).isNotNull();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> live =
            http.send(
                HttpRequest.newBuilder(uri.resolve("/health/live"))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(live.statusCode()).isEqualTo(200);
        HttpResponse<String> posted =
            http.send(
                HttpRequest.newBuilder(uri.resolve("/v1/claims"))
                    .header("Authorization", "Bearer " + TestGateways.TOKEN_A)
                    .POST(HttpRequest.BodyPublishers.ofString("hello from the jar"))
                    .timeout(Duration.ofSeconds(60))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(posted.statusCode()).isEqualTo(201);
        HttpResponse<String> got =
            http.send(
                HttpRequest.newBuilder(uri.resolve("/v1/claims/" + posted.body()))
                    .header("Authorization", "Bearer " + TestGateways.TOKEN_A)
                    .timeout(Duration.ofSeconds(60))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(got.body()).isEqualTo("hello from the jar");
      } finally {
        p.destroy();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  @Test
  void aBadValueIsRefusedAtStartNamingTheKey() throws Exception {
    Path jar = Path.of("target", "claimcheck-gateway.jar");
    Path file = dir.resolve("bad.properties");
    Files.writeString(file, "gateway.listen=nowhere\ngateway.tls.enabled=false\n");
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(java.toString(), "-jar", jar.toString(), "--config", file.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).contains("gateway.listen");
  }
}
