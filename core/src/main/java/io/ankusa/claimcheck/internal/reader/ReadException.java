package io.ankusa.claimcheck.internal.reader;

import java.util.Objects;

/**
 * The reader gave a caller no answer — it did not get one from a store; immutable.
 *
 * <p>Distinct from {@link io.ankusa.claimcheck.store.StoreException}, which carries a store's own
 * answer or failure: a {@code ReadException} means the reader shed the read ({@link
 * Reason#OVERLOADED}), the caller's deadline passed first ({@link Reason#DEADLINE}), or the reader
 * was closed ({@link Reason#CLOSED}). Every reason is "unavailable" and retriable: the claim may
 * well be readable a moment later. It carries no stack trace (it is an outcome, not a defect, and
 * is made at the read rate under overload).
 */
public final class ReadException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Why the reader gave no answer. */
  public enum Reason {
    /** Shed: the store's queue was full, or the request gate was. */
    OVERLOADED,
    /** The caller's deadline passed before an answer came. */
    DEADLINE,
    /** The reader was closed before an answer came. */
    CLOSED
  }

  private final Reason reason;

  /** Creates an exception for {@code reason}, with the message {@code "unavailable: <reason>"}. */
  public ReadException(Reason reason) {
    this(reason, null);
  }

  /**
   * Creates an exception for {@code reason} after the store's last failed attempt {@code lastError}
   * (null when no attempt failed): the message is {@code "unavailable: <reason>"}, followed by
   * {@code "; last store error: <its message>"}, and it is the cause.
   */
  public ReadException(Reason reason, Throwable lastError) {
    super(
        "unavailable: "
            + Objects.requireNonNull(reason, "reason").name().toLowerCase(java.util.Locale.ROOT)
            + (lastError == null ? "" : "; last store error: " + lastError.getMessage()),
        lastError,
        false,
        false);
    this.reason = reason;
  }

  /** Returns why the reader gave no answer. */
  public Reason reason() {
    return reason;
  }

  /** Returns true: every reason is transient, and a retry may be answered. */
  public boolean isRetriable() {
    return true;
  }
}
