package io.ankusa.claimcheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI driven through its picocli entry point in-process (stdout, stderr and exit code captured)
 * against a real broker and S3Proxy behind the fault proxy; and the built jar run once as a real
 * process.
 */
class CliIT {

  private static FaultProxy proxy;
  private static String bucket;
  private static KafkaProducer<byte[], byte[]> producer;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    bucket = EmbeddedS3.shared().createBucket(unique("cli"));
    proxy = FaultProxy.inFrontOf(EmbeddedS3.shared());
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.shared().bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(p);
  }

  @AfterAll
  static void stop() {
    producer.close();
    proxy.close();
    GcCommand.clock = Clock.systemUTC();
  }

  @Test
  void scanReportsADeletedPackAsDanglingAndACorruptedOneAsCorrupt() throws Exception {
    String tenant = unique("t");
    String topic = unique("scan");
    EmbeddedKafka.shared().createTopic(topic, 2);
    Map<String, Object> config = config(tenant);
    List<ClaimRef> refs = new ArrayList<>();
    try (ClaimCheck cc = ClaimCheck.open(config)) {
      for (int i = 0; i < 5; i++) {
        ClaimRef ref = cc.checkIn(payload(i));
        refs.add(ref);
        send(topic, RefCodec.encode(ref));
      }
    }
    try (ClaimStore store = new ClaimCheckConfig(config).stores().get(0).open()) {
      String gone = key(refs.get(1));
      store.delete(gone, Duration.ofSeconds(10)).get();
      String bad = key(refs.get(2));
      byte[] pack = store.getRange(bad, 0, 1 << 20, Duration.ofSeconds(10)).get();
      pack[(int) refs.get(2).offset()] ^= 0x5a;
      store.delete(bad, Duration.ofSeconds(10)).get();
      store.putIfAbsent(bad, pack, Duration.ofSeconds(10)).get();
    }
    Result r = cli("scan", "--config", file(config), "--topics", topic, "--json");
    assertThat(r.code).as(r.err).isEqualTo(ExitCodes.UNHEALTHY);
    assertThat(r.out)
        .contains(
            "\"refs\":5",
            "\"redeemed\":3",
            "\"dangling\":1",
            "\"corrupt\":1",
            "\"complete\":true",
            refs.get(1).claimId().toString(),
            refs.get(2).claimId().toString());

    Result inspect =
        cli(
            "inspect",
            HexFormat.of().formatHex(RefCodec.encode(refs.get(0))),
            "--config",
            file(config),
            "--redeem",
            "--json");
    assertThat(inspect.code).as(inspect.err).isEqualTo(ExitCodes.OK);
    assertThat(inspect.out)
        .contains(
            "\"tenant\":\"" + tenant + "\"",
            "\"redeemed\":true",
            "\"answered_by\"",
            key(refs.get(0)));
  }

  @Test
  void gcDryRunThenDeleteThenStoreDownExitsNonZeroDeletingNothing() throws Exception {
    String tenant = unique("t");
    String topic = unique("gc");
    EmbeddedKafka.shared().createTopic(topic, 1);
    Map<String, Object> config = config(tenant);
    ClaimRef kept;
    ClaimRef orphan;
    ClaimRef orphan2;
    try (ClaimCheck cc = ClaimCheck.open(config)) {
      kept = cc.checkIn(payload(1));
      orphan = cc.checkIn(payload(2));
      orphan2 = cc.checkIn(payload(3));
      send(topic, RefCodec.encode(kept));
    }
    String file = file(config);

    Result tooShort = cli("gc", "--config", file, "--topics", topic, "--grace", "5m");
    assertThat(tooShort.code).isEqualTo(ExitCodes.USAGE);
    assertThat(tooShort.err).contains("under the minimum of 10 minutes");

    GcCommand.clock = Clock.offset(Clock.systemUTC(), Duration.ofHours(2));
    try {
      Result dry = cli("gc", "--config", file, "--topics", topic, "--json");
      assertThat(dry.code).as(dry.err).isEqualTo(ExitCodes.OK);
      assertThat(dry.out)
          .contains(
              "\"dry_run\":true",
              "\"scanned_records\":1",
              "\"live_packs\":1",
              "\"deletable_packs\":2",
              "\"deleted_packs\":0",
              "\"deletable_bytes\":");

      proxy.down();
      Result down = cli("gc", "--config", file, "--topics", topic, "--delete", "--json");
      proxy.up();
      assertThat(down.code).isEqualTo(ExitCodes.INCOMPLETE);
      assertThat(down.err).contains("nothing deleted", "could not be listed");
      assertThat(down.out).contains("\"status\":\"aborted\"", "\"deleted_packs\":0");

      Result del = cli("gc", "--config", file, "--topics", topic, "--delete", "--json");
      assertThat(del.code).as(del.err).isEqualTo(ExitCodes.OK);
      assertThat(del.out).contains("\"deleted_packs\":2", key(orphan), key(orphan2));
    } finally {
      GcCommand.clock = Clock.systemUTC();
    }
    Result du = cli("du", "--config", file, "--tenant", tenant, "--topics", topic, "--json");
    assertThat(du.code).as(du.err).isEqualTo(ExitCodes.OK);
    assertThat(du.out).contains("\"tenant\":\"" + tenant + "\"", "\"packs\":1", "\"live_packs\":1");
  }

  /**
   * The case as a user runs it: refs inside other bytes (a Streams-style value holding a
   * ref after a length prefix, a header a Streams app forwarded) were invisible to {@code scan} and
   * {@code gc}, which deleted their packs; and {@code scan} kept every problem in memory.
   */
  @Test
  void scanAndGcFindRefsInsideOtherBytesAndScanListsOnlyTheFirstProblems() throws Exception {
    String tenant = unique("t");
    String topic = unique("embedded");
    EmbeddedKafka.shared().createTopic(topic, 2);
    Map<String, Object> config = config(tenant);
    ClaimRef inChange;
    ClaimRef inHeader;
    ClaimRef orphan;
    try (ClaimCheck cc = ClaimCheck.open(config)) {
      inChange = cc.checkIn(payload(1));
      inHeader = cc.checkIn(payload(2));
      orphan = cc.checkIn(payload(3));
    }
    byte[] ref = RefCodec.encode(inChange);
    byte[] change = new byte[4 + ref.length + 5];
    change[3] = (byte) ref.length;
    System.arraycopy(ref, 0, change, 4, ref.length);
    producer.send(new ProducerRecord<>(topic, null, change)).get(30, TimeUnit.SECONDS);
    ProducerRecord<byte[], byte[]> forwarded =
        new ProducerRecord<>(topic, null, "inline".getBytes(StandardCharsets.UTF_8));
    forwarded.headers().add("forwarded", RefCodec.encode(inHeader));
    producer.send(forwarded).get(30, TimeUnit.SECONDS);
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 40; i++) { // refs to packs that were never written
      send(
          topic,
          RefCodec.encode(
              ClaimRef.of(
                  io.ankusa.claimcheck.ref.Tenant.of(tenant),
                  new io.ankusa.claimcheck.ref.ClaimId(
                      new io.ankusa.claimcheck.ref.PackId(random.nextLong()), 0),
                  64,
                  10,
                  0,
                  io.ankusa.claimcheck.ref.Codec.NONE)));
    }
    String file = file(config);

    Result scan = cli("scan", "--config", file, "--topics", topic, "--max-problems", "3", "--json");
    assertThat(scan.code).as(scan.err).isEqualTo(ExitCodes.UNHEALTHY);
    assertThat(scan.out)
        .contains(
            "\"refs\":42",
            "\"redeemed\":2",
            "\"dangling\":40",
            "\"problem_records\":40",
            "\"complete\":true");
    assertThat(scan.out.split("\"outcome\":", -1)).as("3 problems listed").hasSize(4);

    // T0 2 s on: the sweep takes a listed time as up to 1 s later (S3 lists to the second), and
    // the orphan was written just now.
    GcCommand.clock = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(2));
    Result gc;
    try {
      gc =
          cli(
              "gc",
              "--config",
              file,
              "--topics",
              topic,
              "--grace",
              "0s",
              "--force",
              "--delete",
              "--json");
    } finally {
      GcCommand.clock = Clock.systemUTC();
    }
    assertThat(gc.code).as(gc.err).isEqualTo(ExitCodes.OK);
    assertThat(gc.out)
        .contains("\"deleted_packs\":1", key(orphan))
        .doesNotContain(key(inChange), key(inHeader));
    try (ClaimCheck cc = ClaimCheck.open(config)) {
      long deadline = cc.ticker().read() + TimeUnit.SECONDS.toNanos(20);
      assertThat(cc.redeem(inChange, deadline).get()).isEqualTo(payload(1));
      assertThat(cc.redeem(inHeader, deadline).get()).isEqualTo(payload(2));
    }
  }

  @Test
  void inspectShowsTheKekOfAnEncryptedClaimOnATopicWithOrWithoutTheKey() throws Exception {
    String tenant = unique("t");
    String topic = unique("enc");
    EmbeddedKafka.shared().createTopic(topic, 1);
    Path key = dir.resolve("kek.json");
    assertThat(cli("keys", "new", "--out", key.toString()).code).isEqualTo(ExitCodes.OK);
    Map<String, Object> plain = config(tenant);
    Map<String, Object> withKey = new HashMap<>(plain);
    withKey.put("claimcheck.encryption.kek", "local:" + key);
    try (ClaimCheck cc = ClaimCheck.open(withKey)) {
      ClaimRef ref = cc.checkIn(payload(0));
      assertThat(ref.isEncrypted()).isTrue();
      send(topic, RefCodec.encode(ref));
    }
    String kekId = "\"kek_id\":\"local:" + key + "\"";
    Result with =
        cli(
            "inspect",
            "--topic",
            topic,
            "--partition",
            "0",
            "--offset",
            "0",
            "--redeem",
            "--config",
            file(withKey),
            "--json");
    assertThat(with.code).as(with.err).isEqualTo(ExitCodes.OK);
    assertThat(with.out).contains("\"encrypted\":true", kekId, "\"redeemed\":true");
    // Without the key, inspect still names the KEK the claim needs, and redeems nothing.
    Result without =
        cli(
            "inspect",
            "--topic",
            topic,
            "--partition",
            "0",
            "--offset",
            "0",
            "--redeem",
            "--config",
            file(plain),
            "--json");
    assertThat(without.code).as(without.err).isEqualTo(ExitCodes.UNHEALTHY);
    assertThat(without.out)
        .contains(kekId, "\"redeemed\":false", "\"failure\":\"REFUSED\"")
        .doesNotContain("cli-payload-0");
    Result scan = cli("scan", "--config", file(withKey), "--topics", topic, "--json");
    assertThat(scan.code).as(scan.err).isEqualTo(ExitCodes.OK);
    assertThat(scan.out).contains("\"refs\":1", "\"redeemed\":1");
  }

  @Test
  void unknownClaimcheckKeyIsAConfigError() throws Exception {
    Map<String, Object> config = config(unique("t"));
    config.put("claimcheck.treshold.bytes", "5");
    Result r = cli("du", "--config", file(config));
    assertThat(r.code).isEqualTo(ExitCodes.CONFIG);
    assertThat(r.err).contains("claimcheck.treshold.bytes", "unknown claimcheck key");
  }

  @Test
  void theBuiltJarRunsAsAProcess() throws Exception {
    Path jar = Path.of("target", "claimcheck-cli.jar");
    assertThat(jar).exists();
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString(),
                "lifecycle",
                "--json")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out.trim())
        .startsWith("{\"Rules\":[")
        .contains("\"AbortIncompleteMultipartUpload\":{\"DaysAfterInitiation\":1}")
        .doesNotContain("Expiration");
  }

  // --- helpers

  private record Result(int code, String out, String err) {}

  private static Result cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        ClaimCheckCli.run(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            args);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private String file(Map<String, Object> config) throws Exception {
    Path f = Files.createTempFile(dir, "claimcheck", ".properties");
    StringBuilder sb = new StringBuilder();
    config.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    sb.append("bootstrap.servers=").append(EmbeddedKafka.shared().bootstrapServers()).append('\n');
    Files.writeString(f, sb.toString());
    return f.toString();
  }

  private static Map<String, Object> config(String tenant) {
    Map<String, Object> m =
        EmbeddedS3.shared().claimCheckConfig("s3://" + bucket, proxy.endpoint());
    m.put("claimcheck.tenant", tenant);
    // A loaded machine once let one of 160 store reads pass the 10 s default, turning a dangling
    // ref into an unreadable one (retriable, and counted so): give each read room, not the answer.
    m.put("claimcheck.store.op.deadline.ms", "30000");
    return m;
  }

  private static String key(ClaimRef ref) {
    return KeyLayout.FLAT.key(ref.tenant().value(), ref.packId().value());
  }

  private static void send(String topic, byte[] ref) throws Exception {
    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, null, ref);
    r.headers().add("ankusa.claimcheck.value", new byte[] {'1'});
    producer.send(r).get(30, TimeUnit.SECONDS);
  }

  private static byte[] payload(int i) {
    return ("cli-payload-" + i + "-" + "y".repeat(200)).getBytes(StandardCharsets.UTF_8);
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
