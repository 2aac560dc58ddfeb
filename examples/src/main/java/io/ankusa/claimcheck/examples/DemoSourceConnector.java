package io.ankusa.claimcheck.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * The Connect demo's source: one task emits {@link #SIZES}{@code .length} records, once, to {@code
 * topic}; key {@code value-<size>} (STRING), value {@link #payload} (BYTES). Thread-safe as Connect
 * uses it (the worker calls a connector and a task from one thread at a time).
 */
public class DemoSourceConnector extends SourceConnector {

  /** The payload sizes, in emission order: 10 B, 100 KB, 300 KB, 1 MiB, 3 MiB. */
  static final int[] SIZES = {10, 100_000, 300_000, 1 << 20, 3 << 20};

  /** The connector's one setting: the topic it writes to. */
  static final String TOPIC = "topic";

  private Map<String, String> props;

  /** The key of payload {@code index}. */
  static String key(int index) {
    return "value-" + SIZES[index];
  }

  /** The deterministic bytes of payload {@code index}: the same on every call, in every JVM. */
  static byte[] payload(int index) {
    byte[] b = new byte[SIZES[index]];
    new Random(1_000L + index).nextBytes(b);
    return b;
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return DemoSourceTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef()
        .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "the topic to write to");
  }

  @Override
  public String version() {
    return "demo";
  }

  /** Emits every payload on its first poll, then nothing. */
  public static class DemoSourceTask extends SourceTask {

    private String topic;
    private boolean done;

    @Override
    public String version() {
      return "demo";
    }

    @Override
    public void start(Map<String, String> props) {
      topic = props.get(TOPIC);
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
      if (done) {
        Thread.sleep(100); // nothing more to emit; don't spin the worker thread
        return null;
      }
      done = true;
      List<SourceRecord> out = new ArrayList<>();
      for (int i = 0; i < SIZES.length; i++) {
        out.add(
            new SourceRecord(
                Map.of("source", "demo"),
                Map.of("index", i),
                topic,
                0,
                Schema.STRING_SCHEMA,
                key(i),
                Schema.BYTES_SCHEMA,
                payload(i)));
      }
      return out;
    }

    @Override
    public void stop() {}
  }
}
