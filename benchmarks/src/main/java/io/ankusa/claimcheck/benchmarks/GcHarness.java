package io.ankusa.claimcheck.benchmarks;

import io.ankusa.claimcheck.collect.Collector;
import io.ankusa.claimcheck.collect.GcOptions;
import io.ankusa.claimcheck.collect.GcReport;
import io.ankusa.claimcheck.collect.Progress;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.time.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The collector's cost: a topic of N ref records (marked), optionally as many inline records of B
 * random bytes (no ref: the mark scans every byte of them), and P unreferenced packs in S3Proxy
 * (listed, then deleted in batches of 1000). Prints records/s marked, packs/s listed and deleted.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.ankusa.claimcheck.benchmarks.GcHarness 100000 10000 6
 * #   args: ref records, unreferenced packs, partitions[, inline value bytes B (0: none)]
 * </pre>
 */
public final class GcHarness {

  private GcHarness() {}

  public static void main(String[] args) throws Exception {
    int refs = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int orphans = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
    int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 6;
    int inlineBytes = args.length > 3 ? Integer.parseInt(args[3]) : 0;
    String tenant = "bench";
    String topic = "gc-bench";
    try (EmbeddedKafka kafka = EmbeddedKafka.start();
        EmbeddedS3 s3 = EmbeddedS3.start()) {
      String bucket = s3.createBucket("gc-bench");
      Map<String, Object> cc = s3.claimCheckConfig("s3://" + bucket);
      cc.put("claimcheck.tenant", tenant);
      kafka.createTopic(topic, partitions);
      SplittableRandom random = new SplittableRandom(42);
      Map<String, Object> p = new HashMap<>();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
        for (int i = 0; i < refs; i++) {
          ClaimRef ref =
              ClaimRef.of(
                  Tenant.of(tenant),
                  new ClaimId(new PackId(random.nextLong()), 0),
                  64,
                  1000,
                  0,
                  Codec.NONE);
          ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, RefCodec.encode(ref));
          r.headers().add("ankusa.claimcheck.value", new byte[] {'1'});
          producer.send(r);
          if (inlineBytes > 0) {
            byte[] inline = new byte[inlineBytes];
            for (int b = 0; b < inlineBytes; b += 8) {
              long v = random.nextLong();
              for (int k = 0; k < 8 && b + k < inlineBytes; k++) {
                inline[b + k] = (byte) (v >>> (8 * k));
              }
            }
            producer.send(new ProducerRecord<>(topic, inline));
          }
        }
        producer.flush();
      }
      List<ClaimStore> stores = List.of(new ClaimCheckConfig(cc).stores().get(0).open());
      Semaphore inFlight = new Semaphore(64);
      List<CompletableFuture<Void>> puts = new ArrayList<>();
      long w0 = System.nanoTime();
      for (int i = 0; i < orphans; i++) {
        KeyLayout layout = i % 2 == 0 ? KeyLayout.FLAT : KeyLayout.SHARDED;
        inFlight.acquire();
        puts.add(
            stores
                .get(0)
                .putIfAbsent(
                    layout.key(tenant, random.nextLong()), new byte[256], Duration.ofSeconds(30))
                .whenComplete((v, e) -> inFlight.release()));
      }
      CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
      System.out.printf(
          "setup: %d ref records produced, %d packs written in %.1f s%n",
          refs, orphans, (System.nanoTime() - w0) / 1e9);
      Collector collector =
          Collector.create(
              Map.of("bootstrap.servers", kafka.bootstrapServers()),
              stores,
              Clock.offset(Clock.systemUTC(), Duration.ofHours(2)),
              Ticker.system());
      Pattern scope = Pattern.compile(topic);
      for (int round = 0; round < 2; round++) {
        GcReport dry = collector.run(GcOptions.of(tenant, scope), Progress.NONE);
        print("dry run " + round, dry);
      }
      GcReport del = collector.run(GcOptions.of(tenant, scope).withDelete(true), Progress.NONE);
      print("delete", del);
      stores.forEach(ClaimStore::close);
    }
  }

  private static void print(String what, GcReport r) {
    double mark = r.elapsed().get(0).toNanos() / 1e9;
    double list = r.elapsed().get(1).toNanos() / 1e9;
    System.out.printf(
        "%s: %s; marked %d records in %.2f s (%.0f records/s); listed %d packs in"
            + " %.2f s (%.0f packs/s)",
        what,
        r.status(),
        r.scannedRecords(),
        mark,
        r.scannedRecords() / mark,
        r.listedPacks(),
        list,
        r.listedPacks() / list);
    if (r.elapsed().size() > 2) {
      double sweep = r.elapsed().get(2).toNanos() / 1e9;
      System.out.printf(
          "; deleted %d packs in %.2f s (%.0f packs/s)",
          r.deleted().size(), sweep, r.deleted().size() / sweep);
    }
    System.out.println();
  }
}
