package io.ankusa.claimcheck.examples;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * The Connect demo's sink: every record its task is handed (after the connector's transforms) is
 * added to {@link #RECEIVED}; thread-safe.
 */
public class DemoSinkConnector extends SinkConnector {

  /** One record as the sink saw it. */
  record Received(String topic, String key, byte[] value) {}

  /** Every record received, in arrival order, duplicates included. */
  static final Collection<Received> RECEIVED = new ConcurrentLinkedQueue<>();

  private Map<String, String> props;

  /** The records received from {@code topic}, in arrival order. */
  static List<Received> received(String topic) {
    return RECEIVED.stream().filter(r -> r.topic().equals(topic)).toList();
  }

  @Override
  public void start(Map<String, String> props) {
    this.props = Map.copyOf(props);
  }

  @Override
  public Class<? extends Task> taskClass() {
    return DemoSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef();
  }

  @Override
  public String version() {
    return "demo";
  }

  /** Adds every record it is handed to {@link #RECEIVED}; refuses a value that is not bytes. */
  public static class DemoSinkTask extends SinkTask {

    @Override
    public String version() {
      return "demo";
    }

    @Override
    public void start(Map<String, String> props) {}

    @Override
    public void put(Collection<SinkRecord> records) {
      for (SinkRecord r : records) {
        if (!(r.value() instanceof byte[] value)) {
          throw new DataException(
              "DemoSinkConnector takes bytes values; got "
                  + (r.value() == null ? "null" : r.value().getClass().getName())
                  + " at "
                  + r.topic()
                  + "-"
                  + r.kafkaPartition()
                  + "@"
                  + r.kafkaOffset());
        }
        RECEIVED.add(new Received(r.topic(), String.valueOf(r.key()), value));
      }
    }

    @Override
    public void stop() {}
  }
}
