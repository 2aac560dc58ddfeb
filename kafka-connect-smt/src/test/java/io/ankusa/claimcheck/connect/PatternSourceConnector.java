package io.ankusa.claimcheck.connect;

import io.ankusa.claimcheck.testkit.Planted;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A test source connector: one task emits, once, one record per size in {@code sizes} to {@code
 * topic}, key {@code k<i>} (STRING), value {@link #pattern} bytes (BYTES).
 */
public class PatternSourceConnector extends SourceConnector {

  private Map<String, String> props;

  /**
   * The known bytes of record {@code index}: a pattern a shifted or truncated copy cannot match.
   */
  static byte[] pattern(int size, int index) {
    byte[] b = new byte[size];
    for (int j = 0; j < size; j++) {
      b[j] = (byte) ((j * 31 + index * 7 + (j >>> 8)) % 251);
    }
    return b;
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return PatternTask.class;
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
        .define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "target topic")
        .define("sizes", ConfigDef.Type.LIST, ConfigDef.Importance.HIGH, "value sizes")
        .define(
            "values",
            ConfigDef.Type.STRING,
            "pattern",
            ConfigDef.Importance.LOW,
            "pattern (the default) or planted (testkit Planted.value, marked text)");
  }

  @Override
  public String version() {
    return "test";
  }

  /** Emits every record on its first poll, then nothing. */
  public static class PatternTask extends SourceTask {

    private String topic;
    private int[] sizes;
    private boolean planted;
    private boolean done;

    @Override
    public String version() {
      return "test";
    }

    @Override
    public void start(Map<String, String> props) {
      topic = props.get("topic");
      planted = "planted".equals(props.get("values"));
      sizes =
          Arrays.stream(props.get("sizes").split(","))
              .mapToInt(s -> Integer.parseInt(s.trim()))
              .toArray();
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
      if (done) {
        Thread.sleep(100); // nothing more to emit; don't spin the worker thread
        return null;
      }
      done = true;
      List<SourceRecord> out = new ArrayList<>();
      for (int i = 0; i < sizes.length; i++) {
        out.add(
            new SourceRecord(
                Map.of("source", "pattern"),
                Map.of("index", i),
                topic,
                0,
                Schema.STRING_SCHEMA,
                "k" + i,
                Schema.BYTES_SCHEMA,
                planted ? Planted.value(sizes[i], i) : pattern(sizes[i], i)));
      }
      return out;
    }

    @Override
    public void stop() {}
  }
}
