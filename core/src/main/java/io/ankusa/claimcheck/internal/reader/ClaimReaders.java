package io.ankusa.claimcheck.internal.reader;

/**
 * Makes claim readers; stateless and thread-safe.
 *
 * <p>Sharing one reader among every deserializer, transform and thread with an equal store
 * configuration is the engine's job (its runtimes hold the store set and the reader together), so
 * this only creates.
 */
public final class ClaimReaders {

  private ClaimReaders() {}

  /** Returns a new reader for {@code settings}; closing it stops it. */
  public static ClaimReader create(ReaderSettings settings) {
    return new DefaultClaimReader(settings);
  }
}
