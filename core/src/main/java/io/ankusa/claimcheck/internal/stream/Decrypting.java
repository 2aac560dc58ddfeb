package io.ankusa.claimcheck.internal.stream;

import io.ankusa.claimcheck.internal.crypto.SegmentDecrypter;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The decoder of an encrypted streamed claim: its stored bytes (an envelope of segments) fed chunk
 * by chunk, each segment decrypted and verified before its plaintext goes on to the codec's decoder
 * ({@code inner}); one stream's, not thread-safe.
 *
 * <p>First the object's head (envelope header and stream header) is gathered and its data key
 * opened, asynchronously ({@link #awaiting}: the stream waits, feeding nothing). A head or key that
 * is malformed ({@code CORRUPT}) and a segment that does not verify are a {@link BadStream}, so the
 * stream reads on and the end's second look decides; any other key failure ({@code UNAVAILABLE},
 * {@code REFUSED}, a shredded key) fails the stream as it is. Memory: one segment (32 KiB) and the
 * fed chunk; a byte is handed out only once its segment verified.
 */
final class Decrypting implements Decoder {

  private final Decoder inner;
  private final Function<byte[], CompletableFuture<SegmentDecrypter>> opener;
  private final byte[] head;
  private int headFill;
  private CompletableFuture<SegmentDecrypter> key;
  private SegmentDecrypter dec;
  private final byte[] seg = new byte[SegmentDecrypter.maxSegment()];
  private int segFill;
  private long index;
  private byte[] in;
  private int inAt;

  Decrypting(
      Decoder inner,
      long objectLength,
      Function<byte[], CompletableFuture<SegmentDecrypter>> opener) {
    this.inner = inner;
    this.opener = opener;
    this.head = new byte[(int) Math.min(SegmentDecrypter.HEAD, objectLength)];
  }

  /** The data key's opening while it is under way, else null. */
  CompletableFuture<?> awaiting() {
    return key != null && dec == null && !key.isDone() ? key : null;
  }

  @Override
  public void feed(byte[] chunk) {
    in = chunk;
    inAt = 0;
  }

  @Override
  public ByteBuffer drain() {
    while (true) {
      ByteBuffer piece = inner.drain();
      if (piece != null) {
        return piece;
      }
      if (dec == null && !opened()) {
        return null;
      }
      if (index == dec.segments()) {
        return null;
      }
      int length = (int) (dec.segmentEnd(index) - dec.segmentStart(index));
      int available = in == null ? 0 : in.length - inAt;
      byte[] plain;
      if (segFill == 0 && available >= length) {
        plain = decrypt(in, inAt, length);
        inAt += length;
      } else {
        int n = Math.min(length - segFill, available);
        if (n > 0) {
          System.arraycopy(in, inAt, seg, segFill, n);
          segFill += n;
          inAt += n;
        }
        if (segFill < length) {
          return null;
        }
        plain = decrypt(seg, 0, length);
        segFill = 0;
      }
      index++;
      inner.feed(plain);
    }
  }

  /** Gathers the head and opens the key; whether the segments can be decrypted now. */
  private boolean opened() {
    if (key == null) {
      int n = in == null ? 0 : Math.min(head.length - headFill, in.length - inAt);
      System.arraycopy(in == null ? head : in, inAt, head, headFill, n);
      headFill += n;
      inAt += n;
      if (headFill < head.length) {
        return false;
      }
      key = opener.apply(head.clone());
    }
    if (!key.isDone()) {
      return false;
    }
    try {
      dec = key.join();
    } catch (CompletionException e) {
      Throwable t = e.getCause() != null ? e.getCause() : e;
      if (t instanceof Failure f && f.reason() != Reason.CORRUPT) {
        throw f;
      }
      if (t instanceof Error err) {
        throw err;
      }
      throw new BadStream(t.getMessage());
    }
    // The head's bytes past the stream header are segment 0's first: keep them.
    int from = (int) dec.segmentStart(0);
    if (from > head.length) {
      throw new BadStream("the envelope header runs past the object's head");
    }
    segFill = head.length - from;
    System.arraycopy(head, from, seg, 0, segFill);
    return true;
  }

  private byte[] decrypt(byte[] b, int off, int length) {
    try {
      return dec.decrypt(b, off, length, index);
    } catch (GeneralSecurityException e) {
      throw new BadStream(
          "segment "
              + index
              + " does not decrypt under its data key: tampered, truncated, re-ordered, or copied"
              + " from another tenant or pack");
    }
  }

  @Override
  public void finish() {
    if (dec == null || index != dec.segments()) {
      throw new BadStream(
          "the encrypted stream ends at segment "
              + index
              + (dec == null ? ", its head unread" : " of its " + dec.segments()));
    }
    inner.finish();
  }

  @Override
  public void close() {
    inner.close();
  }
}
