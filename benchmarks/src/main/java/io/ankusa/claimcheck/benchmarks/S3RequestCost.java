package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What the two request shapes our S3 store uses cost against the plain ones a raw client sends, on
 * the same server: a PUT with {@code If-None-Match: *} (our put-if-absent) against a plain PUT, and
 * a ranged GET (our reads of one claim of a pack) against a whole-object GET; one thread, the sync
 * SDK client of {@code DropInHarness}'s {@code raw-sync} ({@link RawClients#sync}), S3Proxy in this
 * JVM. Each pair runs A B B A per round after one warm-up round; prints each leg's mean µs per call
 * and the medians. Args: {@code sizes(comma-separated bytes) secondsPerLeg rounds}. Not
 * thread-safe.
 */
public final class S3RequestCost {

  private static final String BUCKET = "cost";
  private static final int HEADER = 47; // about a one-claim pack's header and index

  private S3RequestCost() {}

  public static void main(String[] args) {
    int[] sizes = Arrays.stream(args[0].split(",")).mapToInt(Integer::parseInt).toArray();
    long legNanos = (long) (Double.parseDouble(args[1]) * 1e9);
    int rounds = Integer.parseInt(args[2]);
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Client client = RawClients.sync(s3, s3.endpoint())) {
      s3.createBucket(BUCKET);
      for (int size : sizes) {
        byte[] value = new byte[size + HEADER];
        new Random(size).nextBytes(value);
        client.putObject(b -> b.bucket(BUCKET).key("get/" + size), RequestBody.fromBytes(value));
        Leg[] legs = {
          new Leg("put", () -> put(client, value, false), () -> deleteLast(client)),
          new Leg("put If-None-Match", () -> put(client, value, true), () -> deleteLast(client)),
          new Leg("get whole", () -> get(client, size, null), () -> {}),
          new Leg(
              "get range",
              () -> get(client, size, "bytes=" + HEADER + "-" + (size + HEADER - 1)),
              () -> {})
        };
        for (int round = 0; round <= rounds; round++) {
          boolean warmUp = round == 0;
          for (int pair = 0; pair < legs.length; pair += 2) {
            Leg a = legs[pair];
            Leg b = legs[pair + 1];
            for (Leg leg : new Leg[] {a, b, b, a}) {
              double us = leg.run(legNanos);
              if (!warmUp) {
                leg.means.add(us);
              }
            }
          }
          System.out.printf("%d B round %s done%n", size, warmUp ? "warm-up" : round);
        }
        for (int pair = 0; pair < legs.length; pair += 2) {
          double a = legs[pair].median();
          double b = legs[pair + 1].median();
          System.out.printf(
              "%d B: %-18s %8.1f µs  %-18s %8.1f µs  ratio %.3f  (legs %s / %s)%n",
              size,
              legs[pair].name,
              a,
              legs[pair + 1].name,
              b,
              b / a,
              legs[pair].means,
              legs[pair + 1].means);
        }
      }
    }
  }

  private static long keys;

  private static void put(S3Client client, byte[] value, boolean ifNoneMatch) {
    String key = "put/" + ++keys;
    client.putObject(
        b -> b.bucket(BUCKET).key(key).ifNoneMatch(ifNoneMatch ? "*" : null),
        RequestBody.fromBytes(value));
  }

  /** Deletes the object the last PUT wrote: the in-memory server would otherwise fill up. */
  private static void deleteLast(S3Client client) {
    client.deleteObject(b -> b.bucket(BUCKET).key("put/" + keys));
  }

  private static void get(S3Client client, int size, String range) {
    ResponseBytes<?> r =
        client.getObject(
            b -> b.bucket(BUCKET).key("get/" + size).range(range), ResponseTransformer.toBytes());
    if (r.asByteArrayUnsafe().length != (range == null ? size + HEADER : size)) {
      throw new IllegalStateException("a short answer: " + r.asByteArrayUnsafe().length);
    }
  }

  /** One kind of call: its mean µs per call in each measured leg. */
  private static final class Leg {
    final String name;
    final Runnable call;
    final Runnable untimed;
    final List<Double> means = new ArrayList<>();

    Leg(String name, Runnable call, Runnable untimed) {
      this.name = name;
      this.call = call;
      this.untimed = untimed;
    }

    /** Calls for {@code nanos}, {@code untimed} after each; the mean µs per call. */
    double run(long nanos) {
      long took = 0;
      long calls = 0;
      long end = System.nanoTime() + nanos;
      while (System.nanoTime() < end) {
        long t0 = System.nanoTime();
        call.run();
        took += System.nanoTime() - t0;
        calls++;
        untimed.run();
      }
      return took / 1e3 / calls;
    }

    double median() {
      double[] m = means.stream().mapToDouble(Double::doubleValue).sorted().toArray();
      return m.length % 2 == 1 ? m[m.length / 2] : (m[m.length / 2 - 1] + m[m.length / 2]) / 2;
    }
  }
}
