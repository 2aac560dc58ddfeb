package io.ankusa.claimcheck.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Runs the peer on the Kafka clients it links against, beside our own (newer) Kafka clients in the
 * same JVM; thread-safe (parallel capable).
 *
 * <p>large-message-serde 3.1.1 cannot run on kafka-clients 4.4.0: its {@code CompressionType}
 * (initialized by every serializer's {@code configure} and every header-aware {@code deserialize})
 * uses {@code org.apache.kafka.common.utils.BufferSupplier}, {@code ByteBufferOutputStream} and
 * {@code org.apache.kafka.common.record.CompressionType}, which Kafka moved to internal packages
 * (by 4.4.0). So this loader takes {@code org.apache.kafka.*} only from the jars it is given (an
 * older kafka-clients), defines the peer ({@code com.bakdata.kafka.*}), {@link ClientDriver} and
 * {@link SerdeDriver} itself from the parent's class files, and leaves everything else (JDK, AWS
 * SDK, slf4j, Guava) to the parent; classes the parent lacks (Google's auth library, which the
 * peer's config class needs to pass verification) come from the given jars too.
 */
final class PeerClassLoader extends URLClassLoader {

  static {
    registerAsParallelCapable();
  }

  private static final String KAFKA = "org.apache.kafka.";
  private static final String PEER = "com.bakdata.kafka.";
  private static final String DRIVER = ClientDriver.class.getName();
  private static final String SERDE_DRIVER = SerdeDriver.class.getName();

  private PeerClassLoader(URL[] jars, ClassLoader parent) {
    super("peer", jars, parent);
  }

  /** A loader over every jar in {@code dir}, with this class's loader as parent. */
  static PeerClassLoader over(Path dir) {
    List<URL> urls = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files.sorted()::iterator) {
        if (p.toString().endsWith(".jar")) {
          urls.add(p.toUri().toURL());
        }
      }
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the peer's runtime jars in " + dir, e);
    }
    if (urls.stream().noneMatch(u -> u.getPath().contains("kafka-clients-"))) {
      throw new IllegalStateException(
          "no kafka-clients jar in " + dir + " (built by `mvn -pl benchmarks -am package`)");
    }
    return new PeerClassLoader(urls.toArray(URL[]::new), PeerClassLoader.class.getClassLoader());
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        if (name.startsWith(KAFKA)) {
          c = findClass(name); // the given Kafka clients, never the parent's
        } else if (name.startsWith(PEER)
            || name.equals(DRIVER)
            || name.startsWith(DRIVER + "$")
            || name.equals(SERDE_DRIVER)
            || name.startsWith(SERDE_DRIVER + "$")) {
          c = defineFromParent(name);
        } else {
          return super.loadClass(name, resolve);
        }
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  /** Own jars first (Kafka's version file, say), then the parent. */
  @Override
  public URL getResource(String name) {
    URL own = findResource(name);
    return own != null ? own : super.getResource(name);
  }

  private Class<?> defineFromParent(String name) throws ClassNotFoundException {
    String file = name.replace('.', '/') + ".class";
    try (InputStream in = getParent().getResourceAsStream(file)) {
      if (in == null) {
        throw new ClassNotFoundException(name);
      }
      byte[] bytes = in.readAllBytes();
      return defineClass(name, bytes, 0, bytes.length);
    } catch (IOException e) {
      throw new ClassNotFoundException(name, e);
    }
  }
}
