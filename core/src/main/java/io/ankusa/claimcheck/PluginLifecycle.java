package io.ankusa.claimcheck;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.time.Ticker;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.utils.Utils;

/**
 * The configured state of one Kafka plug-in that holds a claim check (a serializer, a deserializer,
 * a Connect transform) and the one lifecycle every such plug-in follows; thread-safe.
 *
 * <ul>
 *   <li>{@link #open} opens a claim check for the plug-in's validated config (the Micrometer
 *       registry, if any, from its config map under {@link ClaimCheck#METER_REGISTRY}) beside the
 *       {@code companion} the plug-in has just configured (its inner serde, its converter), and
 *       closes that companion when the open fails. It replaces the state of an earlier {@code
 *       configure}: the earlier claim check is released, the earlier companion closed unless the
 *       new state keeps it.
 *   <li>{@link #get} returns the state with one volatile read, or throws an {@link
 *       IllegalStateException} saying the plug-in is not configured, or closed.
 *   <li>{@link #close} closes the companion and releases the claim check, once. A plug-in closed
 *       before or while it is configured stays closed: what a later {@code open} opens is released
 *       at once.
 * </ul>
 *
 * @param <S> what the plug-in works with once configured (built from the opened claim check)
 */
public final class PluginLifecycle<S> {

  private final String plugin;
  private final String companionName;
  private volatile Held<S> held; // null: not configured yet

  /** One configure's state, or (closed) the end of the plug-in: its companion was closed then. */
  private record Held<S>(S state, ClaimCheck claimCheck, AutoCloseable companion, boolean closed) {}

  /**
   * A lifecycle for {@code plugin} (its name in messages) whose companion is called {@code
   * companionName} in the log when closing it fails.
   */
  public PluginLifecycle(String plugin, String companionName) {
    this.plugin = Objects.requireNonNull(plugin, "plugin");
    this.companionName = Objects.requireNonNull(companionName, "companionName");
  }

  /**
   * Opens a claim check for {@code config} on {@code ticker} (the registry from {@code configs})
   * and makes {@code state} of it the plug-in's state, beside {@code companion} (null-safe), which
   * is closed if this throws; see the class comment for what happens to the earlier state.
   */
  public void open(
      ClaimCheckConfig config,
      Map<String, ?> configs,
      Ticker ticker,
      AutoCloseable companion,
      Function<ClaimCheck, S> state) {
    Held<S> next;
    ClaimCheck cc = null;
    try {
      cc = ClaimCheck.open(config, configs.get(ClaimCheck.METER_REGISTRY), ticker);
      next = new Held<>(state.apply(cc), cc, companion, false);
    } catch (RuntimeException e) {
      Utils.closeQuietly(companion, companionName);
      if (cc != null) {
        cc.close();
      }
      throw e;
    }
    Held<S> previous;
    synchronized (this) {
      previous = held;
      if (previous == null || !previous.closed) {
        held = next;
      }
    }
    if (previous != null && previous.closed) { // closed before (or while) configuring
      release(next, previous.companion);
    } else if (previous != null) {
      release(previous, companion);
    }
  }

  /**
   * The state of the last {@link #open}; throws {@link IllegalStateException} before the first one
   * and after {@link #close}.
   */
  public S get() {
    Held<S> h = held;
    if (h == null || h.closed) {
      throw new IllegalStateException(
          h == null
              ? plugin + " is not configured: call configure() first"
              : plugin + " is closed");
    }
    return h.state;
  }

  /** Closes the plug-in: as {@link #close(AutoCloseable)} with nothing to close if unconfigured. */
  public void close() {
    close(null);
  }

  /**
   * Closes the plug-in once (idempotent): the companion and claim check of its state, or, if it was
   * never configured, {@code unconfigured} (null-safe: a companion given to the plug-in's
   * constructor).
   */
  public void close(AutoCloseable unconfigured) {
    Held<S> h;
    synchronized (this) {
      h = held;
      if (h != null && h.closed) {
        return;
      }
      held = new Held<>(null, null, h == null ? unconfigured : h.companion, true);
    }
    if (h == null) {
      Utils.closeQuietly(unconfigured, companionName);
    } else {
      release(h, null);
    }
  }

  private void release(Held<S> h, AutoCloseable keep) {
    if (h.companion != keep) {
      Utils.closeQuietly(h.companion, companionName);
    }
    h.claimCheck.close();
  }
}
