package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.ref.ClaimRef;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One error answer: an HTTP status and an RFC 9457 {@code application/problem+json} body naming the
 * reason, the tenant and the claim (never a credential: no header or token is ever put in one);
 * immutable.
 *
 * @param status the HTTP status
 * @param reason the library's reason ({@code NOT_FOUND}, {@code UNAVAILABLE}, {@code CORRUPT},
 *     {@code REFUSED}) or the gateway's own ({@code BAD_REF}, {@code UNAUTHORIZED}, …)
 * @param detail what happened, for a person
 * @param tenant the claim's tenant, or null
 * @param claim the claim id, or null
 */
record Problem(int status, String reason, String detail, String tenant, String claim) {

  static final String TYPE_BASE = "urn:ankusa:claimcheck:problem:";

  /** Whether the answer is final (retrying the same request cannot succeed). */
  boolean isFinal() {
    return status != 503;
  }

  static Problem of(int status, String reason, String detail) {
    return new Problem(status, reason, detail, null, null);
  }

  static Problem about(int status, String reason, String detail, ClaimRef ref) {
    return new Problem(status, reason, detail, ref.tenant().value(), ref.claimId().toString());
  }

  /**
   * The answer for a failure of the library: {@code NOT_FOUND} 404, {@code UNAVAILABLE} 503, {@code
   * CORRUPT} 502 (final), {@code REFUSED} 413 when a byte limit refused it, else 403.
   */
  static Problem of(ClaimCheckFailure f, ClaimRef ref) {
    int status =
        switch (f.reason()) {
          case NOT_FOUND -> 404;
          case UNAVAILABLE -> 503;
          case CORRUPT -> 502;
          case REFUSED -> f.getMessage().contains(".max.bytes") ? 413 : 403;
        };
    String detail = f.getMessage();
    return ref == null
        ? of(status, f.reason().name(), detail)
        : about(status, f.reason().name(), detail, ref);
  }

  /** The problem+json body. */
  String json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("type", TYPE_BASE + reason.toLowerCase(Locale.ROOT).replace('_', '-'));
    m.put("title", title(status));
    m.put("status", status);
    m.put("reason", reason);
    m.put("final", isFinal());
    if (tenant != null) {
      m.put("tenant", tenant);
    }
    if (claim != null) {
      m.put("claim", claim);
    }
    m.put("detail", detail);
    return Json.write(m);
  }

  private static String title(int status) {
    return switch (status) {
      case 400 -> "Bad request";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "Claim not found";
      case 405 -> "Method not allowed";
      case 413 -> "Too large";
      case 416 -> "Range not satisfiable";
      case 502 -> "Claim corrupt";
      case 503 -> "Unavailable, retry later";
      default -> "Error";
    };
  }
}
