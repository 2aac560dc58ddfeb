package io.ankusa.claimcheck.compat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/** Emits, once, one record of {@link Values#of} per size of {@link Values#SIZES} to {@code topic}. */
public class BytesSourceConnector extends SourceConnector {

  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return BytesTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(new java.util.HashMap<>(props)); // a copy: older workers add to it
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef().define("topic", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "topic");
  }

  @Override
  public String version() {
    return "compat";
  }

  /** Emits every record on its first poll, then nothing. */
  public static class BytesTask extends SourceTask {
    private String topic;
    private boolean done;

    @Override
    public String version() {
      return "compat";
    }

    @Override
    public void start(Map<String, String> props) {
      topic = props.get("topic");
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
      if (done) {
        Thread.sleep(100);
        return null;
      }
      done = true;
      List<SourceRecord> out = new ArrayList<>();
      for (int i = 0; i < Values.SIZES.length; i++) {
        out.add(new SourceRecord(Map.of("s", "compat"), Map.of("i", i), topic, 0,
            Schema.STRING_SCHEMA, "k" + i, Schema.BYTES_SCHEMA, Values.of(Values.SIZES[i], i)));
      }
      return out;
    }

    @Override
    public void stop() {}
  }
}
