package io.ankusa.claimcheck.config;

import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The rule that keeps secrets out of every message, log line and {@code toString} this library
 * makes about its configuration; stateless and thread-safe.
 *
 * <p>A configured value is shown only when its key is a setting the library knows and whose value
 * is not secret (a tenant, a store URI without user info, a number, a class name). Never shown,
 * whatever the problem with it:
 *
 * <ul>
 *   <li>a {@link Password} (a {@code PASSWORD}-typed setting), in any form;
 *   <li>the value of a key the library does not know: a misspelt secret key is still a secret;
 *   <li>the value of any key whose name suggests a credential ({@link #isSecretName}): one
 *       containing {@code secret}, {@code password}, {@code passwd}, {@code pwd}, {@code token},
 *       {@code credential}, {@code private}, {@code session}, {@code auth}, {@code jaas}, {@code
 *       sasl}, {@code access.key} or {@code api.key}. An S3 access key id is such a key: it is half
 *       of a credential pair and never needed to explain a configuration error, so it is not shown
 *       either.
 * </ul>
 *
 * <p>Messages made elsewhere (Kafka's own {@code ConfigDef} parsing, a converter's {@code
 * configure}) are passed through {@link #scrub}, which replaces every such value found in them.
 */
public final class Secrets {

  /** What a message shows instead of a value it must not show. */
  public static final String HIDDEN = "[hidden]";

  private static final String[] SECRET_WORDS = {
    "secret",
    "password",
    "passwd",
    "pwd",
    "token",
    "credential",
    "private",
    "session",
    "auth",
    "jaas",
    "sasl",
    "access.key",
    "api.key",
    "apikey"
  };

  /** The shortest value {@link #scrub} replaces (shorter ones would garble the message). */
  private static final int MIN_SCRUBBED = 4;

  private Secrets() {}

  /** Whether {@code key}'s name suggests its value is a credential. */
  public static boolean isSecretName(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    for (String w : SECRET_WORDS) {
      if (k.contains(w)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns what a message may show of {@code value}, given under the known key {@code key}: the
   * value itself, or {@link #HIDDEN} for a password or a key named like a secret.
   */
  public static Object shown(String key, Object value) {
    return value instanceof Password || isSecretName(key) ? HIDDEN : value;
  }

  /**
   * Returns {@code message} with every value of {@code originals} that must not be shown replaced
   * by {@link #HIDDEN}: passwords, values of keys {@code known} does not accept, and values of keys
   * named like secrets.
   */
  public static String scrub(String message, Map<String, ?> originals, Predicate<String> known) {
    if (message == null) {
      return null;
    }
    String m = message;
    for (Map.Entry<String, ?> e : originals.entrySet()) {
      Object v = e.getValue();
      if (v == null) {
        continue;
      }
      boolean hide = v instanceof Password || isSecretName(e.getKey()) || !known.test(e.getKey());
      if (!hide) {
        continue;
      }
      String s = v instanceof Password p ? p.value() : String.valueOf(v);
      if (s != null && s.trim().length() >= MIN_SCRUBBED) {
        m = m.replace(s, HIDDEN);
        m = m.replace(s.trim(), HIDDEN);
      }
    }
    return m;
  }

  /** Returns {@code e}, or a copy without its cause whose message is {@link #scrub scrubbed}. */
  public static ConfigException scrubbed(
      ConfigException e, Map<String, ?> originals, Predicate<String> known) {
    String m = scrub(e.getMessage(), originals, known);
    return m.equals(e.getMessage()) && !causeShows(e, originals, known)
        ? e
        : new ConfigException(m);
  }

  private static boolean causeShows(
      Throwable e, Map<String, ?> originals, Predicate<String> known) {
    for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
      String m = c.getMessage();
      if (m != null && !m.equals(scrub(m, originals, known))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Throws a {@link ConfigException} naming the first key of {@code originals} under {@code prefix}
   * that {@code known} does not accept — without its value.
   */
  public static void refuseUnknown(
      Map<String, ?> originals, String prefix, Predicate<String> known, String readers) {
    for (String key : new java.util.TreeSet<>(originals.keySet())) {
      if (key.startsWith(prefix) && !known.test(key)) {
        throw new ConfigException(
            key,
            HIDDEN,
            "not a claim-check setting "
                + readers
                + " reads (a misspelling?); its value is not shown, in case it is a secret");
      }
    }
  }
}
