package io.ankusa.claimcheck.store;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A store operation's failure, classified as exactly one {@link Kind}; immutable and thread-safe.
 *
 * <p>The classification drives everything above the store: breakers open only on {@link
 * Kind#UNAVAILABLE}, the reader's limit halves on {@code UNAVAILABLE} and {@link Kind#THROTTLED}, a
 * read reports {@link Kind#NOT_FOUND} only when every store answered it, and {@link
 * Kind#ALREADY_EXISTS} makes a writer mint a fresh pack id.
 */
public final class StoreException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** What a failed store operation means for its caller. */
  public enum Kind {
    /** The store answered: no object under that key. */
    NOT_FOUND,
    /** The store answered 403: access denied (or a missing key without ListBucket). */
    FORBIDDEN,
    /** The store answered but asked for less load: 429, 503 SlowDown, or a Retry-After. */
    THROTTLED,
    /** The store could not answer: timeout, connection refused or reset, other 5xx. */
    UNAVAILABLE,
    /** A put-if-absent found an object already under that key. */
    ALREADY_EXISTS;

    /** Whether this outcome is an answer from a reachable store (every kind but UNAVAILABLE). */
    public boolean isAnswer() {
      return this != UNAVAILABLE;
    }
  }

  private final Kind kind;
  private final transient Duration retryAfter;

  /** Creates a failure of {@code kind}; {@code message} must not contain a credential. */
  public StoreException(Kind kind, String message) {
    this(kind, message, null, null);
  }

  /** Creates a failure of {@code kind} with a cause and an optional Retry-After (may be null). */
  public StoreException(Kind kind, String message, Duration retryAfter, Throwable cause) {
    super(kind + ": " + message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.retryAfter = retryAfter;
  }

  /** Returns this failure's classification. */
  public Kind kind() {
    return kind;
  }

  /** Returns the store's Retry-After, when it sent one. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /**
   * Returns the {@code StoreException} behind {@code t}, unwrapping {@link CompletionException} and
   * {@link ExecutionException}; anything else becomes an {@link Kind#UNAVAILABLE} failure with
   * {@code t} as its cause.
   */
  public static StoreException of(Throwable t) {
    Throwable c = unwrap(t);
    if (c instanceof StoreException se) {
      return se;
    }
    return new StoreException(Kind.UNAVAILABLE, String.valueOf(c), null, c);
  }

  /**
   * Returns the failure behind {@code t}: {@code t} without the {@link CompletionException} and
   * {@link ExecutionException} wrappers a future's failure comes in (one with no cause is kept).
   * The one unwrapping rule of this library's futures.
   */
  public static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
