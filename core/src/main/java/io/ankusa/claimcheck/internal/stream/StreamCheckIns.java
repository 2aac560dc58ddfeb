package io.ankusa.claimcheck.internal.stream;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.internal.crypto.Encryption;
import io.ankusa.claimcheck.internal.crypto.Sealer;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.internal.placement.ClaimStores;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry;
import io.ankusa.claimcheck.internal.telemetry.ClaimCheckTelemetry.CheckInOutcome;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.time.Ticker;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;

/**
 * Checks streamed claims in: a source read once, on the calling thread, into one store as a
 * one-claim object under a fresh random pack id, its CRC32C (and zstd compression, when asked)
 * computed on the way; thread-safe.
 *
 * <p>The ref ({@link ClaimRef#streamed}, version 4) is returned only after the store durably holds
 * the whole object, so it carries the stored length and checksum. The limit is judged before any
 * store request when the length is declared, else while reading ({@code REFUSED}, nothing left
 * stored). A collision of the random pack id cannot be retried under a fresh one, as a whole
 * check-in is (the source is gone): it is {@code UNAVAILABLE}, to check the claim in again. A
 * source that fails is its caller's {@link IOException}; every store failure is a {@link Failure}.
 *
 * <p>Where the tenant's claims are encrypted ({@code claimcheck.encryption.kek} or the tenant's own
 * KEK), the stored bytes are an envelope of segments (compressed first when asked), sealed while
 * streaming under the tenant's current data key, bound to the tenant, the pack id and the codec;
 * its ref is {@link ClaimRef#streamedEncrypted} (version 5). A data key the KEK cannot give by the
 * write deadline fails the check-in before anything is read.
 */
public final class StreamCheckIns {

  private final ClaimStores stores;
  private final ClaimCheckTelemetry telemetry;
  private final Ticker ticker;
  private final Tenant tenant;
  private final long maxBytes;
  private final Encryption encryption;
  private final SecureRandom random = new SecureRandom();

  /** Streamed check-ins of {@code tenant} into {@code stores}, of at most {@code maxBytes}. */
  public StreamCheckIns(
      ClaimStores stores,
      ClaimCheckTelemetry telemetry,
      Ticker ticker,
      Tenant tenant,
      long maxBytes,
      Encryption encryption) {
    this.stores = stores;
    this.encryption = encryption;
    this.telemetry = telemetry;
    this.ticker = ticker;
    this.tenant = tenant;
    this.maxBytes = maxBytes;
  }

  /**
   * Checks {@code length} bytes of {@code source} in ({@code -1}: up to its end), stored as {@code
   * codec} ({@code NONE} or {@code ZSTD}), and returns the ref once a store durably holds them.
   *
   * @throws IllegalArgumentException for an empty claim or another codec
   * @throws IOException when reading {@code source} failed or it ended before {@code length}
   */
  public ClaimRef checkIn(InputStream source, long length, Codec codec) throws IOException {
    if (length == 0 || length < ClaimStore.UNKNOWN_LENGTH) {
      throw new IllegalArgumentException(
          length == 0 ? "an empty payload is never checked in" : "bad length " + length);
    }
    if (length > maxBytes) {
      throw refused(length + " bytes");
    }
    long start = ticker.read();
    PackId id = PackId.random(random);
    Sealer sealer =
        encryption.encrypts(tenant.value())
            ? encryption.sealer(tenant.value(), stores.writeDeadline())
            : null;
    StoredSource stored =
        sealer == null
            ? new StoredSource(source, codec, maxBytes, maxBytes, null)
            : new StoredSource(
                source,
                codec,
                maxBytes,
                sealer.streamedLength(maxBytes) + (codec == Codec.NONE ? 0 : ZSTD_SLACK),
                sink -> sealer.sealStream(tenant.value(), id.value(), codec.id(), sink));
    long storedLength =
        codec != Codec.NONE || length == ClaimStore.UNKNOWN_LENGTH
            ? ClaimStore.UNKNOWN_LENGTH
            : sealer == null ? length : sealer.streamedLength(length);
    int store;
    try (stored) {
      store = stores.writeStream(tenant.value(), id.value(), stored, storedLength, stored::started);
    } catch (StoredSource.TooLarge e) {
      telemetry.checkIn(CheckInOutcome.FAILED, -1, ticker.read() - start);
      throw refused("more bytes");
    } catch (EOFException e) {
      telemetry.checkIn(CheckInOutcome.FAILED, -1, ticker.read() - start);
      if (stored.rawLength() == 0 && length == ClaimStore.UNKNOWN_LENGTH) {
        throw new IllegalArgumentException("an empty payload is never checked in", e);
      }
      throw e;
    } catch (StoreException e) {
      telemetry.checkIn(CheckInOutcome.FAILED, -1, ticker.read() - start);
      throw new Failure(
          Reason.UNAVAILABLE,
          "streamed check-in for tenant "
              + tenant
              + " failed"
              + (e.kind() == StoreException.Kind.ALREADY_EXISTS
                  ? " (its random pack id collided; a stream cannot be replayed: check it in again)"
                  : "")
              + ": "
              + e.getMessage(),
          e);
    }
    telemetry.checkIn(CheckInOutcome.OK, store, ticker.read() - start);
    return sealer == null
        ? ClaimRef.streamed(
            tenant, id, stored.storedLength(), stored.checksum(), codec, stored.rawLength())
        : ClaimRef.streamedEncrypted(
            tenant, id, stored.storedLength(), stored.checksum(), codec, stored.rawLength());
  }

  /** What zstd may add to incompressible bytes (its block headers), past the limit's bytes. */
  private static final long ZSTD_SLACK = 1 << 20;

  private Failure refused(String what) {
    return new Failure(
        Reason.REFUSED,
        "a streamed claim of "
            + what
            + " exceeds "
            + ClaimCheckConfig.STREAM_MAX_BYTES
            + " ("
            + maxBytes
            + "): nothing was stored",
        null);
  }
}
