package io.ankusa.claimcheck.internal.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.FakeTicker;
import io.ankusa.claimcheck.crypto.CountingKekProvider;
import io.ankusa.claimcheck.crypto.KekProvider.KekException;
import io.ankusa.claimcheck.internal.failure.Failure;
import io.ankusa.claimcheck.internal.failure.Failure.Reason;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link Encryption} over the counting test KEK, time by a {@link FakeTicker}: how many KEK calls
 * check-ins and redeems cost (data keys reused within bounds, unwrapped keys cached with a TTL),
 * and how each KEK failure is answered.
 */
class EncryptionTest {

  private final FakeTicker ticker = new FakeTicker();
  private final String kek = "counting:" + UUID.randomUUID();
  private final long far = Long.MAX_VALUE / 2;

  private EncryptionSettings settings(long maxUses, Duration maxAge, int cacheMax, Duration ttl) {
    return new EncryptionSettings(
        kek, Map.of(), false, maxUses, maxAge.toNanos(), cacheMax, ttl.toNanos(), Map.of());
  }

  private Encryption encryption(EncryptionSettings s) {
    return new Encryption(s, ticker, KekProviders.load(), 0);
  }

  private CountingKekProvider.State counts() {
    return CountingKekProvider.of(kek);
  }

  /** A sealed claim and its ref, as the writer makes them. */
  private record Sealed(ClaimRef ref, byte[] envelope) {}

  private static Sealed seal(Encryption e, long pack, byte[] plain) {
    byte[] env = e.sealer("acme", Long.MAX_VALUE / 2).seal("acme", pack, 0, Codec.NONE.id(), plain);
    CRC32C crc = new CRC32C();
    crc.update(env);
    ClaimRef ref =
        ClaimRef.ofEncrypted(
            Tenant.of("acme"),
            new ClaimId(new PackId(pack), 0),
            38,
            env.length,
            (int) crc.getValue(),
            Codec.NONE,
            plain.length);
    return new Sealed(ref, env);
  }

  @Test
  void tenThousandCheckInsCostOneDataKeyAndTenThousandRedeemsOneUnwrap() {
    EncryptionSettings s = settings(5_000_000, Duration.ofHours(1), 1000, Duration.ofHours(1));
    Encryption writer = encryption(s);
    List<Sealed> sealed = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      sealed.add(seal(writer, i, new byte[] {(byte) i, 1, 2}));
    }
    assertThat(counts().generates.get()).as("KEK calls per 10,000 check-ins").isEqualTo(1);
    Encryption reader = encryption(s); // another process: nothing cached
    for (Sealed x : sealed) {
      assertThat(reader.open(x.ref(), x.envelope(), far).join()).hasSize(3);
    }
    assertThat(counts().unwraps.get()).as("KEK calls per 10,000 redeems").isEqualTo(1);
    for (Sealed x : sealed.subList(0, 100)) {
      writer.open(x.ref(), x.envelope(), far).join(); // the writer's own key is seeded
    }
    assertThat(counts().unwraps.get()).isEqualTo(1);
  }

  @Test
  void aDataKeyIsReplacedAfterItsMostEncryptionsAndAfterItsMaxAge() {
    Encryption e = encryption(settings(1000, Duration.ofMinutes(10), 1000, Duration.ofHours(1)));
    for (int i = 0; i < 10_000; i++) {
      seal(e, i, new byte[] {1});
    }
    assertThat(counts().generates.get()).isEqualTo(10); // 10,000 / 1,000
    ticker.advance(Duration.ofMinutes(9));
    seal(e, 1, new byte[] {1});
    assertThat(counts().generates.get()).isEqualTo(11); // the 10th key was full: a fresh one
    ticker.advance(Duration.ofMinutes(9));
    seal(e, 2, new byte[] {1});
    assertThat(counts().generates.get()).as("still within 10 minutes").isEqualTo(11);
    ticker.advance(Duration.ofMinutes(2));
    seal(e, 3, new byte[] {1});
    assertThat(counts().generates.get()).as("past its max age").isEqualTo(12);
  }

  @Test
  void unwrappedKeysAreCachedBoundedAndForTheirTtl() {
    Encryption writer = encryption(settings(1, Duration.ofHours(1), 1000, Duration.ofHours(1)));
    List<Sealed> sealed = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      sealed.add(seal(writer, i, new byte[] {1})); // one data key each
    }
    Encryption reader = encryption(settings(1, Duration.ofHours(1), 3, Duration.ofMinutes(5)));
    for (Sealed x : sealed) {
      reader.open(x.ref(), x.envelope(), far).join();
    }
    assertThat(counts().unwraps.get()).isEqualTo(5);
    reader.open(sealed.get(4).ref(), sealed.get(4).envelope(), far).join();
    assertThat(counts().unwraps.get()).as("cached").isEqualTo(5);
    reader.open(sealed.get(0).ref(), sealed.get(0).envelope(), far).join();
    assertThat(counts().unwraps.get()).as("evicted: at most 3 kept").isEqualTo(6);
    ticker.advance(Duration.ofMinutes(6));
    reader.open(sealed.get(0).ref(), sealed.get(0).envelope(), far).join();
    assertThat(counts().unwraps.get()).as("past its TTL").isEqualTo(7);
  }

  private Failure openFailure(Encryption reader, Sealed x) {
    try {
      reader.open(x.ref(), x.envelope(), far).join();
    } catch (CompletionException e) {
      return (Failure) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void kekFailuresAreAnsweredByWhatTheyMean() {
    EncryptionSettings s = settings(5_000_000, Duration.ofHours(1), 1000, Duration.ofHours(1));
    Sealed x = seal(encryption(s), 7, new byte[] {1, 2, 3});

    counts().fail(KekException.Kind.UNAVAILABLE, 2); // retried inside the deadline
    assertThat(encryption(s).open(x.ref(), x.envelope(), far).join()).hasSize(3);

    counts().fail(KekException.Kind.UNAVAILABLE, Integer.MAX_VALUE);
    Failure f = openFailure(encryption(s), x);
    assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
    assertThat(f.getMessage()).contains(kek);

    counts().fail(KekException.Kind.KEY_UNUSABLE, Integer.MAX_VALUE);
    f = openFailure(encryption(s), x);
    assertThat(f.reason()).isEqualTo(Reason.UNAVAILABLE);
    assertThat(f.getMessage()).contains(kek).contains("disabled or pending deletion");

    counts().fail(KekException.Kind.KEY_GONE, Integer.MAX_VALUE);
    f = openFailure(encryption(s), x);
    assertThat(f.reason()).isEqualTo(Reason.NOT_FOUND);
    assertThat(f.getMessage()).contains(kek).contains("crypto-shredded");

    counts().fail(KekException.Kind.DENIED, Integer.MAX_VALUE);
    f = openFailure(encryption(s), x);
    assertThat(f.reason()).isEqualTo(Reason.REFUSED);
    assertThat(f.getMessage()).contains(kek);

    counts().fail(KekException.Kind.INVALID, Integer.MAX_VALUE);
    assertThat(openFailure(encryption(s), x).reason()).isEqualTo(Reason.CORRUPT);

    counts().fail(KekException.Kind.KEY_GONE, Integer.MAX_VALUE);
    assertThatThrownBy(() -> seal(encryption(s), 8, new byte[] {1}))
        .isInstanceOf(Failure.class)
        .hasMessageContaining(kek)
        .matches(e -> ((Failure) e).reason() == Reason.NOT_FOUND);
    long before = counts().generates.get();
    counts().fail(KekException.Kind.UNAVAILABLE, 2); // a check-in retries inside its deadline
    assertThat(seal(encryption(s), 9, new byte[] {1}).envelope()).isNotEmpty();
    assertThat(counts().generates.get() - before).isEqualTo(3);
    counts().fail(null, 0);
  }

  @Test
  void anUnwrapStillFailingAtTheDeadlineIsUnavailableNotRetriedPastIt() {
    EncryptionSettings s = settings(5_000_000, Duration.ofHours(1), 1000, Duration.ofHours(1));
    Sealed x = seal(encryption(s), 7, new byte[] {1});
    counts().fail(KekException.Kind.UNAVAILABLE, 1);
    Encryption reader = new Encryption(s, ticker, KekProviders.load(), 1_000_000);
    CompletionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CompletionException.class,
            () -> reader.open(x.ref(), x.envelope(), ticker.read() + 500_000).join());
    assertThat(((Failure) e.getCause()).reason()).isEqualTo(Reason.UNAVAILABLE);
    assertThat(counts().unwraps.get()).as("no time left for a retry").isEqualTo(1);
  }
}
