package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.internal.placement.KeyLayout;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.testkit.EmbeddedKafka;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;

/**
 * The faults of a chaos run and the seeded scheduler that switches them on and off; the scheduler
 * runs on one thread, the rest is immutable.
 *
 * <p>Each {@link Kind} is one line of {@link #KINDS}: it switches a fault on for a set of stores
 * (one or both) and returns what switches it off. The scheduler draws kinds from a shuffled bag
 * (every kind once per round), targets, window lengths and gaps from one {@link Random} seeded by
 * the run's seed: a seed replays the same schedule. A schedule runs at least one whole round, past
 * its end time if need be (by at most {@link #ROUND_GRACE}), so a short run sees every kind.
 */
final class ChaosFaults {

  /** One store of the run: its name, the proxy in front of it and raw access to its objects. */
  record Store(String name, FaultProxy proxy, ChaosStores.Raw raw) {}

  /** What a fault needs besides its stores: the broker, the ledger, a consumer for replays. */
  record World(
      EmbeddedKafka kafka,
      ChaosLedger ledger,
      KafkaConsumer<String, byte[]> replay,
      String topic) {}

  /**
   * How a schedule paces its faults: a gap of {@code minGap} ms up to (not including) {@code
   * maxGap} before each, on for {@code minWindow} up to {@code maxWindow} ms.
   */
  record Pacing(int minGap, int maxGap, int minWindow, int maxWindow) {}

  /**
   * The stores' and the broker's faults: one after another, little time between; a round of the 13
   * kinds takes about 30 s.
   */
  static final Pacing STORE_PACING = new Pacing(200, 800, 800, 2_500);

  /** How long a schedule may run past its end time to finish its first round. */
  static final Duration ROUND_GRACE = Duration.ofSeconds(60);

  /** Switches a fault on; returns what switches it off, or null when it cannot be on yet. */
  interface Injector {
    Runnable on(World world, List<Store> stores, Random random) throws Exception;
  }

  /** One kind of fault: {@code perStore} kinds hit one store or both, the others the world. */
  record Kind(String name, boolean perStore, Injector injector) {}

  private static final String BROKER_RESTART = "broker-restart";

  static final List<Kind> KINDS =
      List.of(
          proxy("down", (p, r) -> p.down()),
          proxy("hang", (p, r) -> p.hang(millis(r, 3_000, 6_000))),
          proxy("slow", (p, r) -> p.hang(millis(r, 100, 600))),
          proxy("503-slowdown", (p, r) -> p.throttle503SlowDown(Duration.ofSeconds(1))),
          proxy("429", (p, r) -> p.throttle429()),
          proxy("403", (p, r) -> p.forbidden403()),
          proxy("reset", (p, r) -> p.reset()),
          proxy("500", (p, r) -> p.inject(Fault.serverError())),
          proxy("fail-twice-500", (p, r) -> p.failTimes(2, Fault.serverError())),
          proxy("html-404", (p, r) -> p.inject(Fault.htmlNotFound())),
          rearmed("corrupt-body", p -> p.failTimes(1, Fault.corruptBody(), "GET")),
          new Kind("corrupt-object", false, ChaosFaults::corruptObject),
          new Kind(BROKER_RESTART, false, ChaosFaults::restartBroker));

  private ChaosFaults() {}

  /** A persistent proxy fault, switched off by clearing the proxy. */
  static Kind proxy(String name, BiConsumer<FaultProxy, Random> on) {
    return new Kind(
        name,
        true,
        (w, stores, r) -> {
          stores.forEach(s -> on.accept(s.proxy(), r));
          return () -> stores.forEach(s -> s.proxy().clear());
        });
  }

  /** A one-shot proxy fault (fail-n-times) armed again every second of its window. */
  static Kind rearmed(String name, Consumer<FaultProxy> arm) {
    return new Kind(
        name,
        true,
        (w, stores, r) -> {
          java.util.concurrent.ScheduledExecutorService timer =
              java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
          timer.scheduleWithFixedDelay(
              () -> stores.forEach(s -> arm.accept(s.proxy())), 0, 1, TimeUnit.SECONDS);
          return () -> {
            timer.shutdownNow();
            stores.forEach(s -> s.proxy().clear());
          };
        });
  }

  static Duration millis(Random r, int min, int max) {
    return Duration.ofMillis(min + r.nextInt(max - min + 1));
  }

  /**
   * Overwrites the pack of one record already read (seeded choice among the older half, so the
   * reader's cache has likely dropped it) directly in its stores, not through the proxy, with one
   * byte flipped in the middle; reads the record once through the product while it is corrupted,
   * and when switched off puts the original back and reads it until it comes back byte-identical.
   * The window is logged per pack, for reconciling CORRUPT answers.
   */
  static Runnable corruptObject(World w, List<Store> all, Random r) {
    List<Long> known = new ArrayList<>(new TreeSet<>(w.ledger().packs.keySet()));
    known.retainAll(w.ledger().positions.keySet());
    if (known.size() < 2) {
      return null; // nothing read yet: the scheduler tries again later
    }
    long id = known.get(r.nextInt(known.size() / 2));
    String pack = w.ledger().packs.get(id);
    String key = KeyLayout.FLAT.key("chaos", PackId.parseHex(pack).value());
    // A pack can be in both stores: a write that hung on one store still lands there after the
    // failover wrote it to the other. Corrupt every copy, or a read would just find the other.
    List<Store> holding = new ArrayList<>();
    List<byte[]> originals = new ArrayList<>();
    for (Store s : all) {
      byte[] bytes = s.raw().get(key);
      if (bytes != null) {
        holding.add(s);
        originals.add(bytes);
      }
    }
    if (holding.isEmpty()) {
      w.ledger().fault("harness-error", "corrupt-object: no store holds " + key);
      return () -> {};
    }
    String names = holding.stream().map(Store::name).collect(Collectors.joining("+"));
    ChaosLedger.Window window = w.ledger().corrupting(pack, names);
    for (int i = 0; i < holding.size(); i++) {
      byte[] altered = originals.get(i).clone();
      altered[altered.length / 2] ^= (byte) 0x5A;
      holding.get(i).raw().put(key, altered);
    }
    for (Store t : holding) { // the altered bytes are what the store now serves
      byte[] now = t.raw().get(key);
      if (java.util.Arrays.equals(now, originals.get(holding.indexOf(t)))) {
        w.ledger()
            .fault(
                "harness-error",
                "corrupt-object: " + t.name() + " still serves the " + "original " + key);
      }
    }
    w.ledger()
        .fault(
            "corrupt-object",
            "corrupt-object: record "
                + id
                + ", "
                + names
                + " "
                + key
                + " ("
                + originals.get(0).length
                + " bytes)");
    long gets = all.stream().mapToLong(st -> st.proxy().requestCount("GET")).sum();
    replay(w, id, false);
    long storeGets = all.stream().mapToLong(st -> st.proxy().requestCount("GET")).sum() - gets;
    ChaosLedger.count(w.ledger().replays, "store GETs while corrupted " + storeGets);
    return () -> {
      for (int i = 0; i < holding.size(); i++) {
        holding.get(i).raw().put(key, originals.get(i));
      }
      window.end = System.nanoTime();
      replay(w, id, true);
    };
  }

  /**
   * Reads record {@code id} of the input topic through the product's deserializer: once (while its
   * object is corrupted), or until it arrives (after the restore; not within 20 s is a violation).
   * Every outcome is counted; a value that arrives is verified byte for byte.
   */
  private static void replay(World w, long id, boolean untilRead) {
    String phase = untilRead ? "after restore" : "while corrupted";
    long[] pos = w.ledger().positions.get(id);
    TopicPartition tp = new TopicPartition(w.topic(), (int) pos[0]);
    KafkaConsumer<String, byte[]> c = w.replay();
    c.assign(List.of(tp));
    c.seek(tp, pos[1]);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(untilRead ? 20 : 4);
    while (System.nanoTime() < until) {
      try {
        for (ConsumerRecord<String, byte[]> rec : c.poll(Duration.ofMillis(200))) {
          if (rec.offset() == pos[1]) {
            ChaosLedger.count(w.ledger().replays, phase + " read");
            w.ledger().consumed("replay", id, rec.value());
            return;
          }
        }
      } catch (RecordDeserializationException e) {
        ClaimCheckException claim = ClaimCheckDeserializationExceptionHandler.claimFailure(e);
        ChaosLedger.count(w.ledger().replays, phase + " " + (claim == null ? e : claim.reason()));
        if (!untilRead) {
          return;
        }
        c.seek(tp, pos[1]);
        LockSupport.parkNanos(200_000_000L);
      }
    }
    ChaosLedger.count(w.ledger().replays, phase + " no answer");
    if (untilRead) {
      w.ledger()
          .unreadableAfterRestore
          .add(
              "record "
                  + id
                  + " (pack "
                  + w.ledger().packs.get(id)
                  + ") not read within 20 s of its restore");
    }
  }

  static Runnable restartBroker(World w, List<Store> all, Random r) {
    w.kafka().stop();
    return w.kafka()::restart;
  }

  /**
   * Runs the schedule until {@code untilNanos} and at least until every kind of {@code kinds} was
   * switched on once (but no longer than {@link #ROUND_GRACE} past {@code untilNanos}): gap, fault
   * on, window, fault off, and again, paced by {@code pacing}. Returns with every fault of {@code
   * kinds} off (every proxy of {@code stores} cleared; the broker up when {@code kinds} restart
   * it), also when interrupted.
   */
  static void run(
      World w, List<Store> stores, List<Kind> kinds, Pacing pacing, Random r, long untilNanos) {
    List<Kind> bag = new ArrayList<>();
    java.util.Set<String> switchedOn = new java.util.HashSet<>();
    long hardStop = untilNanos + ROUND_GRACE.toNanos();
    try {
      while ((System.nanoTime() < untilNanos || switchedOn.size() < kinds.size())
          && System.nanoTime() < hardStop
          && !Thread.currentThread().isInterrupted()) {
        Thread.sleep(pacing.minGap() + r.nextInt(pacing.maxGap() - pacing.minGap()));
        if (bag.isEmpty()) {
          bag.addAll(kinds);
          Collections.shuffle(bag, r);
        }
        Kind kind = bag.remove(bag.size() - 1);
        List<Store> targets = kind.perStore() ? targets(stores, r) : stores;
        long window = pacing.minWindow() + r.nextInt(pacing.maxWindow() - pacing.minWindow());
        Runnable off;
        try {
          off = kind.injector().on(w, targets, r);
        } catch (Exception e) {
          w.ledger().fault("harness-error", kind.name() + " could not be switched on: " + e);
          continue;
        }
        if (off == null) {
          bag.add(0, kind); // not yet: drawn again last in this round
          continue;
        }
        switchedOn.add(kind.name());
        if (!kind.name().equals("corrupt-object")) {
          w.ledger()
              .fault(
                  kind.name(),
                  kind.name()
                      + (kind.perStore()
                          ? " on "
                              + targets.stream().map(Store::name).collect(Collectors.joining("+"))
                          : "")
                      + " for "
                      + window
                      + " ms");
        }
        try {
          Thread.sleep(window);
        } finally {
          off.run();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stores.forEach(s -> s.proxy().clear());
      if (kinds.stream().anyMatch(k -> k.name().equals(BROKER_RESTART)) && !w.kafka().isRunning()) {
        w.kafka().restart();
      }
    }
  }

  private static List<Store> targets(List<Store> stores, Random r) {
    return r.nextInt(4) == 0 ? stores : List.of(stores.get(r.nextInt(stores.size())));
  }
}
