package io.ankusa.claimcheck.internal;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ClaimCheckFailure.Reason;
import io.ankusa.claimcheck.Prefetch;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.compress.Compressor;
import io.ankusa.claimcheck.internal.compress.PastReadLimitException;
import io.ankusa.claimcheck.internal.pack.CorruptPackException;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntry;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.reader.ClaimReader;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.CheckInOutcome;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.lang.ref.Cleaner;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One handle on a shared runtime: checks claims in through the failover writer and redeems refs
 * through the shared reader; thread-safe.
 *
 * <p>A check-in returns a ref only after a store durably took the pack, and a collision mints a
 * fresh pack id under the same write deadline. A redeem verifies length and checksum on every
 * answer (cache hits included) and hands out a private copy, so wrong bytes are never returned.
 *
 * <p>A handle that becomes unreachable without being closed is released by a {@link Cleaner}: Kafka
 * Streams, for one, never closes the default serdes it creates, and without this their handles
 * would keep the shared stores and reader open until the JVM exits.
 */
public final class Engine implements ClaimCheck, ReaderAccess {

  private static final int MAX_COLLISIONS = 8;
  private static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final ClaimCheckConfig config;
  private final Runtimes.Runtime rt;
  private final Ticker ticker;
  private final Tenant tenant;
  private final Codec codec;
  private final Set<String> allowed;
  private final Redeemer redeemer;
  private final int readMaxBytes;
  private final int writeMaxBytes;
  private final SecureRandom random = new SecureRandom();
  private final Cleaner.Cleanable release;

  /** A handle on {@code rt}, which must already count it (tests build runtimes of fakes). */
  Engine(ClaimCheckConfig config, Runtimes.Runtime rt, Ticker ticker) {
    this.config = config;
    this.rt = rt;
    this.ticker = ticker;
    this.tenant = Tenant.of(config.tenant());
    this.codec =
        Codec.valueOf(config.getString(ClaimCheckConfig.COMPRESSION_TYPE).toUpperCase(Locale.ROOT));
    this.allowed = new HashSet<>(config.tenantsAllowed());
    this.readMaxBytes = config.readMaxBytes();
    this.writeMaxBytes = config.writeMaxBytes();
    this.redeemer = new Redeemer(rt, ticker, config.readDeadline().toNanos(), readMaxBytes);
    this.release = Runtimes.CLEANER.register(this, new Release(rt));
  }

  public static Engine open(ClaimCheckConfig config, Object meterRegistry, Ticker ticker) {
    return new Engine(
        config, Runtimes.acquire(Runtimes.key(config, meterRegistry, ticker)), ticker);
  }

  @Override
  public ClaimRef checkIn(byte[] value) {
    return write(List.of(value), null, codec).get(0);
  }

  @Override
  public ClaimRef checkInKey(byte[] key) {
    // Uncompressed, so the pack's bytes (and the ref) depend on the key's content alone.
    return write(List.of(key), PackId.fromContent(tenant, key), Codec.NONE).get(0);
  }

  @Override
  public List<ClaimRef> checkInAll(List<byte[]> values) {
    return write(values, null, codec);
  }

  private List<ClaimRef> write(List<byte[]> values, PackId fixedId, Codec with) {
    checkWriteSizes(values);
    long start = ticker.read();
    long deadline = rt.stores.writeDeadline();
    List<PackEntryInput> inputs = new ArrayList<>(values.size());
    int[] rawLengths = new int[values.size()];
    for (int i = 0; i < values.size(); i++) {
      byte[] value = values.get(i);
      rawLengths[i] = value.length;
      byte[] stored = Compressor.compress(with, value);
      if (limitedSize(stored.length, value.length) > writeMaxBytes) {
        // Compressed, it would be past the limit (incompressible bytes grow): stored as it is, it
        // meets the same check a reader makes, so what is written here is never refused there.
        inputs.add(new PackEntryInput(value, Codec.NONE));
      } else {
        inputs.add(new PackEntryInput(stored, with));
      }
    }
    EncodedPack pack = Packs.encode(inputs);
    for (int collisions = 0; ; collisions++) {
      PackId id = fixedId != null ? fixedId : PackId.random(random);
      try {
        int store =
            await(rt.stores.write(tenant.value(), id.value(), pack.bytes(), deadline), deadline);
        rt.telemetry.checkIn(CheckInOutcome.OK, store, ticker.read() - start);
        return refs(id, pack, rawLengths);
      } catch (StoreException e) {
        if (e.kind() != StoreException.Kind.ALREADY_EXISTS) {
          rt.telemetry.checkIn(CheckInOutcome.FAILED, -1, ticker.read() - start);
          throw new ClaimCheckFailure(
              Reason.UNAVAILABLE,
              "check-in of "
                  + values.size()
                  + " claim(s) for tenant "
                  + tenant
                  + " failed: "
                  + e.getMessage(),
              e);
        }
        rt.telemetry.checkIn(CheckInOutcome.COLLISION, -1, ticker.read() - start);
        if (fixedId != null) {
          List<ClaimRef> refs = ours(id, pack, rawLengths, deadline); // same content and id
          refresh(id, pack, deadline);
          return refs;
        }
        if (collisions + 1 >= MAX_COLLISIONS) {
          throw new ClaimCheckFailure(
              Reason.UNAVAILABLE,
              MAX_COLLISIONS
                  + " fresh pack ids in a row collided for tenant "
                  + tenant
                  + ": is the random source broken?",
              e);
        }
      }
    }
  }

  /**
   * Returns the refs of {@code pack} once a read-back shows that the pack already stored under its
   * content-derived id {@code id} holds our claims (length and CRC32C of each, one ranged read per
   * claim). A pack that holds other bytes — a 64-bit content-id collision, or an object damaged or
   * written by something else — fails the check-in {@code CORRUPT}: the id is derived from the
   * content, so a retry would find the same object, and a ref to it would redeem wrong bytes or
   * fail as corrupt on every consumer. A read-back that gets no answer is {@code UNAVAILABLE}
   * (retriable).
   */
  private List<ClaimRef> ours(PackId id, EncodedPack pack, int[] rawLengths, long deadline) {
    for (PackEntry entry : pack.entries()) {
      byte[] stored;
      try {
        stored =
            await(
                    rt.stores.read(
                        tenant.value(), id.value(), entry.offset(), entry.length(), deadline),
                    deadline)
                .bytes();
      } catch (StoreException e) {
        throw new ClaimCheckFailure(
            Reason.UNAVAILABLE,
            "check-in for tenant "
                + tenant
                + ": pack "
                + id.hex()
                + " already exists under the content's id, but reading it back failed: "
                + e.getMessage(),
            e);
      }
      try {
        Packs.checkClaim(entry, stored);
      } catch (CorruptPackException e) {
        throw new ClaimCheckFailure(
            Reason.CORRUPT,
            "check-in for tenant "
                + tenant
                + ": pack "
                + id.hex()
                + " already stored under the content's id does not hold these bytes ("
                + e.getMessage()
                + "); it is not ours, so no ref to it is returned: remove that"
                + " object (a content-id collision or a damaged pack)",
            e);
      }
    }
    return refs(id, pack, rawLengths);
  }

  /**
   * Writes the key pack {@code id}, just checked to be ours, again ({@link
   * io.ankusa.claimcheck.store.ClaimStore#put}) under the same write deadline, so the store lists
   * it as written now: the collector judges an unmarked pack by its last-modified time, and without
   * this a key re-sent while a collection runs (its record past the noted end offsets) would name a
   * pack listed with the time of its first write, and lose it. Failure is {@code UNAVAILABLE}: the
   * pack may be about to be collected, so no ref is returned.
   *
   * <p>Why a rewrite rather than a copy onto itself or a second look by the sweep: its bytes are
   * the same by construction (they were just read back), so a concurrent reader gets the same bytes
   * from the old object or the new one, and S3 (a replacing PUT), the file store (rename over the
   * name) and the memory store all replace atomically; a rewrite also re-creates the pack if a
   * sweep deleted it after our put-if-absent saw it, which a copy (CopyObject onto itself needs a
   * metadata change and fails once the source is gone) cannot; and a sweep cannot see a record
   * still in flight to Kafka, so a second look there would not be enough. It goes through the
   * failover writer: the home store first, another one (a fresh copy there) when the home store
   * cannot take it; a reader finds the pack in any store, and an old copy left elsewhere may be
   * collected harmlessly.
   *
   * <p>A rewrite that lands while a sweep is between confirming the pack as old and deleting it
   * would still be deleted: so after it, {@link
   * io.ankusa.claimcheck.internal.placement.ClaimStores#settle} waits out the tenant's sweep lock
   * in that store and writes the pack again when it is gone or was deleted (the protocol {@link
   * io.ankusa.claimcheck.internal.placement.SweepLock} describes; two stats per reuse).
   */
  private void refresh(PackId id, EncodedPack pack, long deadline) {
    try {
      int store =
          await(rt.stores.rewrite(tenant.value(), id.value(), pack.bytes(), deadline), deadline);
      await(rt.stores.settle(store, tenant.value(), id.value(), pack.bytes(), deadline), deadline);
    } catch (StoreException e) {
      throw new ClaimCheckFailure(
          Reason.UNAVAILABLE,
          "check-in for tenant "
              + tenant
              + ": key pack "
              + id.hex()
              + " is already stored, but writing it again (so that a collection running"
              + " now keeps it) failed: "
              + e.getMessage(),
          e);
    }
  }

  private List<ClaimRef> refs(PackId id, EncodedPack pack, int[] rawLengths) {
    List<ClaimRef> refs = new ArrayList<>(pack.entries().size());
    for (PackEntry entry : pack.entries()) {
      refs.add(Packs.toRef(tenant, id, entry, rawLengths[entry.index()]));
    }
    return refs;
  }

  /**
   * The size both byte limits judge a claim by: the larger of its stored and its uncompressed
   * length. A reader refuses a ref whose size passes claimcheck.read.max.bytes; a writer refuses a
   * value longer than claimcheck.write.max.bytes and stores uncompressed one whose compressed form
   * would pass it, so with the same limit on both sides every written claim is readable.
   */
  static long limitedSize(int storedLength, int rawLength) {
    return Math.max((long) storedLength, rawLength);
  }

  /** Refuses, before any store request, a value larger than claimcheck.write.max.bytes. */
  private void checkWriteSizes(List<byte[]> values) {
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i).length > writeMaxBytes) {
        throw new ClaimCheckFailure(
            Reason.REFUSED,
            "value "
                + i
                + " of "
                + values.get(i).length
                + " bytes exceeds "
                + ClaimCheckConfig.WRITE_MAX_BYTES
                + " ("
                + writeMaxBytes
                + "): nothing was written",
            null);
      }
    }
  }

  /** The refusal of a ref whose stored or raw length passes claimcheck.read.max.bytes, or null. */
  private ClaimCheckFailure tooLarge(ClaimRef ref) {
    long size = limitedSize(ref.length(), ref.rawLength());
    if (size <= readMaxBytes) {
      return null;
    }
    return new ClaimCheckFailure(
        Reason.REFUSED,
        "claim "
            + describe(ref)
            + " of "
            + size
            + " bytes exceeds "
            + ClaimCheckConfig.READ_MAX_BYTES
            + " ("
            + readMaxBytes
            + "): not fetched",
        null);
  }

  private <T> T await(CompletableFuture<T> f, long deadline) {
    long wait = Math.max(0, deadline - ticker.read()) + GRACE_NANOS;
    try {
      return f.get(wait, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.cancel(false);
      throw new StoreException(StoreException.Kind.UNAVAILABLE, "interrupted while writing");
    } catch (ExecutionException e) {
      Throwable cause = Redeemer.unwrap(e);
      if (cause instanceof Error err) {
        throw err; // not a failure of the store: never retried as UNAVAILABLE
      }
      throw StoreException.of(cause);
    } catch (TimeoutException e) {
      f.cancel(false);
      throw new StoreException(
          StoreException.Kind.UNAVAILABLE, "the write did not finish by its deadline", null, e);
    }
  }

  @Override
  public CompletableFuture<byte[]> redeem(ClaimRef ref, long deadlineNanos) {
    String t = ref.tenant().value();
    if (!allows(t)) {
      return CompletableFuture.failedFuture(
          new ClaimCheckFailure(
              Reason.REFUSED,
              "claim "
                  + describe(ref)
                  + ": tenant "
                  + t
                  + " is not in "
                  + ClaimCheckConfig.TENANTS_ALLOWED,
              null));
    }
    ClaimCheckFailure tooLarge = tooLarge(ref);
    if (tooLarge != null) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    return redeemer.redeem(ref, deadlineNanos);
  }

  /**
   * Fetches {@code ref}'s claim into the reader for a redeem to come (see {@link
   * ReaderAccess#warm}): the same refusals as {@link #redeem}, then the reader's fetch alone,
   * without the caller's copy (a prefetch's copy was dropped unread: one clone and two checksums of
   * every prefetched claim).
   */
  @Override
  public CompletableFuture<?> warm(ClaimRef ref, long deadlineNanos) {
    String t = ref.tenant().value();
    if (!allows(t)) {
      return CompletableFuture.failedFuture(
          new ClaimCheckFailure(
              Reason.REFUSED,
              "claim "
                  + describe(ref)
                  + ": tenant "
                  + t
                  + " is not in "
                  + ClaimCheckConfig.TENANTS_ALLOWED,
              null));
    }
    ClaimCheckFailure tooLarge = tooLarge(ref);
    if (tooLarge != null) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    return redeemer.warm(ref, deadlineNanos);
  }

  @Override
  public Prefetch prefetch(ClaimRef ref, Runnable onRead) {
    Objects.requireNonNull(onRead, "onRead");
    return allows(ref.tenant().value())
        ? PinnedPrefetch.register(this, rt.reader, ref, onRead)
        : null;
  }

  /**
   * Returns the caller's own copy of the claim from its stored bytes: checked against the ref's
   * length and CRC32C, then decompressed through a stream bounded by the ref's recorded raw length
   * (v2) or {@code readMaxBytes}; {@code CORRUPT} when either fails.
   */
  static byte[] verified(ClaimRef ref, byte[] stored, int readMaxBytes) {
    try {
      Packs.checkClaim(ref, stored);
      return ref.codec() == Codec.NONE
          ? stored.clone()
          : Compressor.decompress(ref.codec(), stored, ref.rawLength(), readMaxBytes);
    } catch (CorruptPackException e) {
      throw new ClaimCheckFailure(
          Reason.CORRUPT, "claim " + describe(ref) + ": " + e.getMessage(), e);
    } catch (PastReadLimitException e) {
      throw new ClaimCheckFailure(
          Reason.REFUSED,
          "claim "
              + describe(ref)
              + ": "
              + e.getMessage()
              + "; a reader with a higher "
              + ClaimCheckConfig.READ_MAX_BYTES
              + " can redeem it",
          e);
    }
  }

  private static String describe(ClaimRef ref) {
    return ref.tenant().value() + "/" + ref.claimId();
  }

  @Override
  public boolean allows(String t) {
    return allowed.isEmpty() || allowed.contains(t);
  }

  @Override
  public Ticker ticker() {
    return ticker;
  }

  @Override
  public ClaimReader reader() {
    return rt.reader;
  }

  @Override
  public ClaimCheckConfig config() {
    return config;
  }

  /** Releases this handle; idempotent (the cleaner runs the release at most once). */
  @Override
  public void close() {
    release.clean();
  }

  /** Releases one handle on a runtime; must not refer to the engine, or it would never be freed. */
  private record Release(Runtimes.Runtime rt) implements Runnable {
    @Override
    public void run() {
      Runtimes.release(rt);
    }
  }
}
