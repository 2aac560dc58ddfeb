package io.ankusa.claimcheck.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler.DeserializationHandlerResponse;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler.Response;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler.Result;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ClaimCheckDeserializationExceptionHandlerTest {

  private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);
  private static final byte[] REF = {0, (byte) 0xF7, (byte) 0xAC, 0x6B, 1, 0};

  private final Headers headers = new RecordHeaders();
  private final ConsumerRecord<byte[], byte[]> record = record();

  private ConsumerRecord<byte[], byte[]> record() {
    ClaimCheckHeaders.mark(headers, false);
    return new ConsumerRecord<>(
        "in",
        3,
        42L,
        1234L,
        TimestampType.CREATE_TIME,
        KEY.length,
        REF.length,
        KEY,
        REF,
        headers,
        java.util.Optional.empty());
  }

  private final ErrorHandlerContext context =
      new ErrorHandlerContext() {
        @Override
        public String topic() {
          return "in";
        }

        @Override
        public int partition() {
          return 3;
        }

        @Override
        public long offset() {
          return 42L;
        }

        @Override
        public Headers headers() {
          return headers;
        }

        @Override
        public String processorNodeId() {
          return "source";
        }

        @Override
        public TaskId taskId() {
          return new TaskId(0, 3);
        }

        @Override
        public long timestamp() {
          return 1234L;
        }

        @Override
        public byte[] sourceRawKey() {
          return KEY;
        }

        @Override
        public byte[] sourceRawValue() {
          return REF;
        }
      };

  private static ClaimCheckDeserializationExceptionHandler handler(
      String dlq, String finalFailure) {
    Map<String, Object> m = new HashMap<>();
    if (dlq != null) {
      m.put("errors.dead.letter.queue.topic.name", dlq);
    }
    if (finalFailure != null) {
      m.put("claimcheck.streams.final.failure", finalFailure);
    }
    ClaimCheckDeserializationExceptionHandler h = new ClaimCheckDeserializationExceptionHandler();
    h.configure(m);
    return h;
  }

  private Response handle(ClaimCheckDeserializationExceptionHandler h, Exception e) {
    return h.handleError(context, record, e);
  }

  private static ClaimCheckException failure(Reason r) {
    return new ClaimCheckException(r, "claim acme/00ff:0: because", null);
  }

  @Test
  void unavailableFailsEvenWithADeadLetterQueueAndContinue() {
    Response r = handle(handler("dlq", "continue"), failure(Reason.UNAVAILABLE));
    assertThat(r.result()).isEqualTo(Result.FAIL);
    assertThat(r.deadLetterQueueRecords()).isEmpty();
  }

  @Test
  void anyOtherExceptionFails() {
    ClaimCheckDeserializationExceptionHandler h = handler("dlq", "continue");
    assertThat(handle(h, new SerializationException("bad json")).result()).isEqualTo(Result.FAIL);
    assertThat(handle(h, new IllegalStateException("x")).result()).isEqualTo(Result.FAIL);
  }

  @Test
  void aWrappedFinalFailureIsFoundInTheCauseChain() {
    Response r = handle(handler("dlq", null), new StreamsException(failure(Reason.CORRUPT)));
    assertThat(r.result()).isEqualTo(Result.RESUME);
  }

  @ParameterizedTest
  @EnumSource(
      value = Reason.class,
      names = {"NOT_FOUND", "CORRUPT", "REFUSED"})
  void finalFailuresGoToTheDeadLetterQueueAndContinue(Reason reason) {
    Response r = handle(handler("dlq", null), failure(reason));
    assertThat(r.result()).isEqualTo(Result.RESUME);
    assertThat(r.deadLetterQueueRecords()).hasSize(1);
    ProducerRecord<byte[], byte[]> dead = r.deadLetterQueueRecords().get(0);
    assertThat(dead.topic()).isEqualTo("dlq");
    assertThat(dead.key()).isEqualTo(KEY);
    assertThat(dead.value()).isEqualTo(REF);
    assertThat(dead.timestamp()).isEqualTo(1234L);
    assertThat(header(dead, ClaimCheckDeserializationExceptionHandler.REASON_HEADER))
        .isEqualTo(reason.name());
    assertThat(header(dead, "__streams.errors.topic")).isEqualTo("in");
    assertThat(header(dead, "__streams.errors.partition")).isEqualTo("3");
    assertThat(header(dead, "__streams.errors.offset")).isEqualTo("42");
    assertThat(header(dead, "__streams.errors.message")).contains("acme/00ff:0");
    assertThat(dead.headers().lastHeader(ClaimCheckHeaders.VALUE_MARKER)).isNotNull();
  }

  @ParameterizedTest
  @EnumSource(
      value = Reason.class,
      names = {"NOT_FOUND", "CORRUPT", "REFUSED"})
  void finalFailuresWithoutADeadLetterQueueFailByDefault(Reason reason) {
    assertThat(handle(handler(null, null), failure(reason)).result()).isEqualTo(Result.FAIL);
  }

  @Test
  void finalFailureChoiceOverridesTheDefault() {
    Response skip = handle(handler(null, "continue"), failure(Reason.NOT_FOUND));
    assertThat(skip.result()).isEqualTo(Result.RESUME);
    assertThat(skip.deadLetterQueueRecords()).isEmpty();
    Response failWithDlq = handle(handler("dlq", "FAIL"), failure(Reason.NOT_FOUND));
    assertThat(failWithDlq.result()).isEqualTo(Result.FAIL);
    assertThat(failWithDlq.deadLetterQueueRecords()).hasSize(1);
  }

  @Test
  void badChoiceNamesTheKey() {
    assertThatThrownBy(() -> handler("dlq", "sometimes"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("claimcheck.streams.final.failure");
  }

  /** Streams before 4.1 calls the older methods: they can never write a dead letter. */
  @Test
  @SuppressWarnings("deprecation")
  void olderStreamsFailUnlessSkippingWasChosenExplicitly() {
    DeserializationHandlerResponse fail = DeserializationHandlerResponse.FAIL;
    DeserializationHandlerResponse skip = DeserializationHandlerResponse.CONTINUE;
    // Retriable: always fail, whatever the choice.
    assertThat(handler("dlq", "continue").handle(context, record, failure(Reason.UNAVAILABLE)))
        .isEqualTo(fail);
    assertThat(
            handler(null, "continue")
                .handle(
                    (org.apache.kafka.streams.processor.ProcessorContext) null,
                    record,
                    failure(Reason.UNAVAILABLE)))
        .isEqualTo(fail);
    // Final with a dead-letter topic but no explicit choice: 4.1+ would dead-letter and continue;
    // older Streams cannot dead-letter, so the record is not skipped.
    assertThat(handler("dlq", null).handle(context, record, failure(Reason.NOT_FOUND)))
        .isEqualTo(fail);
    assertThat(
            handler("dlq", null)
                .handle(
                    (org.apache.kafka.streams.processor.ProcessorContext) null,
                    record,
                    failure(Reason.CORRUPT)))
        .isEqualTo(fail);
    // Final and explicitly continue: skipped.
    assertThat(handler(null, "continue").handle(context, record, failure(Reason.REFUSED)))
        .isEqualTo(skip);
    // Not a claim-check failure at all: fail.
    assertThat(handler(null, "continue").handle(context, record, new SerializationException("x")))
        .isEqualTo(fail);
  }

  private static String header(ProducerRecord<byte[], byte[]> r, String name) {
    return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
