package io.ankusa.claimcheck.benchmarks;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The serialize and deserialize loops {@link DropInHarness} times, against the Kafka serde API
 * alone, so one copy runs on our Kafka clients and another, in a {@link PeerClassLoader}, on the
 * peer's; stateless, so thread-safe. Signatures use JDK types only (records cross loaders as {@code
 * Object}).
 *
 * <p>Only the calls are timed: {@code serialize} and {@code deserialize}, one value at a time, in
 * order; the SHA-256 of each value after its call, compared with the expected one, is not. Opening
 * and closing the serde are outside the phase: a loop waits on {@code ready} once its serde is
 * configured and on {@code done} after its last call, before closing it, so a harness running
 * several loops at once times the phase from one barrier to the other, as it does a raw client's
 * loop, whose client is built before the phase.
 */
public final class SerdeDriver {

  private SerdeDriver() {}

  /**
   * With a fresh {@code serializerClass} configured by {@code config}, serializes {@code values[i]}
   * for {@code i = from, from + step, …} into {@code out[i]} (an opaque record: headers and bytes);
   * returns the nanoseconds spent in {@code serialize}.
   */
  @SuppressWarnings("unchecked")
  public static long serialize(
      String serializerClass,
      Map<String, Object> config,
      String topic,
      byte[][] values,
      Object[] out,
      int from,
      int step,
      CyclicBarrier ready,
      CyclicBarrier done) {
    ClassLoader before = enter();
    try (Serializer<byte[]> s = (Serializer<byte[]>) instance(serializerClass)) {
      s.configure(config, false);
      await(ready);
      long took = 0;
      for (int i = from; i < values.length; i += step) {
        Headers h = new SimpleHeaders();
        long t0 = System.nanoTime();
        byte[] b = s.serialize(topic, h, values[i]);
        took += System.nanoTime() - t0;
        out[i] = new Object[] {h, b};
      }
      await(done);
      return took;
    } finally {
      Thread.currentThread().setContextClassLoader(before);
    }
  }

  /**
   * With a fresh {@code deserializerClass} configured by {@code config}, deserializes {@code
   * records[i]} for {@code i = from, from + step, …}, each once, in order, and checks each value's
   * SHA-256 against {@code sha256[i]} after its call; returns the nanoseconds spent in {@code
   * deserialize}.
   *
   * @throws AssertionError on a value whose digest differs
   */
  @SuppressWarnings("unchecked")
  public static long deserialize(
      String deserializerClass,
      Map<String, Object> config,
      String topic,
      Object[] records,
      byte[][] sha256,
      int from,
      int step,
      CyclicBarrier ready,
      CyclicBarrier done) {
    ClassLoader before = enter();
    try (Deserializer<byte[]> d = (Deserializer<byte[]>) instance(deserializerClass)) {
      d.configure(config, false);
      MessageDigest sha = sha256();
      await(ready);
      long took = 0;
      for (int i = from; i < records.length; i += step) {
        Object[] r = (Object[]) records[i];
        long t0 = System.nanoTime();
        byte[] v = d.deserialize(topic, (Headers) r[0], (byte[]) r[1]);
        took += System.nanoTime() - t0;
        if (v == null || !Arrays.equals(sha.digest(v), sha256[i])) {
          throw new AssertionError(deserializerClass + ": WRONG BYTES for record " + i);
        }
      }
      await(done);
      return took;
    } finally {
      Thread.currentThread().setContextClassLoader(before);
    }
  }

  /**
   * Waits until every loop of the phase reaches {@code barrier}; a broken barrier (another loop
   * failed) or an interrupt ends this loop too, the interrupt flag restored.
   */
  public static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted at a phase barrier", e);
    } catch (BrokenBarrierException e) {
      throw new IllegalStateException("another loop of the phase failed", e);
    }
  }

  /** Returns the SHA-256 of {@code b}. */
  public static byte[] digest(byte[] b) {
    return sha256().digest(b);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object instance(String name) {
    try {
      return Class.forName(name, true, SerdeDriver.class.getClassLoader())
          .getDeclaredConstructor()
          .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create " + name, e);
    }
  }

  private static ClassLoader enter() {
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    Thread.currentThread().setContextClassLoader(SerdeDriver.class.getClassLoader());
    return before;
  }

  /** Headers of one record, without Kafka's internal implementation class. */
  private static final class SimpleHeaders implements Headers {
    private final List<Header> list = new ArrayList<>(2);

    @Override
    public Headers add(Header header) {
      list.add(header);
      return this;
    }

    @Override
    public Headers add(String key, byte[] value) {
      return add(new SimpleHeader(key, value));
    }

    @Override
    public Headers remove(String key) {
      list.removeIf(h -> h.key().equals(key));
      return this;
    }

    @Override
    public Header lastHeader(String key) {
      for (int i = list.size() - 1; i >= 0; i--) {
        if (list.get(i).key().equals(key)) {
          return list.get(i);
        }
      }
      return null;
    }

    @Override
    public Iterable<Header> headers(String key) {
      List<Header> of = new ArrayList<>();
      for (Header h : list) {
        if (h.key().equals(key)) {
          of.add(h);
        }
      }
      return of;
    }

    @Override
    public Header[] toArray() {
      return list.toArray(new Header[0]);
    }

    @Override
    public Iterator<Header> iterator() {
      return list.iterator();
    }

    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("[");
      for (Header h : list) {
        sb.append(h.key()).append('=').append(new String(h.value(), StandardCharsets.UTF_8));
      }
      return sb.append(']').toString();
    }
  }

  private record SimpleHeader(String key, byte[] value) implements Header {}
}
