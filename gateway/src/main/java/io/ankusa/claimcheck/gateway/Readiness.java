package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.security.SecureRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the gateway is ready: once every store answered a probe; thread-safe.
 *
 * <p>The probe redeems a ref to a claim that cannot exist (a fresh random pack id): {@code
 * NOT_FOUND} is final only when every store answered (and a second look agreed), so it proves the
 * stores are reachable and the credentials good. Any other answer is tried again a second later.
 * Once ready the gateway stays ready: a store that fails later is the reader's and breakers' to
 * handle, and the answers say so (503).
 */
final class Readiness {

  private final AtomicBoolean ready = new AtomicBoolean();
  private final ClaimCheck cc;
  private final ScheduledExecutorService timer;
  private final String tenant;
  private final boolean encrypted;

  Readiness(ClaimCheck cc, ScheduledExecutorService timer) {
    this.cc = cc;
    this.timer = timer;
    var allowed = cc.config().tenantsAllowed();
    this.tenant =
        allowed.isEmpty() || allowed.contains(cc.config().tenant())
            ? cc.config().tenant()
            : allowed.get(0);
    this.encrypted = cc.config().getBoolean(ClaimCheckConfig.ENCRYPTION_REQUIRED);
  }

  boolean ready() {
    return ready.get();
  }

  /** Starts probing (now, then every second until ready). */
  void start() {
    timer.execute(this::probe);
  }

  private void probe() {
    PackId id = PackId.random(new SecureRandom());
    // A client that requires encryption refuses a plaintext ref before any store request: it is
    // probed with an encrypted one (never found either).
    ClaimRef ref =
        encrypted
            ? ClaimRef.ofEncrypted(Tenant.of(tenant), new ClaimId(id, 0), 0, 1, 0, Codec.NONE, 1)
            : ClaimRef.of(Tenant.of(tenant), new ClaimId(id, 0), 0, 1, 0, Codec.NONE, 1);
    long deadline = cc.ticker().read() + TimeUnit.SECONDS.toNanos(10);
    cc.redeem(ref, deadline)
        .whenComplete(
            (bytes, error) -> {
              Throwable e = error instanceof CompletionException ? error.getCause() : error;
              if (e instanceof ClaimCheckFailure f
                  && f.reason() == ClaimCheckFailure.Reason.NOT_FOUND) {
                ready.set(true);
              } else {
                try {
                  timer.schedule(this::probe, 1, TimeUnit.SECONDS);
                } catch (java.util.concurrent.RejectedExecutionException stopped) {
                  // the gateway is closing
                }
              }
            });
  }
}
