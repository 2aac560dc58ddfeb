package io.ankusa.claimcheck.connect;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** A test sink connector: every record its task receives lands in {@link #RECEIVED}. */
public class CollectingSinkConnector extends SinkConnector {

  /** The records received (after the connector's transforms), in arrival order. */
  static final Collection<SinkRecord> RECEIVED = new ConcurrentLinkedQueue<>();

  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return CollectingTask.class;
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
    return "test";
  }

  /** Adds every record it is handed to {@link #RECEIVED}. */
  public static class CollectingTask extends SinkTask {

    @Override
    public String version() {
      return "test";
    }

    @Override
    public void start(Map<String, String> props) {}

    @Override
    public void put(Collection<SinkRecord> records) {
      RECEIVED.addAll(records);
    }

    @Override
    public void stop() {}
  }
}
