package io.ankusa.claimcheck.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * Writes every record's value, as the sink task saw it, to the file {@code <dir>/<key>}: the test
 * runs this connector from a plugin directory, in a class loader of its own, so a static field
 * would not reach the test.
 */
public class CollectingSinkConnector extends SinkConnector {

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
    return List.of(new java.util.HashMap<>(props)); // a copy: older workers add to it
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef().define("dir", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "dir");
  }

  @Override
  public String version() {
    return "compat";
  }

  /** Records each value under its key. */
  public static class CollectingTask extends SinkTask {
    private Path dir;

    @Override
    public String version() {
      return "compat";
    }

    @Override
    public void start(Map<String, String> props) {
      dir = Path.of(props.get("dir"));
    }

    @Override
    public void put(Collection<SinkRecord> records) {
      for (SinkRecord r : records) {
        try {
          Path tmp = dir.resolve(r.key() + ".tmp");
          Files.write(tmp, (byte[]) r.value());
          Files.move(tmp, dir.resolve(String.valueOf(r.key())), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }

    @Override
    public void stop() {}
  }
}
