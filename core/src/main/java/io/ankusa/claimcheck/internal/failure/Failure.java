package io.ankusa.claimcheck.internal.failure;

import java.util.Objects;

/**
 * Why a check-in or a redeem failed, as the writer and the redeemer say it; immutable. The facade
 * hands it to its caller as a {@code ClaimCheckFailure} of the same reason, message and cause (the
 * internal packages never import the facade's package, so no package cycle runs through it).
 */
public final class Failure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The four reasons of {@code ClaimCheckFailure.Reason}, in the same order. */
  public enum Reason {
    NOT_FOUND,
    UNAVAILABLE,
    CORRUPT,
    REFUSED
  }

  private final Reason reason;
  private final String detail;

  /** A failure for {@code reason}; its message is {@code reason + ": " + detail}. */
  public Failure(Reason reason, String detail, Throwable cause) {
    super(reason + ": " + detail, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.detail = detail;
  }

  /** Returns why it failed. */
  public Reason reason() {
    return reason;
  }

  /** Returns the message without its reason. */
  public String detail() {
    return detail;
  }
}
