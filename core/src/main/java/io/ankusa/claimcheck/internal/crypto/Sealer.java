package io.ankusa.claimcheck.internal.crypto;

import java.io.IOException;
import java.io.OutputStream;
import java.security.GeneralSecurityException;

/** Seals claims under one data key use; immutable and thread-safe. */
public final class Sealer {
  private final DataKeys.Current key;

  Sealer(DataKeys.Current key) {
    this.key = key;
  }

  /** The KEK id of this data key. */
  public String kekId() {
    return key.kekId;
  }

  /** The envelope of {@code plain} as claim {@code index} of pack {@code packId}. */
  public byte[] seal(String tenant, long packId, int index, int codecId, byte[] plain) {
    byte[] out = new byte[sealedLength(plain.length)];
    sealInto(tenant, packId, index, codecId, plain, out, 0, out.length);
    return out;
  }

  /** The length of the envelope {@link #seal} or {@link #sealInto} writes for {@code plain}. */
  public int sealedLength(int plain) {
    return Segmented.sealedLength(key.header.length, plain);
  }

  /**
   * Writes the envelope {@link #seal} returns into exactly {@code out[at, at + length)}, touching
   * no byte outside it, and returns {@code length}; throws {@link IllegalArgumentException} before
   * writing anything unless {@code length} is {@link #sealedLength} of {@code plain}.
   */
  public int sealInto(
      String tenant,
      long packId,
      int index,
      int codecId,
      byte[] plain,
      byte[] out,
      int at,
      int length) {
    int expected = sealedLength(plain.length);
    if (length != expected) {
      throw new IllegalArgumentException(
          "claim " + index + ": a slot of " + length + " bytes for an envelope of " + expected);
    }
    byte[] header = key.header;
    byte[] ad = Binding.of(header, tenant, packId, index, plain.length, codecId);
    return Segmented.sealInto(key.dek.segmented(), header, ad, plain, out, at);
  }

  /**
   * The stream that writes to {@code sink} the envelope of the plaintext written to it, as the
   * streamed claim of {@code tenant} in pack {@code packId} stored as codec {@code codecId};
   * closing it writes the last segment and closes {@code sink}. Holds one segment at a time.
   */
  public OutputStream sealStream(String tenant, long packId, int codecId, OutputStream sink)
      throws IOException {
    sink.write(key.header);
    byte[] ad = Binding.stream(key.header, tenant, packId, codecId);
    try {
      return key.dek.segmented().newEncryptingStream(sink, ad);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM refused to encrypt", e);
    }
  }

  /** The stored length of a streamed claim of {@code plain} plaintext bytes. */
  public long streamedLength(long plain) {
    return key.header.length + Segmented.streamLength(plain);
  }
}
