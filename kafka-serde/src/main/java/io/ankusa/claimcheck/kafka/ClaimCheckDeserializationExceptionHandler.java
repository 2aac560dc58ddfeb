package io.ankusa.claimcheck.kafka;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Streams deserialization exception handler that never skips a record whose claim may still
 * be readable; thread-safe once configured.
 *
 * <p>Set {@code
 * deserialization.exception.handler=io.ankusa.claimcheck.kafka.ClaimCheckDeserializationExceptionHandler}.
 *
 * <ul>
 *   <li>{@code UNAVAILABLE} — and any exception that is not a {@link ClaimCheckException} with a
 *       final reason — fails the stream thread. Its offset is not committed, so a replaced thread
 *       resumes from the committed offset and reads the record again. Set a {@code
 *       StreamsUncaughtExceptionHandler} answering {@code REPLACE_THREAD} (the default, {@code
 *       SHUTDOWN_CLIENT}, stops the application instead).
 *   <li>{@code NOT_FOUND}, {@code CORRUPT}, {@code REFUSED} are final: the record can never be
 *       read. When {@code errors.dead.letter.queue.topic.name} is set, the raw record (key, ref
 *       bytes and headers, plus Streams' {@code __streams.errors.*} headers and {@value
 *       #REASON_HEADER}) goes there. The handler then continues or fails as {@value
 *       ClaimCheckSerdeConfig#STREAMS_FINAL_FAILURE} says; unset, it continues when a dead-letter
 *       queue is configured and fails otherwise.
 * </ul>
 */
public class ClaimCheckDeserializationExceptionHandler implements DeserializationExceptionHandler {

  /** The dead-letter record header naming the failure's reason. */
  public static final String REASON_HEADER = "ankusa.claimcheck.reason";

  static final String DLQ_TOPIC = "errors.dead.letter.queue.topic.name";

  private static final Logger LOG =
      LoggerFactory.getLogger(ClaimCheckDeserializationExceptionHandler.class);

  private String deadLetterTopic;
  private boolean continueOnFinal;
  private boolean continueWithoutDeadLetter;

  @Override
  public void configure(Map<String, ?> configs) {
    Object dlq = configs.get(DLQ_TOPIC);
    deadLetterTopic = dlq == null || dlq.toString().isBlank() ? null : dlq.toString().trim();
    ClaimCheckSerdeConfig config = new ClaimCheckSerdeConfig(configs);
    continueOnFinal = config.continueOnFinalFailure(deadLetterTopic != null);
    continueWithoutDeadLetter = config.continueOnFinalFailure(false);
  }

  /**
   * Kafka Streams before 4.1 (no dead-letter queue from a handler): {@code UNAVAILABLE} fails the
   * thread as above; a final failure fails it too, unless {@value
   * ClaimCheckSerdeConfig#STREAMS_FINAL_FAILURE} is explicitly {@code continue} (then the record is
   * skipped, with a warning) — a configured dead-letter topic cannot be written from here, and a
   * record is never skipped for want of one.
   */
  @Override
  @SuppressWarnings("deprecation")
  public DeserializationHandlerResponse handle(
      org.apache.kafka.streams.processor.ProcessorContext context,
      ConsumerRecord<byte[], byte[]> record,
      Exception exception) {
    return legacy(record, exception);
  }

  /** Kafka Streams 3.9 and 4.0: as the method above. */
  @Override
  @SuppressWarnings("deprecation")
  public DeserializationHandlerResponse handle(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    return legacy(record, exception);
  }

  @SuppressWarnings("deprecation")
  private DeserializationHandlerResponse legacy(
      ConsumerRecord<byte[], byte[]> record, Exception exception) {
    ClaimCheckException claim = claimFailure(exception);
    boolean skip = claim != null && !claim.isRetriable() && continueWithoutDeadLetter;
    if (skip) {
      LOG.warn(
          "Skipping {}-{}@{}: {}",
          record.topic(),
          record.partition(),
          record.offset(),
          claim.getMessage());
      return DeserializationHandlerResponse.CONTINUE;
    }
    LOG.error(
        "Failing the stream thread on {}-{}@{}: {}",
        record.topic(),
        record.partition(),
        record.offset(),
        claim != null && claim.isRetriable()
            ? "the record may still be readable; a replaced thread resumes from the committed offset"
            : "this Kafka Streams version cannot dead-letter it (4.1+ can); set "
                + ClaimCheckSerdeConfig.STREAMS_FINAL_FAILURE
                + "=continue to skip such records",
        exception);
    return DeserializationHandlerResponse.FAIL;
  }

  /** Kafka Streams 4.1 and later. */
  @Override
  public Response handleError(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    ClaimCheckException claim = claimFailure(exception);
    if (claim == null || claim.isRetriable()) {
      LOG.error(
          "Failing the stream thread on {}-{}@{} (task {}): the record may still be readable; "
              + "a replaced thread resumes from the committed offset",
          record.topic(),
          record.partition(),
          record.offset(),
          context.taskId(),
          exception);
      return Response.fail();
    }
    List<ProducerRecord<byte[], byte[]>> dlq =
        deadLetterTopic == null
            ? List.of()
            : List.of(deadLetter(context, record, exception, claim));
    LOG.warn(
        "{} {}-{}@{} (task {}): {}{}",
        continueOnFinal ? "Skipping" : "Failing on",
        record.topic(),
        record.partition(),
        record.offset(),
        context.taskId(),
        claim.getMessage(),
        deadLetterTopic == null ? "" : "; sent to " + deadLetterTopic);
    return continueOnFinal ? Response.resume(dlq) : Response.fail(dlq);
  }

  /** The claim-check failure in {@code e}'s cause chain, or null. */
  static ClaimCheckException claimFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ClaimCheckException c) {
        return c;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  private ProducerRecord<byte[], byte[]> deadLetter(
      ErrorHandlerContext context,
      ConsumerRecord<byte[], byte[]> record,
      Exception exception,
      ClaimCheckException claim) {
    ProducerRecord<byte[], byte[]> out =
        new ProducerRecord<>(
            deadLetterTopic, null, record.timestamp(), record.key(), record.value());
    Headers headers = out.headers();
    for (Header h : record.headers()) {
      headers.add(h);
    }
    StringWriter trace = new StringWriter();
    exception.printStackTrace(new PrintWriter(trace));
    add(headers, "__streams.errors.exception", exception.getClass().getName());
    add(headers, "__streams.errors.message", exception.getMessage());
    add(headers, "__streams.errors.stacktrace", trace.toString());
    add(headers, "__streams.errors.topic", record.topic());
    add(headers, "__streams.errors.partition", String.valueOf(record.partition()));
    add(headers, "__streams.errors.offset", String.valueOf(record.offset()));
    add(headers, REASON_HEADER, claim.reason().name());
    return out;
  }

  private static void add(Headers headers, String name, String value) {
    headers.add(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }
}
