package io.ankusa.claimcheck.internal.stream;

import io.ankusa.claimcheck.internal.crypto.Encryption;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.reader.FetchKey;
import io.ankusa.claimcheck.internal.reader.ReadException;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32C;

/**
 * One claim redeemed as a stream of ranged chunks through the shared reader; one reader at a time
 * (see {@link ChunkSource}), its fetch callbacks on any thread.
 *
 * <p>Invariants: chunks are fetched in order, at most {@code window} at once (one until the first
 * chunk located the object, so the stores are searched once), each through the reader (coalescing,
 * the AIMD limit, retries, breakers) under its own deadline of {@code chunkNanos} from when it was
 * asked, never cached; every chunk must be exactly the length asked ({@code UNAVAILABLE} else); the
 * CRC32C runs over the stored bytes in order; the decoder never hands out a byte past the ref's raw
 * length. At the end the stored length and CRC32C must match the ref and the decoder must have
 * ended whole: then {@code null}. Otherwise {@link EndCheck} decides, after a second look straight
 * at the store, between {@code CORRUPT} and {@code UNAVAILABLE} — from the last {@link #next},
 * never a silent wrong end. A chunk that fails fails the stream: {@code NOT_FOUND} only for the
 * first chunk and only when a second search agrees, else {@code UNAVAILABLE}.
 */
final class ChunkedClaim implements ChunkSource {

  private final ClaimRef ref;
  private final ClaimStores stores;
  private final ClaimReader reader;
  private final Ticker ticker;
  private final long chunkNanos;
  private final int chunkBytes;
  private final int window;
  private final Decoder decoder;
  private final String tenant;
  private final String packHex;
  private final ArrayDeque<CompletableFuture<byte[]>> inflight = new ArrayDeque<>();
  private final CRC32C crc = new CRC32C();

  /** Where the first chunk found the object: later chunks read it there, straight. */
  private volatile ClaimStores.Located where;

  private long requested;
  private long consumed;
  private Decoder.BadStream badStream;
  private Throwable failure;
  private boolean ended;

  ChunkedClaim(
      ClaimRef ref,
      ClaimStores stores,
      ClaimReader reader,
      Ticker ticker,
      long chunkNanos,
      int chunkBytes,
      int window,
      Encryption encryption) {
    this.ref = ref;
    this.stores = stores;
    this.reader = reader;
    this.ticker = ticker;
    this.chunkNanos = chunkNanos;
    this.chunkBytes = chunkBytes;
    this.window = window;
    Decoder plain = Decoder.of(ref.codec(), ref.rawLength(), chunkBytes);
    this.decoder =
        ref.isEncrypted()
            ? new Decrypting(
                plain,
                ref.length(),
                head -> encryption.openStream(ref, head, ticker.read() + chunkNanos))
            : plain;
    this.tenant = ref.tenant().value();
    this.packHex = ref.packId().hex();
  }

  @Override
  public long length() {
    return ref.rawLength();
  }

  @Override
  public CompletableFuture<ByteBuffer> next() {
    while (true) {
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      if (ended) {
        return CompletableFuture.completedFuture(null);
      }
      if (badStream == null) {
        CompletableFuture<?> key = decoder instanceof Decrypting d ? d.awaiting() : null;
        if (key != null) {
          return key.handle((k, e) -> null).thenCompose(x -> next());
        }
        try {
          ByteBuffer piece = decoder.drain();
          if (piece != null) {
            return CompletableFuture.completedFuture(piece);
          }
        } catch (Decoder.BadStream e) {
          badStream = e; // read on to the end: the checksum says whose fault it is
        } catch (Failure f) {
          failure = f; // the data key could not be had: the stream cannot go on
          return CompletableFuture.failedFuture(f);
        }
        if (decoder instanceof Decrypting d && d.awaiting() != null) {
          continue; // the head is in: wait for its key before feeding more
        }
      }
      if (consumed == ref.length()) {
        return end();
      }
      fill();
      CompletableFuture<byte[]> head = inflight.peek();
      if (!head.isDone()) {
        return head.handle((b, e) -> null).thenCompose(x -> next());
      }
      inflight.poll();
      byte[] bytes;
      try {
        bytes = head.join();
      } catch (CompletionException e) {
        Throwable f = failureOf(unwrap(e));
        if (f instanceof Failure nf && nf.reason() == Reason.NOT_FOUND) {
          return secondSearch(nf);
        }
        failure = f;
        return CompletableFuture.failedFuture(failure);
      }
      crc.update(bytes);
      consumed += bytes.length;
      if (badStream == null) {
        try {
          decoder.feed(bytes);
        } catch (Decoder.BadStream e) {
          badStream = e;
        }
      }
    }
  }

  /** Asks for the next chunks, up to the window (one until the object is located). */
  private void fill() {
    int limit = where == null ? 1 : window;
    while (inflight.size() < limit && requested < ref.length()) {
      long at = requested;
      int n = (int) Math.min(chunkBytes, ref.length() - at);
      requested += n;
      inflight.add(fetch(at, n));
    }
  }

  private CompletableFuture<byte[]> fetch(long at, int n) {
    long first = ref.offset() + at;
    ClaimStores.Located w = where;
    int lane = w != null ? w.store() : stores.home(ref.packId().value());
    try {
      return reader.fetch(
          FetchKey.chunk(tenant, packHex, first, n),
          lane,
          () -> read(first, n, ticker.read() + chunkNanos),
          ticker.read() + chunkNanos);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** One store read of a chunk: at the located store, else the search that locates it. */
  CompletableFuture<byte[]> read(long first, int n, long deadline) {
    ClaimStores.Located w = where;
    CompletableFuture<byte[]> f =
        w != null
            ? stores.getRange(w.store(), w.key(), first, n, deadline)
            : stores
                .read(tenant, ref.packId().value(), first, n, deadline)
                .thenApply(
                    located -> {
                      where = new ClaimStores.Located(null, located.store(), located.key());
                      return located.bytes();
                    });
    return f.thenApply(
        bytes -> {
          if (bytes.length != n) {
            throw new StoreException(
                StoreException.Kind.UNAVAILABLE,
                "claim " + ref.claimId() + ": a chunk of " + bytes.length + " of " + n + " bytes");
          }
          return bytes;
        });
  }

  /**
   * The first chunk was not found in any store: searched once more, straight (no reader), as a
   * final answer needs. Found now, the stream goes on from its bytes; not found again is final.
   */
  private CompletableFuture<ByteBuffer> secondSearch(Failure first) {
    int n = (int) Math.min(chunkBytes, ref.length());
    CompletableFuture<byte[]> again;
    try {
      again = read(ref.offset(), n, ticker.read() + chunkNanos);
    } catch (RuntimeException e) {
      again = CompletableFuture.failedFuture(e);
    }
    return again
        .handle(
            (bytes, e) -> {
              if (e == null) {
                inflight.addFirst(CompletableFuture.completedFuture(bytes));
                return next();
              }
              Throwable t = StoreException.unwrap(e);
              if (t instanceof Error err) {
                failure = err;
              } else {
                StoreException s = StoreException.of(t);
                failure =
                    s.kind() == StoreException.Kind.NOT_FOUND
                        ? new Failure(Reason.NOT_FOUND, first.getMessage() + " (asked twice)", s)
                        : new Failure(
                            Reason.UNAVAILABLE,
                            first.getMessage() + "; the second look: " + s.getMessage(),
                            s);
              }
              return CompletableFuture.<ByteBuffer>failedFuture(failure);
            })
        .thenCompose(x -> x);
  }

  private CompletableFuture<ByteBuffer> end() {
    Throwable bad = badStream;
    if (bad == null) {
      try {
        decoder.finish();
      } catch (Decoder.BadStream e) {
        bad = e;
      }
    }
    boolean verified = (int) crc.getValue() == ref.checksum();
    if (verified && bad == null) {
      ended = true;
      decoder.close();
      return CompletableFuture.completedFuture(null);
    }
    decoder.close();
    String firstLook =
        verified ? bad.getMessage() : "CRC32C mismatch, the stored bytes are damaged";
    return new EndCheck(ref, stores, where, chunkBytes, chunkNanos, ticker)
        .judge(verified, firstLook)
        .handle(
            (v, e) -> {
              failure = e == null ? new IllegalStateException("no verdict") : unwrap(e);
              throw new CompletionException(failure);
            });
  }

  private Throwable failureOf(Throwable error) {
    Throwable e = StoreException.unwrap(error);
    if (e instanceof Error || e instanceof Failure) {
      return e;
    }
    if (e instanceof ReadException r) {
      return new Failure(
          Reason.UNAVAILABLE,
          claim() + "a chunk's read " + r.reason().name().toLowerCase(Locale.ROOT),
          r);
    }
    StoreException s = StoreException.of(e);
    if (s.kind() == StoreException.Kind.NOT_FOUND && consumed == 0) {
      return new Failure(Reason.NOT_FOUND, claim() + s.getMessage(), s);
    }
    return new Failure(Reason.UNAVAILABLE, claim() + s.getMessage(), s);
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  private String claim() {
    return "claim " + tenant + "/" + ref.claimId() + ": ";
  }

  @Override
  public void close() {
    decoder.close();
    if (failure == null && !ended) {
      failure = new Failure(Reason.UNAVAILABLE, claim() + "the stream was closed", null);
    }
  }
}
