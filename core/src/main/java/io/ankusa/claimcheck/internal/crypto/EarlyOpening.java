package io.ankusa.claimcheck.internal.crypto;

import com.google.crypto.tink.subtle.StreamSegmentDecrypter;
import io.ankusa.claimcheck.crypto.KekProvider.Kek;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.InlineArrivals;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * Opens an encrypted claim's segments while its envelope is still arriving, so that decryption
 * overlaps the transfer instead of following it; one redeem's, confined to the thread that made it
 * (calls from any other thread are ignored), so not shared.
 *
 * <p>Invariants: only an envelope of AEAD id 2 (segmented) of a non-streamed claim is opened early,
 * and only with a data key already unwrapped (one being unwrapped is not waited for: later arrivals
 * look again). Segment {@code i} is decrypted only once all its bytes arrived, with the same
 * binding and last-segment flag {@link Encryption#open} uses, so each early plaintext segment
 * passed its tag exactly as it would have after the transfer. A new array (a new attempt, another
 * store) starts afresh; any failure stops early opening for good. {@link #finish} hands the
 * plaintext over only for the very array it watched, whole: otherwise (or when anything failed) it
 * answers null and {@link Encryption#open} decrypts from scratch, giving its own answer.
 */
public final class EarlyOpening implements InlineArrivals.Watcher {

  private final Encryption encryption;
  private final ClaimRef ref;
  private final int length;
  private final Thread owner = Thread.currentThread();
  private byte[] array;
  private boolean dead;
  private int headerLength;
  private byte[] ad;
  private CompletableFuture<Dek> dek;
  private StreamSegmentDecrypter decrypter;
  private long streamLength;
  private long segments;
  private int next;
  private int plainAt;
  private byte[] plain;

  EarlyOpening(Encryption encryption, ClaimRef ref) {
    this.encryption = encryption;
    this.ref = ref;
    this.length = Math.toIntExact(ref.length());
  }

  @Override
  public void arrived(byte[] answer, int filled) {
    if (dead || Thread.currentThread() != owner || answer.length != length) {
      return;
    }
    if (answer != array) {
      array = answer;
      ad = null;
      dek = null;
      decrypter = null;
      next = 0;
      plainAt = 0;
    }
    try {
      advance(filled);
    } catch (GeneralSecurityException | RuntimeException e) {
      dead = true; // Encryption.open decrypts again and says what is wrong
    }
  }

  /**
   * The plaintext of {@code stored}, the checked answer, when it is the array this watched and
   * every segment opened; null otherwise.
   */
  byte[] finish(byte[] stored) {
    if (stored != array || Thread.currentThread() != owner) {
      return null;
    }
    arrived(stored, stored.length);
    return !dead && decrypter != null && next == segments ? plain : null;
  }

  /** How many segments of the watched array are open (tests). */
  int opened() {
    return next;
  }

  private void advance(int filled) throws GeneralSecurityException {
    if (ad == null && !begin(filled)) {
      return;
    }
    if (decrypter == null) {
      if (!dek.isDone() || dek.isCompletedExceptionally()) {
        dead = dek.isCompletedExceptionally();
        return;
      }
      if (filled < headerLength + Segmented.STREAM_HEADER) {
        return;
      }
      decrypter = dek.join().segmented().newStreamSegmentDecrypter();
      decrypter.init(ByteBuffer.wrap(array, headerLength, Segmented.STREAM_HEADER), ad);
    }
    while (next < segments) {
      int start = headerLength + (next == 0 ? Segmented.STREAM_HEADER : next * Segmented.SEGMENT);
      int end = (int) (headerLength + Math.min((next + 1L) * Segmented.SEGMENT, streamLength));
      if (end > filled) {
        return;
      }
      int n = end - start;
      if (n < Segmented.TAG) {
        throw new GeneralSecurityException("segment " + next + " is shorter than its tag");
      }
      decrypter.decryptSegment(
          ByteBuffer.wrap(array, start, n),
          next,
          next == segments - 1,
          ByteBuffer.wrap(plain, plainAt, n - Segmented.TAG));
      plainAt += n - Segmented.TAG;
      next++;
    }
  }

  /** Parses the header once enough arrived; false while waiting for more or when not opened. */
  private boolean begin(int filled) {
    int head = Math.min(length, SegmentDecrypter.HEAD);
    if (filled < head) {
      return false;
    }
    Envelope env = Envelope.parse(Arrays.copyOf(array, head));
    if (env.aead() != Envelope.SEGMENTED || ref.isStreamed()) {
      dead = true;
      return false;
    }
    Kek kek = encryption.openedKek(env.kekId());
    if (kek == null) {
      dead = true; // not opened yet, or not openable here: Encryption.open says which
      return false;
    }
    headerLength = env.headerLength();
    streamLength = length - headerLength;
    long plainLength = Segmented.plainLength(streamLength);
    if (streamLength < Envelope.SEGMENTED_MIN_OVERHEAD || plainLength < 0) {
      dead = true;
      return false;
    }
    segments = Segmented.segments(streamLength);
    ad =
        Binding.of(
            env.header(),
            ref.tenant().value(),
            ref.packId().value(),
            ref.claimId().index(),
            (int) plainLength,
            ref.codec().id());
    dek = encryption.dataKey(kek, env.wrapped(), ref.tenant().value());
    if (plain == null || plain.length != plainLength) {
      plain = new byte[(int) plainLength];
    }
    return true;
  }
}
