package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.kafka.ClaimCheckDeserializer;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.junit.jupiter.api.Test;

/**
 * The packaged plugin directory works on its own: loaded as a worker's plugin class loader would,
 * seeing only the JDK and Kafka's (and SLF4J's) classes from the worker, its transforms check in to
 * and redeem from a real S3 server, and the serde on the application class path reads them.
 */
class PluginPackageIT {

  private static Path pluginDir() throws IOException {
    Path outer;
    try (Stream<Path> s = Files.list(Path.of("target"))) {
      outer =
          s.filter(p -> Files.isDirectory(p) && p.getFileName().toString().endsWith("-plugin"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no target/*-plugin directory: run package"));
    }
    try (Stream<Path> s = Files.list(outer)) {
      return s.filter(Files::isDirectory).findFirst().orElseThrow();
    }
  }

  /** The worker's side of a plugin class loader: the JDK, Kafka and SLF4J, nothing else. */
  private static final class WorkerProvided extends ClassLoader {
    private final ClassLoader app = PluginPackageIT.class.getClassLoader();

    WorkerProvided() {
      super(ClassLoader.getPlatformClassLoader());
    }

    private static boolean provided(String name) {
      return name.startsWith("org.apache.kafka.") || name.startsWith("org.slf4j.");
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      if (provided(name)) {
        return app.loadClass(name);
      }
      throw new ClassNotFoundException(name + " is not provided by the worker");
    }

    @Override
    protected URL findResource(String name) {
      return provided(name.replace('/', '.')) ? app.getResource(name) : null;
    }

    @Override
    protected Enumeration<URL> findResources(String name) throws IOException {
      return provided(name.replace('/', '.'))
          ? app.getResources(name)
          : Collections.emptyEnumeration();
    }
  }

  private static Map<String, Object> s3Config() {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = s3.createBucket("plugin-" + UUID.randomUUID().toString().substring(0, 8));
    Map<String, Object> m = s3.claimCheckConfig("s3://" + bucket);
    m.put("claimcheck.threshold.bytes", "1000");
    return m;
  }

  @Test
  void thePluginDirectoryHoldsItsDependenciesButNotKafkasOwn() throws IOException {
    List<String> jars;
    try (Stream<Path> s = Files.list(pluginDir())) {
      jars = s.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(jars)
        .allMatch(n -> n.endsWith(".jar"))
        .anyMatch(n -> n.startsWith("claimcheck-connect-smt-"))
        .anyMatch(n -> n.startsWith("claimcheck-core-"))
        .noneMatch(n -> n.startsWith("claimcheck-kafka-serde-")) // core holds the wire format
        .anyMatch(n -> n.startsWith("s3-"))
        .noneMatch(n -> n.startsWith("kafka-clients-"))
        .noneMatch(n -> n.startsWith("connect-"))
        .noneMatch(n -> n.startsWith("slf4j-"));
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void itsTransformsRunInIsolationAgainstARealS3Server() throws Exception {
    List<URL> urls = new ArrayList<>();
    try (Stream<Path> s = Files.list(pluginDir())) {
      for (Path p : s.toList()) {
        urls.add(p.toUri().toURL());
      }
    }
    Map<String, Object> config = s3Config();
    try (URLClassLoader plugin =
        new URLClassLoader(urls.toArray(URL[]::new), new WorkerProvided())) {
      Map<String, Transformation<?>> found = new HashMap<>();
      for (Transformation<?> t : ServiceLoader.load(Transformation.class, plugin)) {
        found.put(t.getClass().getName(), t);
        assertThat(t.getClass().getClassLoader()).isSameAs(plugin);
      }
      assertThat(found)
          .containsOnlyKeys(
              "io.ankusa.claimcheck.connect.CheckIn$Key",
              "io.ankusa.claimcheck.connect.CheckIn$Value",
              "io.ankusa.claimcheck.connect.Redeem$Key",
              "io.ankusa.claimcheck.connect.Redeem$Value");
      Transformation<SourceRecord> checkIn =
          (Transformation<SourceRecord>) found.get("io.ankusa.claimcheck.connect.CheckIn$Value");
      Transformation<SinkRecord> redeem =
          (Transformation<SinkRecord>) found.get("io.ankusa.claimcheck.connect.Redeem$Value");
      try (checkIn;
          redeem;
          ClaimCheckDeserializer<byte[]> d =
              new ClaimCheckDeserializer<>(new ByteArrayDeserializer())) {
        checkIn.configure(config);
        redeem.configure(config);
        d.configure(config, false);
        byte[] value = PatternSourceConnector.pattern(300_000, 1);
        SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));
        assertThat(RefCodec.isRef((byte[]) out.value())).isTrue();
        assertThat(d.deserialize(Wire.TOPIC, Wire.toKafka(out.headers()), (byte[]) out.value()))
            .as("the application's deserializer reads the plugin's claim")
            .isEqualTo(value);
        assertThat((byte[]) redeem.apply(Wire.overKafka(out)).value()).isEqualTo(value);
      }
    }
  }

  @Test
  void itsConverterIsListedAndRunsInIsolationAgainstARealS3Server() throws Exception {
    List<URL> urls = new ArrayList<>();
    try (Stream<Path> s = Files.list(pluginDir())) {
      for (Path p : s.toList()) {
        urls.add(p.toUri().toURL());
      }
    }
    Map<String, Object> config = s3Config();
    try (URLClassLoader plugin =
        new URLClassLoader(urls.toArray(URL[]::new), new WorkerProvided())) {
      List<org.apache.kafka.connect.storage.Converter> found = new ArrayList<>();
      ServiceLoader.load(org.apache.kafka.connect.storage.Converter.class, plugin)
          .forEach(found::add);
      assertThat(found)
          .extracting(c -> c.getClass().getName())
          .containsExactly("io.ankusa.claimcheck.connect.ClaimCheckConverter");
      assertThat(found.get(0).getClass().getClassLoader()).isSameAs(plugin);
      try (org.apache.kafka.connect.storage.Converter converter = found.get(0);
          ClaimCheckDeserializer<byte[]> d =
              new ClaimCheckDeserializer<>(new ByteArrayDeserializer())) {
        converter.configure(config, false);
        d.configure(config, false);
        byte[] value = PatternSourceConnector.pattern(300_000, 2);
        org.apache.kafka.common.header.internals.RecordHeaders headers =
            new org.apache.kafka.common.header.internals.RecordHeaders();
        byte[] wire = converter.fromConnectData(Wire.TOPIC, headers, Schema.BYTES_SCHEMA, value);
        assertThat(RefCodec.isRef(wire)).isTrue();
        assertThat(d.deserialize(Wire.TOPIC, headers, wire)).isEqualTo(value);
        assertThat((byte[]) converter.toConnectData(Wire.TOPIC, headers, wire).value())
            .isEqualTo(value);
      }
    }
  }
}
