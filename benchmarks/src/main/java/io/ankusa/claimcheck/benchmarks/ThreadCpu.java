package io.ankusa.claimcheck.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CPU time of one pass split by thread group (S3 server, Kafka broker, Kafka clients, claim
 * check + AWS SDK, application thread, JVM-internal), from {@link ThreadMXBean#getThreadCpuTime}
 * sampled every {@value #TICK_MS} ms by a daemon thread; confined to the thread that calls {@link
 * #start} and {@link #stop}, the sampler's state guarded by {@code this}.
 *
 * <p>Invariants: {@code first} holds each thread's CPU when first seen (0 for a thread born after
 * the start sample, whose CPU is all inside the pass), {@code last} its CPU at the latest sample; a
 * thread's share is {@code last - first}. A thread that dies between two samples loses at most one
 * tick of CPU; one born and dead within a tick is lost entirely. The JVM's own threads (GC, JIT, VM
 * thread) are no Java threads: with {@code --add-exports
 * java.management/sun.management=ALL-UNNAMED} their CPU is read at start and stop from HotSpot's
 * internal thread MBean (GC and JIT groups); without it they fall into {@link Group#JVM_AND_LOST},
 * the process's CPU less every thread counted.
 */
final class ThreadCpu {

  static final int TICK_MS = 50;

  /** Where a thread's CPU is counted, by its name. */
  enum Group {
    S3_SERVER("S3 server (S3Proxy/Jetty)", false),
    BROKER("Kafka broker (KRaft)", false),
    APP("application thread", true),
    KAFKA_CLIENT("Kafka client I/O threads", true),
    CLAIMCHECK("claim check + AWS SDK threads", true),
    HARNESS("harness (admin client, sampler)", false),
    OTHER("other Java threads", false),
    GC("JVM: garbage collector", false),
    JIT("JVM: JIT compilers", false),
    JVM_AND_LOST("JVM: other + lost threads", false);

    final String label;
    final boolean client;

    Group(String label, boolean client) {
      this.label = label;
      this.client = client;
    }
  }

  /** A finished pass's CPU: by group, and by thread name with digits folded. */
  record Split(long processNanos, Map<Group, Long> byGroup, Map<String, Long> byName) {
    long client() {
      long sum = 0;
      for (Map.Entry<Group, Long> e : byGroup.entrySet()) {
        if (e.getKey().client) {
          sum += e.getValue();
        }
      }
      return sum;
    }

    long of(Group g) {
      return byGroup.getOrDefault(g, 0L);
    }
  }

  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  private final Map<Long, String> names = new HashMap<>();
  private final Map<Long, Long> first = new HashMap<>();
  private final Map<Long, Long> last = new HashMap<>();
  private final long process0;
  private final Map<String, Long> internal0;
  private final Thread sampler;
  private volatile boolean running = true;

  private ThreadCpu() {
    process0 = processCpuNanos();
    internal0 = internalCpu();
    sample(true);
    sampler = new Thread(this::loop, "harness-cpu-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  /** Takes the start sample and starts sampling. */
  static ThreadCpu start() {
    return new ThreadCpu();
  }

  /** Takes the end sample, stops sampling and returns the split. */
  Split stop() {
    running = false;
    sampler.interrupt();
    try {
      sampler.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    long process = processCpuNanos() - process0;
    Map<String, Long> internal = internalCpu();
    synchronized (this) {
      sample(false);
      Map<Group, Long> byGroup = new EnumMap<>(Group.class);
      Map<String, Long> byName = new TreeMap<>();
      long threads = 0;
      for (Map.Entry<String, Long> e : internal.entrySet()) {
        long d = Math.max(0, e.getValue() - internal0.getOrDefault(e.getKey(), 0L));
        String name = e.getKey();
        Group g = group(name);
        if (g == Group.GC || g == Group.JIT) {
          byGroup.merge(g, d, Long::sum);
          byName.merge(name.replaceAll("[0-9]+", "#"), d, Long::sum);
          threads += d;
        }
      }
      for (Map.Entry<Long, Long> e : last.entrySet()) {
        long d = Math.max(0, e.getValue() - first.getOrDefault(e.getKey(), 0L));
        String name = names.get(e.getKey());
        byGroup.merge(group(name), d, Long::sum);
        byName.merge(name.replaceAll("[0-9]+", "#"), d, Long::sum);
        threads += d;
      }
      byGroup.put(Group.JVM_AND_LOST, Math.max(0, process - threads));
      return new Split(process, byGroup, byName);
    }
  }

  private void loop() {
    while (running) {
      try {
        Thread.sleep(TICK_MS);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (this) {
        sample(false);
      }
    }
  }

  /** Reads every live thread's CPU; {@code atStart}: the baseline of threads alive now. */
  private void sample(boolean atStart) {
    long[] ids = MX.getAllThreadIds();
    for (long id : ids) {
      if (!names.containsKey(id)) {
        ThreadInfo info = MX.getThreadInfo(id);
        if (info == null) {
          continue; // died meanwhile
        }
        names.put(id, info.getThreadName());
      }
      long cpu = MX.getThreadCpuTime(id);
      if (cpu < 0) {
        continue; // died meanwhile
      }
      if (atStart) {
        first.put(id, cpu);
      }
      last.put(id, cpu);
    }
  }

  /** The group of a thread named {@code n}; names seen with this harness's clients and servers. */
  static Group group(String n) {
    // HotSpot's internal threads (see internalCpu), also with digits folded to '#'
    if (n.matches("C[12#] .*")) {
      return Group.JIT;
    }
    if (n.matches("G[1#] .*") || n.startsWith("GC ")) {
      return Group.GC;
    }
    if (n.startsWith("S3Proxy") || n.startsWith("qtp") || n.contains("Jetty")) {
      return Group.S3_SERVER;
    }
    if (n.equals("main") || n.startsWith("dropin-")) {
      return Group.APP;
    }
    if (n.startsWith("kafka-producer-network-thread")
        || n.startsWith("kafka-coordinator-heartbeat")
        || n.startsWith("consumer_background_thread")) {
      return Group.KAFKA_CLIENT;
    }
    if (n.startsWith("claimcheck-")
        || n.startsWith("sdk-")
        || n.startsWith("aws-")
        || n.startsWith("AwsEventLoop")
        || n.startsWith("AwsHostResolver")
        || n.startsWith("AWSCommon")
        || n.startsWith("Aws")) {
      return Group.CLAIMCHECK;
    }
    if (n.startsWith("kafka-admin-client-thread") || n.startsWith("harness-")) {
      return Group.HARNESS;
    }
    if (n.startsWith("data-plane-")
        || n.startsWith("kafka-")
        || n.startsWith("broker-")
        || n.startsWith("controller-")
        || n.startsWith("quorum-")
        || n.startsWith("raft-")
        || n.startsWith("ExpirationReaper")
        || n.startsWith("group-coordinator")
        || n.startsWith("LogDirFailureHandler")
        || n.startsWith("ReplicaFetcher")
        || n.startsWith("transaction-")
        || n.startsWith("executor-")
        || n.startsWith("share-")
        || n.startsWith("metrics-meter")) {
      return Group.BROKER;
    }
    return Group.OTHER; // the names are printed per pass: reclassify here if one matters
  }

  /** HotSpot's internal threads' CPU by name, or empty without the export (see the class doc). */
  @SuppressWarnings("unchecked")
  private static Map<String, Long> internalCpu() {
    try {
      Object mbean =
          Class.forName("sun.management.ManagementFactoryHelper")
              .getMethod("getHotspotThreadMBean")
              .invoke(null);
      return (Map<String, Long>)
          Class.forName("sun.management.HotspotThreadMBean")
              .getMethod("getInternalThreadCpuTimes")
              .invoke(mbean);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Map.of();
    }
  }

  static long processCpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
