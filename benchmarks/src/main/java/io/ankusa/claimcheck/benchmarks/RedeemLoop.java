package io.ankusa.claimcheck.benchmarks;

import com.sun.management.ThreadMXBean;
import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One thread redeeming the same N claims over and over through the facade's blocking redeem (the
 * drop-in deserializer's path), S3Proxy in this JVM on loopback, the cache off: every 5 s the MiB/s
 * and the redeeming thread's own CPU per MiB; for a profiler to attach to a steady state ({@code
 * perf record -p PID} once it prints {@code READY}). Args: {@code size count none|local seconds
 * [redeem|checkin]}; {@code local} encrypts under a fresh {@code local:} key; {@code checkin} loops
 * the facade's check-in of the same values instead (the drop-in serializer's path; S3Proxy keeps
 * every object in this JVM's heap, so keep such runs short). Not thread-safe.
 */
public final class RedeemLoop {

  private static final long FIVE_SECONDS = 5_000_000_000L;

  private RedeemLoop() {}

  public static void main(String[] args) throws Exception {
    int size = Integer.parseInt(args[0]);
    int count = Integer.parseInt(args[1]);
    String kek = args[2];
    long seconds = Long.parseLong(args[3]);
    boolean checkIns = args.length > 4 && args[4].equals("checkin");
    EmbeddedS3 s3 = EmbeddedS3.start();
    s3.createBucket("loop");
    Map<String, Object> m = s3.claimCheckConfig("s3://loop/p");
    m.put("claimcheck.cache.max.bytes", "0");
    if (kek.equals("local")) {
      Path key = Files.createTempFile("redeem-loop", ".key");
      key.toFile().deleteOnExit();
      Files.writeString(key, LocalKekProvider.newKeyFile());
      m.put("claimcheck.encryption.kek", "local:" + key);
    }
    try (ClaimCheck cc = ClaimCheck.open(m)) {
      List<ClaimRef> refs = new ArrayList<>();
      List<byte[]> values = new ArrayList<>();
      Random r = new Random(1);
      for (int i = 0; i < count; i++) {
        byte[] v = new byte[size];
        r.nextBytes(v);
        values.add(v);
        refs.add(cc.checkIn(v));
      }
      ThreadMXBean cpu = (ThreadMXBean) ManagementFactory.getThreadMXBean();
      long tid = Thread.currentThread().getId();
      System.out.println("READY pid " + ProcessHandle.current().pid());
      long end = System.nanoTime() + seconds * 1_000_000_000L;
      int next = 0;
      long check = 0;
      while (System.nanoTime() < end) {
        long t0 = System.nanoTime();
        long c0 = cpu.getThreadCpuTime(tid);
        long bytes = 0;
        while (System.nanoTime() - t0 < FIVE_SECONDS) {
          if (checkIns) {
            check += cc.checkIn(values.get(next++ % count)).length();
            bytes += size;
            continue;
          }
          byte[] v =
              cc.redeemBlocking(refs.get(next++ % count), cc.ticker().read() + 30 * 1_000_000_000L);
          check += v[v.length - 1];
          bytes += v.length;
        }
        double mib = bytes / 1048576.0;
        System.out.printf(
            "%s %s %d B: %.0f MiB/s, calling thread CPU %.3f ms/MiB%n",
            kek,
            checkIns ? "checkin" : "redeem",
            size,
            mib / ((System.nanoTime() - t0) / 1e9),
            (cpu.getThreadCpuTime(tid) - c0) / 1e6 / mib);
      }
      System.out.println("(check " + check + ")");
    } finally {
      s3.close();
    }
  }
}
