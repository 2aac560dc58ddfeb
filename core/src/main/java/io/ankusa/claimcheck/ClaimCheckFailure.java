package io.ankusa.claimcheck;

import java.util.Objects;

/**
 * Why a check-in or a redeem failed, as one of four reasons a Kafka client acts on; immutable.
 *
 * <p>{@link Reason#UNAVAILABLE} is retriable: the claim may still be readable (or the write may
 * still succeed) once the stores answer. The others are final for that record. Messages name the
 * tenant, the claim id and each store's reason — never a credential.
 */
public final class ClaimCheckFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What a failure means for the record that carried the claim. */
  public enum Reason {
    /** Every store answered and none holds the claim: it is gone. */
    NOT_FOUND,
    /**
     * A store could not answer, throttled past the deadline, the read was shed, or the deadline
     * passed: retriable, and never a reason to skip the record.
     */
    UNAVAILABLE,
    /** The stored bytes do not match the ref's length or checksum, or the pack is malformed. */
    CORRUPT,
    /**
     * The ref is for a tenant this client may not redeem, or is malformed; or a claim or value is
     * larger than {@code claimcheck.read.max.bytes} / {@code claimcheck.write.max.bytes}.
     */
    REFUSED
  }

  private final Reason reason;

  public ClaimCheckFailure(Reason reason, String message, Throwable cause) {
    super(reason + ": " + message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Returns why it failed. */
  public Reason reason() {
    return reason;
  }

  /** Whether retrying later may succeed (only {@link Reason#UNAVAILABLE}). */
  public boolean isRetriable() {
    return reason == Reason.UNAVAILABLE;
  }
}
