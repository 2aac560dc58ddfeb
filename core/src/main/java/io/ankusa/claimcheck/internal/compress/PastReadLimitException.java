package io.ankusa.claimcheck.internal.compress;

/**
 * A claim whose ref does not record its uncompressed length (a version-1 ref) inflated past this
 * reader's {@code claimcheck.read.max.bytes}; immutable.
 *
 * <p>Kept apart from a corrupt claim: the bytes may well be intact, and a reader with a higher
 * limit could redeem them, so the answer is {@code REFUSED} naming the key, not {@code CORRUPT}.
 */
public final class PastReadLimitException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  PastReadLimitException(String message) {
    super(message);
  }
}
