package io.ankusa.claimcheck.cli;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code inspect}: decodes one ref, optionally redeems it saying which store answered. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    footer = ExitCodes.FOOTER,
    description = "Decode a ref (base64 or hex, or from a record) and optionally redeem it.")
final class InspectCommand implements Callable<Integer> {

  @Mixin Common common;
  @Spec CommandSpec spec;

  @Parameters(arity = "0..1", paramLabel = "REF", description = "The ref, base64 or hex.")
  String ref;

  @Option(names = "--topic")
  String topic;

  @Option(names = "--partition", defaultValue = "0")
  int partition;

  @Option(names = "--offset", defaultValue = "-1")
  long offset;

  @Option(names = "--key", description = "Take the record's key instead of its value.")
  boolean key;

  @Option(names = "--redeem", description = "Fetch and verify the claim.")
  boolean redeem;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "With --redeem: write the claim here.")
  Path outFile;

  @Override
  public Integer call() throws IOException, InterruptedException {
    byte[] bytes = topic != null ? fromRecord() : parse(ref);
    ClaimRef r;
    try {
      r = RefCodec.decode(bytes);
    } catch (MalformedRefException e) {
      throw new CliException(
          ExitCodes.UNHEALTHY, "not a readable ref (" + e.reason() + "): " + e.getMessage());
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("version", r.version());
    m.put("tenant", r.tenant().value());
    m.put("pack_id", r.packId().hex());
    m.put("index", r.claimId().index());
    m.put("offset", r.offset());
    m.put("length", r.length());
    m.put("codec", r.codec().name().toLowerCase(java.util.Locale.ROOT));
    m.put("checksum", String.format("%08x", r.checksum()));
    m.put("encrypted", r.isEncrypted());
    int code = ExitCodes.OK;
    if (redeem) {
      code = redeem(r, m);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (common.json) {
      out.println(Json.write(m));
    } else {
      m.forEach((k, v) -> out.printf("%-10s %s%n", k, v));
    }
    return code;
  }

  private int redeem(ClaimRef r, Map<String, Object> m) throws IOException, InterruptedException {
    CliConfig config = common.load();
    List<String> keys = config.claimCheck().packKeys(r.tenant().value(), r.packId().value());
    List<String> misses = new ArrayList<>();
    List<ClaimStore> stores = config.openStores();
    try {
      search:
      for (String k : keys) {
        for (int i = 0; i < stores.size(); i++) {
          try {
            byte[] stored =
                stores
                    .get(i)
                    .getRange(
                        k,
                        r.offset(),
                        (int) Math.min(r.length(), Integer.MAX_VALUE - 8), // a v4 ref: long
                        Duration.ofSeconds(30))
                    .get(31, TimeUnit.SECONDS);
            if (r.matches(stored)) {
              if (r.isEncrypted()) {
                m.put("kek_id", kekId(stored));
              }
              m.put(
                  "answered_by",
                  Map.of("store", i, "location", stores.get(i).describe(), "key", k));
              break search;
            }
            misses.add("store " + i + " " + k + ": bytes do not match the ref (corrupt)");
          } catch (ExecutionException | TimeoutException e) {
            misses.add("store " + i + " " + k + ": " + StoreException.of(e).getMessage());
          }
        }
      }
    } finally {
      CliConfig.close(stores);
    }
    m.put("misses", misses);
    try (ClaimCheck cc = ClaimCheck.open(config.all())) {
      byte[] claim = cc.redeem(r, cc.ticker().read() + cc.config().readDeadline().toNanos()).get();
      m.put("redeemed", true);
      m.put("raw_length", claim.length);
      if (outFile != null) {
        Files.write(outFile, claim);
        m.put("out", outFile.toString());
      }
      return ExitCodes.OK;
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      m.put("redeemed", false);
      m.put("failure", c instanceof ClaimCheckFailure f ? f.reason().name() : "UNAVAILABLE");
      m.put("failure_message", String.valueOf(c.getMessage()));
      return ExitCodes.UNHEALTHY;
    }
  }

  /**
   * The KEK id in an encrypted claim's envelope header (docs/wire-format.md, section 5a: magic
   * "AKEN", version, AEAD id, KEK id length, KEK id), or why it cannot be read.
   */
  static String kekId(byte[] envelope) {
    if (envelope.length < 7
        || envelope[0] != 'A'
        || envelope[1] != 'K'
        || envelope[2] != 'E'
        || envelope[3] != 'N') {
      return "(not an envelope: magic missing)";
    }
    int k = envelope[6] & 0xff;
    if (k == 0 || envelope.length < 7 + k) {
      return "(envelope truncated)";
    }
    return new String(envelope, 7, k, java.nio.charset.StandardCharsets.UTF_8);
  }

  private byte[] fromRecord() {
    if (offset < 0) {
      throw new CliException(ExitCodes.USAGE, "--topic needs --offset (and --partition)");
    }
    CliConfig config = common.load();
    Map<String, Object> c = new HashMap<>();
    config
        .all()
        .forEach(
            (k, v) -> {
              if (!ClaimCheckConfig.isClaimCheckKey(k)) {
                c.put(k, v);
              }
            });
    c.remove(ConsumerConfig.GROUP_ID_CONFIG);
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    TopicPartition tp = new TopicPartition(topic, partition);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
      consumer.assign(List.of(tp));
      consumer.seek(tp, offset);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < until) {
        for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(Duration.ofMillis(500))) {
          if (rec.offset() == offset) {
            byte[] field = key ? rec.key() : rec.value();
            if (field == null) {
              throw new CliException(
                  ExitCodes.UNHEALTHY,
                  tp + "@" + offset + " has a null " + (key ? "key" : "value"));
            }
            return field;
          }
          throw new CliException(
              ExitCodes.UNHEALTHY,
              tp + " has no record at offset " + offset + " (next is " + rec.offset() + ")");
        }
      }
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new CliException(ExitCodes.ERROR, "cannot read " + tp + "@" + offset + ": " + e);
    }
    throw new CliException(ExitCodes.ERROR, "no record at " + tp + "@" + offset + " within 30 s");
  }

  static byte[] parse(String text) {
    if (text == null) {
      throw new CliException(ExitCodes.USAGE, "give a REF (base64 or hex) or --topic/--offset");
    }
    String t = text.trim();
    if (t.length() % 2 == 0 && t.matches("[0-9a-fA-F]+")) {
      return HexFormat.of().parseHex(t);
    }
    try {
      return Base64.getDecoder().decode(t);
    } catch (IllegalArgumentException e) {
      try {
        return Base64.getUrlDecoder().decode(t);
      } catch (IllegalArgumentException e2) {
        throw new CliException(ExitCodes.USAGE, "REF is neither hex nor base64");
      }
    }
  }
}
