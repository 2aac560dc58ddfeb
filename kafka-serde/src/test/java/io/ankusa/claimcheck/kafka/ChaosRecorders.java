package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.internal.cache.ClaimCache;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.ref.RefCodec;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

/**
 * The chaos run's taps on the product: a deserializer and a Streams deserialization exception
 * handler that behave exactly like the product's (they call it) and record every claim-check
 * failure into {@link ChaosLedger#current}, and a probe of the reader's cache; stateless apart from
 * the ledger, thread-safe.
 */
final class ChaosRecorders {

  private ChaosRecorders() {}

  /** The pack id (hex) a ref's bytes name, or null when they are not a ref. */
  static String packOf(byte[] refBytes) {
    try {
      return refBytes == null ? null : RefCodec.decode(refBytes).packId().hex();
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Whether a ref's bytes name an encrypted claim. */
  static boolean isEncrypted(byte[] refBytes) {
    return RefCodec.decode(refBytes).isEncrypted();
  }

  /** {@code " (KMS)"} when {@code e} says the KMS could not be used, else empty. */
  static String kmsTag(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage();
      if (m != null && (m.contains("KMS of KEK") || m.contains("gave no data key"))) {
        return " (KMS)";
      }
    }
    return "";
  }

  static long idOf(byte[] key) {
    try {
      return key == null ? -1 : Long.parseLong(new String(key, StandardCharsets.UTF_8));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static void record(String surface, long id, byte[] refBytes, ClaimCheckException e) {
    ChaosLedger ledger = ChaosLedger.current;
    if (ledger == null) {
      return;
    }
    ChaosLedger.count(ledger.claimFailures, surface + " " + e.reason() + kmsTag(e));
    if (!e.isRetriable()) {
      ledger.finalAnswer(surface, id, packOf(refBytes), e.reason().name(), e.getMessage());
    }
  }

  /** The product's deserializer (byte[] values), recording each failure it throws. */
  public static class Deserializer extends ClaimCheckDeserializer<byte[]> {
    @Override
    public byte[] deserialize(String topic, Headers headers, byte[] data) {
      try {
        byte[] value = super.deserialize(topic, headers, data);
        ChaosLedger ledger = ChaosLedger.current;
        String pack = value == data ? null : packOf(data);
        if (ledger != null && pack != null) {
          ChaosLedger.count(ledger.refs, isEncrypted(data) ? "encrypted" : "NOT encrypted");
        }
        if (ledger != null
            && pack != null
            && ChaosIT.IN.equals(topic)
            && value.length >= ChaosValue.HEADER) {
          ledger.packs.put(java.nio.ByteBuffer.wrap(value).getLong(4), pack);
        }
        return value;
      } catch (ClaimCheckException e) {
        record("consumer:" + topic, -1, data, e);
        throw e;
      }
    }
  }

  /** The product's Streams handler, recording each record it fails on or dead-letters. */
  public static class DeadLetterHandler extends ClaimCheckDeserializationExceptionHandler {
    @Override
    public Response handleError(
        ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
      ClaimCheckException claim = claimFailure(exception);
      if (claim != null) {
        record("streams", idOf(record.key()), record.value(), claim);
      }
      Response response = super.handleError(context, record, exception);
      ChaosLedger ledger = ChaosLedger.current;
      if (ledger != null && claim != null && !claim.isRetriable()) {
        ledger.deadLettered.put(idOf(record.key()), System.nanoTime());
      }
      return response;
    }
  }

  /** The reader's cache (found by type: the reader keeps it private), for its size and bound. */
  static ClaimCache<?> cacheOf(ClaimReader reader) {
    for (Class<?> c = reader.getClass(); c != null; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (ClaimCache.class.isAssignableFrom(f.getType())) {
          try {
            f.setAccessible(true);
            return (ClaimCache<?>) f.get(reader);
          } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read the reader's cache", e);
          }
        }
      }
    }
    throw new IllegalStateException("no ClaimCache field in " + reader.getClass());
  }
}
