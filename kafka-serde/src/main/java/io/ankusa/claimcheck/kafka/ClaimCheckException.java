package io.ankusa.claimcheck.kafka;

import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import java.util.Objects;
import org.apache.kafka.common.errors.SerializationException;

/**
 * A claim-check serializer or deserializer failed, for one of the four {@link Reason}s core's
 * {@link ClaimCheckFailure} names (not found, unavailable, corrupt, refused); immutable.
 *
 * <p>{@link Reason#UNAVAILABLE} is retriable and never a reason to skip the record: its claim may
 * still be readable once the stores answer. The message names the tenant, the claim id and each
 * store's reason — never a credential.
 */
public class ClaimCheckException extends SerializationException {

  private static final long serialVersionUID = 1L;

  private final Reason reason;

  /**
   * A failure for {@code reason}: its message is the reason, a colon and {@code message} (name the
   * claim, never a credential). The surfaces build theirs with {@link #of}; this is for code that
   * reports its own, or tests that simulate one.
   */
  public ClaimCheckException(Reason reason, String message, Throwable cause) {
    super(reason + ": " + message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Returns why it failed. */
  public Reason reason() {
    return reason;
  }

  /** Whether the record may still be (de)serialized later: only {@link Reason#UNAVAILABLE}. */
  public boolean isRetriable() {
    return reason == Reason.UNAVAILABLE;
  }

  /** Returns the Kafka-facing form of a core failure, keeping its reason and message. */
  public static ClaimCheckException of(ClaimCheckFailure failure) {
    return new ClaimCheckException(
        failure.reason(),
        failure.getMessage().substring(failure.reason().name().length() + 2),
        failure);
  }
}
