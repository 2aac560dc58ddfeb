package io.ankusa.claimcheck.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker (KRaft, combined broker + controller) running inside this JVM;
 * thread-safe.
 *
 * <p>Use {@link #shared()} from tests: one broker per JVM, started on first use and closed by a
 * shutdown hook. Or own one: {@code try (EmbeddedKafka kafka = EmbeddedKafka.start()) {...}}. Ports
 * are random free ports on {@code localhost}; every internal topic has replication factor 1 and
 * consumer groups rebalance without the initial delay.
 *
 * <p>{@link #stop()} and {@link #restart()} take the broker down and bring it back on the same
 * ports and log directories, with its data: clients configured with {@link #bootstrapServers()}
 * reconnect, as they would to a real broker that restarted.
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Object SHARED_LOCK = new Object();
  private static EmbeddedKafka shared;

  private final Path dir;
  private final Properties props;
  private final String bootstrapServers;
  private final Admin admin;
  private KafkaRaftServer server; // null while stopped
  private boolean closed;

  private EmbeddedKafka(
      KafkaRaftServer server, Path dir, Properties props, String bootstrapServers, Admin admin) {
    this.server = server;
    this.dir = dir;
    this.props = props;
    this.bootstrapServers = bootstrapServers;
    this.admin = admin;
  }

  /** Returns this JVM's shared broker, starting it on first call; it closes when the JVM exits. */
  public static EmbeddedKafka shared() {
    synchronized (SHARED_LOCK) {
      if (shared == null) {
        EmbeddedKafka kafka = start();
        Runtime.getRuntime()
            .addShutdownHook(new Thread(kafka::close, "claimcheck-testkit-kafka-shutdown"));
        shared = kafka;
      }
      return shared;
    }
  }

  /**
   * Starts a new broker and waits until it serves requests.
   *
   * @throws IllegalStateException when the broker does not start, with the reason
   */
  public static EmbeddedKafka start() {
    Path dir;
    try {
      dir = Files.createTempDirectory("claimcheck-kafka-");
    } catch (IOException e) {
      throw new UncheckedIOException("EmbeddedKafka: cannot create a temporary directory", e);
    }
    KafkaRaftServer server = null;
    Admin admin = null;
    try {
      int[] ports = FreePorts.distinct(2); // two next() calls can return one port twice
      int port = ports[0];
      int controllerPort = ports[1];
      Properties props = brokerProperties(dir, port, controllerPort);
      format(dir, props);
      server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
      server.startup();
      String bootstrap = "localhost:" + port;
      admin =
          Admin.create(
              Map.of(
                  AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                  bootstrap,
                  AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                  30_000));
      admin.describeCluster().nodes().get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return new EmbeddedKafka(server, dir, props, bootstrap, admin);
    } catch (Exception | LinkageError e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      if (admin != null) {
        admin.close(Duration.ZERO);
      }
      shutdownQuietly(server);
      deleteQuietly(dir);
      throw new IllegalStateException("EmbeddedKafka: the broker did not start: " + e, e);
    }
  }

  /** Returns the {@code bootstrap.servers} value for clients of this broker. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /**
   * Creates topic {@code name} with {@code partitions} partitions (replication factor 1) and waits
   * until every partition's leader serves requests; does nothing when it already exists.
   */
  public void createTopic(String name, int partitions) {
    try {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all()
          .get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("EmbeddedKafka: cannot create topic " + name, e.getCause());
      }
      return; // an existing topic's leaders were awaited by whoever created it
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("EmbeddedKafka: interrupted creating topic " + name, e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("EmbeddedKafka: timed out creating topic " + name, e);
    }
    awaitLeaders(name, partitions);
  }

  /**
   * Waits until every partition's leader serves requests: a produce that arrives between the
   * topic's creation and its leader taking over is answered NOT_LEADER_OR_FOLLOWER, and an
   * idempotent producer's retry of that first batch, once later batches were appended, can be
   * refused as out of order until its delivery timeout (seen with kafka-clients 4.4 in
   * ClaimCheckProducerIT: one record expired after 120 s). A ListOffsets is answered by the
   * leader's replica manager, and the admin client retries it until the leader is ready.
   */
  private void awaitLeaders(String name, int partitions) {
    java.util.Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec>
        latest = new java.util.HashMap<>();
    for (int p = 0; p < partitions; p++) {
      latest.put(
          new org.apache.kafka.common.TopicPartition(name, p),
          org.apache.kafka.clients.admin.OffsetSpec.latest());
    }
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    try {
      while (true) {
        try {
          admin.listOffsets(latest).all().get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          return;
        } catch (ExecutionException e) {
          // The broker may not know the topic yet (UnknownTopicOrPartition) or its leader may not
          // have taken over: both retriable, asked again until the start timeout.
          if (!(e.getCause() instanceof org.apache.kafka.common.errors.RetriableException)
              || System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "EmbeddedKafka: topic " + name + " has no leader", e.getCause());
          }
          Thread.sleep(20);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "EmbeddedKafka: interrupted awaiting " + name + "'s leaders", e);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("EmbeddedKafka: topic " + name + "'s leaders not ready", e);
    }
  }

  /**
   * Shuts the broker down (controlled shutdown) and keeps its data: its ports refuse connections
   * until {@link #restart()}. Does nothing when already stopped.
   *
   * @throws IllegalStateException when closed
   */
  public synchronized void stop() {
    requireOpen();
    KafkaRaftServer s = server;
    server = null;
    shutdownQuietly(s);
  }

  /**
   * Brings the broker back on the same ports and log directories, with its data (stopping it first
   * when it runs), and waits until it serves requests again.
   *
   * @throws IllegalStateException when closed, or when the broker does not start again
   */
  public synchronized void restart() {
    requireOpen();
    stop();
    KafkaRaftServer s = null;
    try {
      s = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
      s.startup();
      admin.describeCluster().nodes().get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      server = s;
    } catch (Exception | LinkageError e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      shutdownQuietly(s);
      throw new IllegalStateException("EmbeddedKafka: the broker did not restart: " + e, e);
    }
  }

  /** Whether the broker runs (not stopped, not closed). */
  public synchronized boolean isRunning() {
    return server != null;
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("EmbeddedKafka: closed");
    }
  }

  /** Stops the broker and deletes its data; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    admin.close(Duration.ofSeconds(5));
    shutdownQuietly(server);
    server = null;
    deleteQuietly(dir);
  }

  private static Properties brokerProperties(Path dir, int port, int controllerPort) {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@localhost:" + controllerPort);
    p.put(
        "listeners", "PLAINTEXT://localhost:" + port + ",CONTROLLER://localhost:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://localhost:" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dir.resolve("logs").toString());
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("num.partitions", "1");
    p.put("auto.create.topics.enable", "true");
    // The log cleaner and retention act within a test's time, so compaction and retention are
    // tested for real (the defaults wait 15 s between cleanings and 5 min between checks).
    p.put("log.cleaner.backoff.ms", "200");
    p.put("log.retention.check.interval.ms", "500");
    p.put("log.initial.task.delay.ms", "0");
    return p;
  }

  private static void format(Path dir, Properties props) throws IOException {
    Path file = dir.resolve("server.properties");
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      props.store(w, "claimcheck-testkit EmbeddedKafka");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc;
    try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      rc =
          StorageTool.execute(
              new String[] {
                "format",
                "-t",
                Uuid.randomUuid().toString(),
                "-c",
                file.toString(),
                "--ignore-formatted"
              },
              ps);
    }
    if (rc != 0) {
      throw new IllegalStateException(
          "kafka-storage format exited " + rc + ": " + out.toString(StandardCharsets.UTF_8));
    }
  }

  private static void shutdownQuietly(KafkaRaftServer server) {
    if (server == null) {
      return;
    }
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException e) {
      // Best effort: the broker is being discarded.
    }
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // Best effort: a temporary directory.
    }
  }
}
