package io.ankusa.claimcheck.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code java -jar claimcheck-gateway.jar --config gateway.properties [key=value ...]}: starts the
 * gateway (each {@code key=value} overriding the file's), prints {@code gateway listening on
 * http[s]://HOST:PORT}, and runs until the JVM is stopped.
 */
public final class GatewayMain {

  private GatewayMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 2 || !args[0].equals("--config")) {
      System.err.println(
          "usage: java -jar claimcheck-gateway.jar --config gateway.properties [key=value ...]");
      System.exit(2);
      return;
    }
    Map<String, Object> props;
    try {
      props = load(Path.of(args[1]));
      for (int i = 2; i < args.length; i++) {
        int eq = args[i].indexOf('=');
        if (eq <= 0) {
          System.err.println("gateway: expected key=value, not an argument without '='");
          System.exit(2);
          return;
        }
        props.put(args[i].substring(0, eq), args[i].substring(eq + 1).strip());
      }
    } catch (IOException e) {
      System.err.println("gateway: cannot read " + args[1] + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    Gateway g;
    try {
      g = Gateway.start(props);
    } catch (ConfigException e) {
      System.err.println("gateway: bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(g::close, "claimcheck-gateway-stop"));
    System.out.println("gateway listening on " + g.uri());
    System.out.flush();
    new CountDownLatch(1).await();
  }

  static Map<String, Object> load(Path file) throws IOException {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    Map<String, Object> m = new HashMap<>();
    p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k).strip()));
    return m;
  }
}
