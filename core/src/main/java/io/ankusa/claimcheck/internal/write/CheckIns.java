package io.ankusa.claimcheck.internal.write;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.compress.Compressor;
import io.ankusa.claimcheck.internal.crypto.Encryption;
import io.ankusa.claimcheck.internal.crypto.Sealer;
import io.ankusa.claimcheck.internal.failure.ByteLimits;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.pack.EncodedPack;
import io.ankusa.claimcheck.internal.pack.PackEntry;
import io.ankusa.claimcheck.internal.pack.PackEntryInput;
import io.ankusa.claimcheck.internal.pack.PackSlot;
import io.ankusa.claimcheck.internal.pack.Packs;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.CheckInOutcome;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks claims in through the failover writer; thread-safe.
 *
 * <p>A check-in returns a ref only after a store durably took the pack, and a collision mints a
 * fresh pack id under the same write deadline; a key pack already stored under its content's id is
 * checked and written again ({@link KeyPacks}). Failures are {@link Failure}s; an {@link Error} is
 * rethrown as itself.
 */
public final class CheckIns {

  private static final int MAX_COLLISIONS = 8;

  private final ClaimStores stores;
  private final ClaimCheckTelemetry telemetry;
  private final Ticker ticker;
  private final Tenant tenant;
  private final Codec codec;
  private final int writeMaxBytes;
  private final KeyPacks keyPacks;
  private final Encryption encryption;
  private final SecureRandom random = new SecureRandom();

  /**
   * Checks claims of {@code tenant} in to {@code stores}, compressed with {@code codec}, values up
   * to {@code writeMaxBytes}.
   */
  public CheckIns(
      ClaimStores stores,
      ClaimCheckTelemetry telemetry,
      Ticker ticker,
      Tenant tenant,
      Codec codec,
      int writeMaxBytes) {
    this(stores, telemetry, ticker, tenant, codec, writeMaxBytes, null);
  }

  /**
   * As {@link #CheckIns(ClaimStores, ClaimCheckTelemetry, Ticker, Tenant, Codec, int)}, each claim
   * encrypted after compression by {@code encryption} when it encrypts the tenant's claims (null:
   * never).
   */
  public CheckIns(
      ClaimStores stores,
      ClaimCheckTelemetry telemetry,
      Ticker ticker,
      Tenant tenant,
      Codec codec,
      int writeMaxBytes,
      Encryption encryption) {
    this.encryption = encryption != null && encryption.encrypts(tenant.value()) ? encryption : null;
    this.stores = stores;
    this.telemetry = telemetry;
    this.ticker = ticker;
    this.tenant = tenant;
    this.codec = codec;
    this.writeMaxBytes = writeMaxBytes;
    this.keyPacks = new KeyPacks(stores, ticker, tenant);
  }

  /** Checks {@code value} in as a one-claim pack under a fresh random pack id. */
  public ClaimRef checkIn(byte[] value) {
    return write(List.of(value), null, codec).get(0);
  }

  /** Checks {@code key} in, uncompressed, under a pack id derived from its content. */
  public ClaimRef checkInKey(byte[] key) {
    if (encryption != null) {
      // A key pack's ref must be the same for the same key (partitioning, compaction); sealed
      // bytes differ at every check-in, so the read-back of KeyPacks cannot recognise them.
      throw new Failure(
          Reason.REFUSED,
          "key check-in for tenant "
              + tenant
              + " is not supported with encryption yet (claimcheck.keys.enabled with"
              + " claimcheck.encryption.kek): nothing was written",
          null);
    }
    // Uncompressed, so the pack's bytes (and the ref) depend on the key's content alone.
    return write(List.of(key), PackId.fromContent(tenant, key), Codec.NONE).get(0);
  }

  /** Checks {@code values} in as one pack. */
  public List<ClaimRef> checkInAll(List<byte[]> values) {
    return write(values, null, codec);
  }

  private List<ClaimRef> write(List<byte[]> values, PackId fixedId, Codec with) {
    checkWriteSizes(values);
    long start = ticker.read();
    long deadline = stores.writeDeadline();
    List<PackEntryInput> inputs = new ArrayList<>(values.size());
    int[] rawLengths = new int[values.size()];
    for (int i = 0; i < values.size(); i++) {
      byte[] value = values.get(i);
      rawLengths[i] = value.length;
      byte[] stored = Compressor.compress(with, value);
      if (ByteLimits.limitedSize(stored.length, value.length) > writeMaxBytes) {
        // Compressed, it would be past the limit (incompressible bytes grow): stored as it is, it
        // meets the same check a reader makes, so what is written here is never refused there.
        inputs.add(new PackEntryInput(value, Codec.NONE));
      } else {
        inputs.add(new PackEntryInput(stored, with));
      }
    }
    EncodedPack plain = encryption == null ? Packs.encode(inputs) : null;
    for (int collisions = 0; ; collisions++) {
      PackId id = fixedId != null ? fixedId : PackId.random(random);
      // Sealed per pack id: the id is part of each claim's associated data.
      EncodedPack pack = plain != null ? plain : sealed(inputs, id, deadline);
      try {
        int store =
            Await.await(
                stores.write(tenant.value(), id.value(), pack.parts(), deadline), deadline, ticker);
        telemetry.checkIn(CheckInOutcome.OK, store, ticker.read() - start);
        return refs(tenant, id, pack, rawLengths, plain == null);
      } catch (StoreException e) {
        if (e.kind() != StoreException.Kind.ALREADY_EXISTS) {
          telemetry.checkIn(CheckInOutcome.FAILED, -1, ticker.read() - start);
          throw new Failure(
              Reason.UNAVAILABLE,
              "check-in of "
                  + values.size()
                  + " claim(s) for tenant "
                  + tenant
                  + " failed: "
                  + e.getMessage(),
              e);
        }
        telemetry.checkIn(CheckInOutcome.COLLISION, -1, ticker.read() - start);
        if (fixedId != null) {
          List<ClaimRef> refs = keyPacks.ours(id, pack, rawLengths, deadline); // same content, id
          keyPacks.refresh(id, pack, deadline);
          return refs;
        }
        if (collisions + 1 >= MAX_COLLISIONS) {
          throw new Failure(
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

  static List<ClaimRef> refs(
      Tenant tenant, PackId id, EncodedPack pack, int[] rawLengths, boolean encrypted) {
    List<ClaimRef> refs = new ArrayList<>(pack.entries().size());
    for (PackEntry entry : pack.entries()) {
      int raw = rawLengths[entry.index()];
      refs.add(
          encrypted
              ? ClaimRef.ofEncrypted(
                  tenant,
                  new ClaimId(id, entry.index()),
                  entry.offset(),
                  entry.length(),
                  entry.checksum(),
                  entry.codec(),
                  raw)
              : Packs.toRef(tenant, id, entry, raw));
    }
    return refs;
  }

  /**
   * The pack of {@code inputs}, each claim sealed as claim {@code i} of pack {@code id} (after
   * compression) straight into its slot: the envelopes' lengths are known before sealing.
   */
  private EncodedPack sealed(List<PackEntryInput> inputs, PackId id, long deadline) {
    String t = tenant.value();
    Sealer[] sealers = new Sealer[inputs.size()];
    List<PackSlot> slots = new ArrayList<>(inputs.size());
    for (int i = 0; i < inputs.size(); i++) {
      PackEntryInput in = inputs.get(i);
      sealers[i] = encryption.sealer(t, deadline);
      slots.add(new PackSlot(sealers[i].sealedLength(in.storedBytes().length), in.codec()));
    }
    return Packs.encode(
        slots,
        (i, out, at, length) -> {
          PackEntryInput in = inputs.get(i);
          return sealers[i].sealInto(
              t, id.value(), i, in.codec().id(), in.storedBytes(), out, at, length);
        });
  }

  /** Refuses, before any store request, a value larger than claimcheck.write.max.bytes. */
  private void checkWriteSizes(List<byte[]> values) {
    for (int i = 0; i < values.size(); i++) {
      if (values.get(i).length > writeMaxBytes) {
        throw new Failure(
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
}
