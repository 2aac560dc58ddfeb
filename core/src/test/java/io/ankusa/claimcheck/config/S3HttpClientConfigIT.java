package io.ankusa.claimcheck.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.config.ClaimCheckConfig.StoreSpec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@code claimcheck.s3.http.client} reaches the store: the key alone puts a store on CRT. */
class S3HttpClientConfigIT {

  private static final Duration T = Duration.ofSeconds(10);

  @Test
  void crtChosenByTheKeyServesPutsAndGets() {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    s3.createBucket("http-client-config-it");
    Map<String, Object> m = s3.claimCheckConfig("s3://http-client-config-it/p");
    m.put("claimcheck.s3.http.client", "crt");
    StoreSpec spec = new ClaimCheckConfig(m).stores().get(0);
    try (ClaimStore store = spec.open()) {
      byte[] bytes = "over the CRT client".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      store.putIfAbsent("k", bytes, T).join();
      assertThat(store.getRange("k", 5, 3, T).join()).containsExactly('t', 'h', 'e');
      // The CRT client's event loop threads (native, attached to the JVM) did the I/O.
      Set<String> threads =
          Thread.getAllStackTraces().keySet().stream()
              .map(Thread::getName)
              .collect(Collectors.toSet());
      assertThat(threads).anyMatch(n -> n.startsWith("AwsEventLoop"));
    }
  }
}
