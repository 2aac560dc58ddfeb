package io.ankusa.claimcheck.kafka.producer;

import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Error}s (an {@code OutOfMemoryError}, ...) that hit records of a {@link
 * ClaimCheckProducer}, kept until a {@code flush} or {@code close} reports them, and the one that
 * failed the producer for good; thread-safe.
 *
 * <p>An Error is never swallowed: it is logged when noted, settles its record (future and callback
 * get a {@link KafkaException} whose cause it is), and is thrown — wrapped the same way — by the
 * first {@code flush} that waited for that record, else by {@code close}. A fatal Error (one after
 * which the inner producer's state is unknown) is in addition thrown by every later {@code send},
 * {@code flush}, {@code commitTransaction} and {@code close}. At most {@value #KEPT} unreported
 * Errors are kept; the rest are counted in the report's message.
 */
final class ProducerErrors {

  private static final Logger LOG = LoggerFactory.getLogger(ProducerErrors.class);
  static final int KEPT = 16;

  private final TreeMap<Long, Throwable> unreported = new TreeMap<>(); // guarded by this
  private long dropped; // guarded by this
  private volatile Throwable fatal;

  /** Notes {@code error}, which hit the record numbered {@code seq}; logs it. */
  void note(long seq, Throwable error, String where) {
    synchronized (this) {
      try {
        if (unreported.size() < KEPT) {
          unreported.putIfAbsent(seq, error);
        } else {
          dropped++;
        }
      } catch (Throwable again) { // no memory for the entry: counted, so close still reports
        dropped++;
      }
    }
    log(error, where);
  }

  /** Fails the producer for good because of {@code error} (the first such Error wins). */
  void fatal(Throwable error) {
    synchronized (this) {
      if (fatal == null) {
        fatal = error;
      }
    }
  }

  /** Whether an Error failed the producer for good. */
  boolean failed() {
    return fatal != null;
  }

  /** What every call on a producer failed for good throws (null while it is not). */
  KafkaException failure() {
    Throwable f = fatal;
    return f == null
        ? null
        : new KafkaException(
            "this producer failed for good: "
                + f
                + " was thrown while handing a record to the inner producer, whose state is now unknown;"
                + " close it and create a new one",
            f);
  }

  /** Takes the Errors noted for records numbered up to {@code mark}: one exception, or null. */
  KafkaException takeUpTo(long mark) {
    Throwable[] errors;
    long more;
    synchronized (this) {
      Map<Long, Throwable> head = unreported.headMap(mark, true);
      more = head.size() == unreported.size() ? dropped : 0; // unnumbered ones go with the last
      if (head.isEmpty() && more == 0) {
        return null;
      }
      errors = head.values().toArray(new Throwable[0]);
      head.clear();
      dropped -= more;
    }
    if (errors.length == 0) {
      return new KafkaException(more + " record(s) failed with an Error (not kept: see the log)");
    }
    KafkaException e =
        new KafkaException(
            errors.length
                + (more > 0 ? " (and " + more + " more)" : "")
                + " record(s) failed with an Error, the first: "
                + errors[0],
            errors[0]);
    for (int i = 1; i < errors.length; i++) {
      e.addSuppressed(errors[i]);
    }
    return e;
  }

  /** Takes every Error not yet reported (null when none), else the fatal one's failure. */
  KafkaException takeAll() {
    KafkaException e = takeUpTo(Long.MAX_VALUE);
    return e != null ? e : failure();
  }

  private static void log(Throwable error, String where) {
    try {
      LOG.error("{}; the next flush or close reports it", where, error);
    } catch (Throwable ignored) { // logging may fail too when memory is short; the report stands
    }
  }
}
