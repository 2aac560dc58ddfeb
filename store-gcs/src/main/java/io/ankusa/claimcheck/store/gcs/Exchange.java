package io.ankusa.claimcheck.store.gcs;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What the HTTP transport saw of one store call's last answer — its status, headers and (for an
 * error) the start of its body — and the socket timeout its requests may take; one per call, bound
 * to the thread that runs the call (the SDK's HTTP transport is blocking and runs on the caller).
 *
 * <p>Why: the SDK answers a metadata GET's or a DELETE's 404 with {@code null} / {@code false},
 * whoever said 404, and a ranged read's bytes without its headers; the store's rules ("not found
 * only in GCS's own words", "never more or fewer bytes than the range") need the answer itself. Not
 * thread-safe: written and read by the one thread of its call.
 */
final class Exchange {

  /** The most error-body bytes kept: enough for GCS's JSON error document. */
  static final int BODY_LIMIT = 4096;

  private static final ThreadLocal<Exchange> CURRENT = new ThreadLocal<>();

  private final int timeoutMillis;
  private int status = -1;
  private final Map<String, String> headers = new HashMap<>();
  private final StringBuilder errorBody = new StringBuilder();
  private int answers;

  private Exchange(int timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  /** Binds a fresh exchange whose requests time out after {@code timeoutMillis} to this thread. */
  static Exchange begin(long timeoutMillis) {
    Exchange e = new Exchange((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutMillis)));
    CURRENT.set(e);
    return e;
  }

  /** Unbinds this thread's exchange. */
  static void end() {
    CURRENT.remove();
  }

  /** This thread's exchange, or null outside a store call. */
  static Exchange current() {
    return CURRENT.get();
  }

  int timeoutMillis() {
    return timeoutMillis;
  }

  /** Records a new answer: its status and headers (names in lower case, first value each). */
  void answered(int status, Map<String, String> headers) {
    this.status = status;
    this.headers.clear();
    this.headers.putAll(headers);
    this.errorBody.setLength(0);
    answers++;
  }

  /** Keeps bytes of an error answer's body, up to {@link #BODY_LIMIT}. */
  void errorBytes(byte[] b, int off, int len) {
    int room = BODY_LIMIT - errorBody.length();
    if (status >= 400 && room > 0 && len > 0) {
      errorBody.append(new String(b, off, Math.min(room, len), StandardCharsets.UTF_8));
    }
  }

  /** The last answer's status, or -1 when none came. */
  int status() {
    return status;
  }

  /** The last answer's header {@code name}, or null. */
  String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }

  /** The start of the last answer's body when it was an error, else empty. */
  String errorBody() {
    return errorBody.toString();
  }

  /** How many answers this call has had. */
  int answers() {
    return answers;
  }
}
