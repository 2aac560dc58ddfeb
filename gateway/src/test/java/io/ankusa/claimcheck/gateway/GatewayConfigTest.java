package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad values are refused at start with a {@code ConfigException} naming the key. */
class GatewayConfigTest {

  @TempDir Path dir;

  private Map<String, Object> plain() {
    Map<String, Object> m = new HashMap<>();
    m.put("claimcheck.stores", "memory:config-test");
    m.put("gateway.tls.enabled", "false");
    m.put("gateway.tokens.file", dir.resolve("tokens").toString());
    return m;
  }

  private static void refused(Map<String, Object> m, String key) {
    assertThatThrownBy(() -> new GatewayConfig(m))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(key);
  }

  @Test
  void plainHttpDefaultsToLoopback() {
    GatewayConfig c = new GatewayConfig(plain());
    assertThat(c.listen()).isEqualTo(new Listen("127.0.0.1", 8080));
    assertThat(c.tls()).isFalse();
  }

  @Test
  void plainHttpOnANonLoopbackAddressIsRefusedUnlessAskedFor() {
    Map<String, Object> m = plain();
    m.put("gateway.listen", "0.0.0.0:8080");
    refused(m, "gateway.listen");
    m.put("gateway.tls.disabled.allow.remote", "true");
    assertThat(new GatewayConfig(m).listen().port()).isEqualTo(8080);
  }

  @Test
  void inlineLeadsMustLeaveThreadsFree() {
    Map<String, Object> m = plain();
    m.put("gateway.threads.max", "16");
    assertThat(new GatewayConfig(m).inlineLeads()).as("by default a quarter").isEqualTo(4);
    m.put("gateway.threads.max", "200");
    assertThat(new GatewayConfig(m).inlineLeads()).as("at most 16 by default").isEqualTo(16);
    m.put("gateway.threads.max", "16");
    m.put("gateway.inline.leads", "16");
    refused(m, "gateway.inline.leads");
    m.put("gateway.inline.leads", "-2");
    refused(m, "gateway.inline.leads");
    m.put("gateway.inline.leads", "15");
    assertThat(new GatewayConfig(m).inlineLeads()).isEqualTo(15);
    m.put("gateway.header.deadline.ms", "10");
    refused(m, "gateway.header.deadline.ms");
  }

  @Test
  void badListenValuesNameTheKey() {
    for (String bad : new String[] {"nowhere", ":80", "host:", "host:99999", "host:x"}) {
      Map<String, Object> m = plain();
      m.put("gateway.listen", bad);
      refused(m, "gateway.listen");
    }
  }

  @Test
  void tlsIsOnByDefaultAndNeedsAReadableKeystore() throws Exception {
    Map<String, Object> m = plain();
    m.remove("gateway.tls.enabled");
    refused(m, "gateway.tls.keystore.path");
    m.put("gateway.tls.keystore.path", dir.resolve("missing.p12").toString());
    refused(m, "gateway.tls.keystore.path");
    Path ks = Files.writeString(dir.resolve("ks.p12"), "x");
    m.put("gateway.tls.keystore.path", ks.toString());
    GatewayConfig c = new GatewayConfig(m);
    assertThat(c.tls()).isTrue();
    assertThat(c.listen()).isEqualTo(new Listen("0.0.0.0", 8443));
  }

  @Test
  void theKeystorePasswordIsNeverShown() {
    Map<String, Object> m = plain();
    m.put("gateway.tls.keystore.password", "hunter2-secret");
    GatewayConfig c = new GatewayConfig(m);
    assertThat(c.keystorePassword().value()).isEqualTo("hunter2-secret");
    assertThat(c.keystorePassword().toString()).doesNotContain("hunter2");
    assertThat(c.values().toString()).doesNotContain("hunter2");
  }

  @Test
  void unknownAndOutOfRangeKeysNameTheKey() {
    Map<String, Object> m = plain();
    m.put("gateway.listne", "127.0.0.1:1");
    refused(m, "gateway.listne");
    m = plain();
    m.put("gateway.idle.timeout.ms", "-5");
    refused(m, "gateway.idle.timeout.ms");
    m = plain();
    m.put("gateway.tls.enabled", "maybe");
    refused(m, "gateway.tls.enabled");
    m = plain();
    m.remove("gateway.tokens.file");
    refused(m, "gateway.tokens.file");
    m = plain();
    m.put("claimcheck.read.deadline.ms", "0");
    refused(m, "claimcheck.read.deadline.ms");
  }

  @Test
  void oneConfigDefHoldsTheLibrarysKeysAndTheGateways() {
    assertThat(GatewayConfig.CONFIG_DEF.names())
        .contains("claimcheck.stores", "claimcheck.max.concurrent.reads")
        .contains("gateway.listen", "gateway.tls.enabled", "gateway.tls.keystore.path")
        .contains("gateway.tls.keystore.password", "gateway.tokens.file");
  }
}
