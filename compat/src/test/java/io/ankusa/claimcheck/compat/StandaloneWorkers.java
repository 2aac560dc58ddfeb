package io.ankusa.claimcheck.compat;

import java.lang.reflect.Method;
import java.util.Map;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.runtime.Connect;

/**
 * Starts a Connect standalone worker in this JVM with connectors from properties files, as {@code
 * connect-standalone.sh worker.properties connector.properties…} does, on every Connect version
 * from 3.7: the API that does it changed in 3.9, so it is found by reflection.
 */
final class StandaloneWorkers {

  private StandaloneWorkers() {}

  static Connect start(Map<String, String> worker, String... connectorFiles) throws Exception {
    ConnectStandalone cli = new ConnectStandalone();
    for (Method m : ConnectStandalone.class.getMethods()) {
      if (m.getName().equals("startConnect") && m.getParameterCount() == 2) {
        // 3.7 and 3.8: startConnect(Map, String... connectorFiles)
        return (Connect) m.invoke(cli, worker, connectorFiles);
      }
    }
    // 3.9 and later: startConnect(Map), then processExtraArgs(Connect, String[])
    Connect connect = (Connect) ConnectStandalone.class
        .getMethod("startConnect", Map.class).invoke(cli, worker);
    ConnectStandalone.class.getMethod("processExtraArgs", Connect.class, String[].class)
        .invoke(cli, connect, connectorFiles);
    return connect;
  }
}
