package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.testkit.Fault;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The hung-store scenario of {@link PeerHarness}: one record per library, every GET to store A held
 * for longer than the consumer's {@code max.poll.interval.ms}; a consumer in a group polls it while
 * the harness watches the group's members (Admin, every 250 ms); not thread-safe.
 *
 * <p>What it shows: the peer's poll blocks for the whole hang and its member is dropped from the
 * group meanwhile (its commit then fails); ours gives up at the poll budget ({@code
 * max.poll.interval.ms × claimcheck.poll.budget.ratio}) with a retriable failure and stays.
 */
final class PeerHang {

  private static final int MAX_POLL_INTERVAL_MS = 10_000;
  private static final long SAMPLE_MS = 250;

  private final PeerRig rig;

  PeerHang(PeerRig rig) {
    this.rig = rig;
  }

  /** Runs it with every GET to store A held {@code hang}; leaves store A passing through. */
  void run(Duration hang) throws InterruptedException {
    String pt = rig.topic("peer-hang");
    String ot = rig.topic("ours-hang");
    rig.send(PeerRig.Lib.PEER, pt, 1).requireAll();
    rig.send(PeerRig.Lib.OURS, ot, 1).requireAll();
    rig.storeA().inject(Fault.hang(hang), "GET");
    ExecutorService member = Executors.newSingleThreadExecutor();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, rig.bootstrapServers()))) {
      System.out.printf(
          "hang (every GET to store A held %,d ms; max.poll.interval.ms %,d; 1 record each)%n",
          hang.toMillis(), MAX_POLL_INTERVAL_MS);
      probe(admin, member, PeerRig.Reader.PEER, pt);
      probe(admin, member, PeerRig.Reader.OURS, ot);
    } finally {
      member.shutdownNow();
      rig.storeA().clear();
    }
  }

  private void probe(Admin admin, ExecutorService member, PeerRig.Reader reader, String topic)
      throws InterruptedException {
    String group = "hang-" + reader + "-" + UUID.randomUUID().toString().substring(0, 8);
    long start = System.nanoTime();
    Future<String[]> polled =
        member.submit(() -> rig.pollInGroup(reader, topic, group, MAX_POLL_INTERVAL_MS));
    long joined = -1;
    long dropped = -1;
    while (!polled.isDone()) {
      int members = members(admin, group);
      long at = System.nanoTime() - start;
      if (members > 0 && joined < 0) {
        joined = at;
      } else if (members == 0 && joined >= 0 && dropped < 0) {
        dropped = at;
      }
      TimeUnit.MILLISECONDS.sleep(SAMPLE_MS);
    }
    String[] r;
    try {
      r = polled.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(reader + ": the member failed", e.getCause());
    }
    System.out.printf(
        "hang: %-4s poll took %,.1f s and %s; member %s; %s%n",
        reader,
        Long.parseLong(r[0]) / 1e9,
        r[1],
        joined < 0
            ? "never seen in the group"
            : dropped < 0
                ? "in the group from " + secs(joined) + " to the end of the poll"
                : "joined at " + secs(joined) + ", DROPPED from the group at " + secs(dropped),
        r[2]);
  }

  private static int members(Admin admin, String group) throws InterruptedException {
    try {
      return admin
          .describeConsumerGroups(List.of(group))
          .all()
          .get(5, TimeUnit.SECONDS)
          .get(group)
          .members()
          .size();
    } catch (ExecutionException | TimeoutException e) {
      return -1; // unknown: this sample counts neither way
    }
  }

  private static String secs(long nanos) {
    return String.format("%.1f s", nanos / 1e9);
  }
}
