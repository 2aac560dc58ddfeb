package io.ankusa.claimcheck.benchmarks;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The peer's copy of {@link ClientDriver}: the same class, defined again by a {@link
 * PeerClassLoader} over the peer's Kafka clients and called reflectively with JDK types only;
 * thread-safe (as the driver is).
 */
final class PeerDriver implements AutoCloseable {

  private final PeerClassLoader loader;
  private final Method send;
  private final Method consume;
  private final Method pollInGroup;

  /** Loads the driver over the jars in {@code runtime} (the peer's kafka-clients and more). */
  PeerDriver(Path runtime) {
    this.loader = PeerClassLoader.over(runtime);
    try {
      Class<?> driver = Class.forName(ClientDriver.class.getName(), true, loader);
      this.send = method(driver, "send");
      this.consume = method(driver, "consume");
      this.pollInGroup = method(driver, "pollInGroup");
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("cannot load the peer's copy of the driver", e);
    }
  }

  /** See {@link ClientDriver#send}. */
  long[] send(
      Map<String, Object> config,
      String topic,
      byte[][] keys,
      byte[][] values,
      int n,
      List<String> errors) {
    return (long[]) invoke(send, config, topic, keys, values, n, errors);
  }

  /** See {@link ClientDriver#consume}, without the Kafka-typed hooks. */
  long consume(
      Map<String, Object> config,
      String topic,
      int n,
      Duration giveUp,
      BiConsumer<byte[], byte[]> check) {
    return (long) invoke(consume, config, topic, n, giveUp, null, null, check);
  }

  /** See {@link ClientDriver#pollInGroup}. */
  String[] pollInGroup(Map<String, Object> config, String topic) {
    return (String[]) invoke(pollInGroup, config, topic);
  }

  /** The version the peer's Kafka clients report. */
  String kafkaVersion() {
    return kafkaVersion(loader);
  }

  /** The version the Kafka clients of {@code loader} report. */
  static String kafkaVersion(ClassLoader loader) {
    // AppInfoParser moved to an internal package in Kafka 4.4.
    for (String name :
        List.of(
            "org.apache.kafka.common.utils.internals.AppInfoParser",
            "org.apache.kafka.common.utils.AppInfoParser")) {
      try {
        return (String) Class.forName(name, true, loader).getMethod("getVersion").invoke(null);
      } catch (ClassNotFoundException e) {
        // try the other name
      } catch (ReflectiveOperationException e) {
        return "unknown (" + e + ")";
      }
    }
    return "unknown";
  }

  private static Object invoke(Method m, Object... args) {
    try {
      return m.invoke(null, args);
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(t);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Method method(Class<?> driver, String name) {
    for (Method m : driver.getMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new IllegalStateException("no " + name + " in " + driver);
  }

  @Override
  public void close() {
    try {
      loader.close();
    } catch (IOException e) {
      // only jar handles; nothing to do
    }
  }
}
