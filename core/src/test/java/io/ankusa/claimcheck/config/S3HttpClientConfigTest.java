package io.ankusa.claimcheck.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** {@code claimcheck.s3.http.client}: netty (default) or crt, and crt only when it is there. */
class S3HttpClientConfigTest {

  private static Map<String, Object> config(String... kv) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, "s3://claims/a,s3://claims/b");
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static String client(ClaimCheckConfig c, int store) {
    return c.stores()
        .get(store)
        .settings()
        .getString("s3.http.client")
        .trim()
        .toLowerCase(java.util.Locale.ROOT);
  }

  @Test
  void nettyByDefaultAndCrtWhenChosenForEveryS3Store() {
    ClaimCheckConfig byDefault = new ClaimCheckConfig(config());
    assertThat(client(byDefault, 0)).isEqualTo("netty");
    assertThat(client(byDefault, 1)).isEqualTo("netty");
    ClaimCheckConfig crt = new ClaimCheckConfig(config("claimcheck.s3.http.client", " CRT "));
    assertThat(client(crt, 0)).isEqualTo("crt");
    assertThat(client(crt, 1)).isEqualTo("crt");
  }

  @Test
  void anUnknownClientThrowsConfigExceptionNamingTheKey() {
    assertThatThrownBy(() -> new ClaimCheckConfig(config("claimcheck.s3.http.client", "apache")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.s3.http.client");
  }

  @Test
  void aPerStoreOverrideChoosesTheClientOfThatStoreOnly() {
    ClaimCheckConfig c = new ClaimCheckConfig(config("claimcheck.store.1.s3.http.client", "crt"));
    assertThat(client(c, 0)).isEqualTo("netty");
    assertThat(client(c, 1)).isEqualTo("crt");
    assertThatThrownBy(
            () -> new ClaimCheckConfig(config("claimcheck.store.0.s3.http.client", "okhttp")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.store.0.s3.http.client");
  }

  /**
   * Loads ClaimCheckConfig again in a class loader that sees this build's class path without the
   * aws-crt jars, as a user's application without the optional dependency would.
   */
  @Test
  void crtWithoutTheCrtJarsThrowsConfigExceptionNamingTheKeyAndTheArtifact() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = new File(entry).getName();
      if (!name.startsWith("aws-crt")) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    try (URLClassLoader withoutCrt =
        new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("software.amazon.awssdk.crt.CRT", false, withoutCrt))
          .isInstanceOf(ClassNotFoundException.class);
      Class<?> configClass = Class.forName(ClaimCheckConfig.class.getName(), true, withoutCrt);
      // netty still works there
      configClass.getConstructor(Map.class).newInstance(config());
      Throwable thrown = null;
      try {
        configClass
            .getConstructor(Map.class)
            .newInstance(config("claimcheck.s3.http.client", "crt"));
      } catch (InvocationTargetException e) {
        thrown = e.getCause();
      }
      assertThat(thrown).isNotNull();
      assertThat(thrown.getClass().getName()).isEqualTo(ConfigException.class.getName());
      assertThat(thrown.getMessage())
          .contains("claimcheck.s3.http.client")
          .contains("software.amazon.awssdk:aws-crt-client");
    }
  }
}
