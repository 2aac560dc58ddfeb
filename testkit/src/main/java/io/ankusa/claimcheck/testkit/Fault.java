package io.ankusa.claimcheck.testkit;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * One way a {@link FaultProxy} can misbehave instead of passing a request through; immutable and
 * thread-safe.
 *
 * <p>Error bodies are S3's XML error documents (a HEAD response carries none, as from S3), except
 * {@link #htmlNotFound()}, which is what a non-S3 server in the way answers. The body faults
 * ({@link #partialWithoutContentRange()}, {@link #truncatedBody()}, {@link #corruptBody()}, {@link
 * #wholeObjectForRange()}) pass the request through and rewrite the real answer to a GET; answers
 * to other methods pass through unchanged.
 */
public final class Fault {

  private enum Type {
    SLOW_DOWN,
    TOO_MANY_REQUESTS,
    FORBIDDEN,
    SERVER_ERROR,
    HANG,
    CONNECTION_RESET,
    HTML_NOT_FOUND,
    PARTIAL_WITHOUT_CONTENT_RANGE,
    TRUNCATED_BODY,
    CORRUPT_BODY,
    WHOLE_OBJECT_FOR_RANGE
  }

  private final Type type;
  private final Duration duration;

  private Fault(Type type, Duration duration) {
    this.type = type;
    this.duration = duration;
  }

  /**
   * 503 with an S3 {@code SlowDown} error and a {@code Retry-After} header of {@code retryAfter} in
   * whole seconds (rounded up).
   */
  public static Fault slowDown(Duration retryAfter) {
    requireNonNegative(retryAfter, "retryAfter");
    return new Fault(Type.SLOW_DOWN, retryAfter);
  }

  /** 429 Too Many Requests, without Retry-After. */
  public static Fault tooManyRequests() {
    return new Fault(Type.TOO_MANY_REQUESTS, null);
  }

  /** 403 with an S3 {@code AccessDenied} error. */
  public static Fault forbidden() {
    return new Fault(Type.FORBIDDEN, null);
  }

  /**
   * 403 with an S3 {@code AccessDenied} error, answered only after {@code delay}: a request that
   * must fail, but not before others have queued behind it.
   */
  public static Fault forbiddenAfter(Duration delay) {
    requireNonNegative(delay, "delay");
    return new Fault(Type.FORBIDDEN, delay);
  }

  /** 500 with an S3 {@code InternalError} error. */
  public static Fault serverError() {
    return new Fault(Type.SERVER_ERROR, null);
  }

  /**
   * Holds the request for {@code delay}, then passes it through and returns the real answer: a
   * client that gives up sooner never reaches the target.
   */
  public static Fault hang(Duration delay) {
    requireNonNegative(delay, "delay");
    return new Fault(Type.HANG, delay);
  }

  /** Resets the connection (TCP RST) instead of answering. */
  public static Fault connectionReset() {
    return new Fault(Type.CONNECTION_RESET, null);
  }

  /**
   * 404 with {@code Content-Type: text/html} and an HTML page, without any S3 error code or S3
   * header ({@code x-amz-request-id}): what an ingress default backend or a wrong proxy path
   * answers, not the store.
   */
  public static Fault htmlNotFound() {
    return new Fault(Type.HTML_NOT_FOUND, null);
  }

  /**
   * Passes a GET through and answers its real bytes as {@code 206 Partial Content} with the {@code
   * Content-Range} header removed.
   */
  public static Fault partialWithoutContentRange() {
    return new Fault(Type.PARTIAL_WITHOUT_CONTENT_RANGE, null);
  }

  /**
   * Passes a GET through and drops the last quarter (at least one byte) of its real body; the
   * status and every header stay, except {@code Content-Length}, which matches the shorter body.
   */
  public static Fault truncatedBody() {
    return new Fault(Type.TRUNCATED_BODY, null);
  }

  /**
   * Passes a GET through and flips every bit of its real body (same length, every byte differs);
   * status and headers stay.
   */
  public static Fault corruptBody() {
    return new Fault(Type.CORRUPT_BODY, null);
  }

  /**
   * Answers a ranged GET (the target's {@code 206}) with {@code 200} and the whole object, without
   * {@code Content-Range}, as a server that ignores {@code Range} does; other answers pass through.
   * Needs the target's credentials: only a proxy made by {@link FaultProxy#inFrontOf(EmbeddedS3)}
   * can do it (another answers 500).
   */
  public static Fault wholeObjectForRange() {
    return new Fault(Type.WHOLE_OBJECT_FOR_RANGE, null);
  }

  /** Builds this fault's WireMock response; {@code target} is where a pass-through goes. */
  ResponseDefinitionBuilder response(URI target) {
    switch (type) {
      case SLOW_DOWN:
        long seconds = (duration.toMillis() + 999) / 1000;
        return error(503, "SlowDown", "Please reduce your request rate.")
            .withHeader("Retry-After", Long.toString(seconds));
      case TOO_MANY_REQUESTS:
        return error(429, "TooManyRequests", "Too many requests.");
      case FORBIDDEN:
        ResponseDefinitionBuilder denied = error(403, "AccessDenied", "Access Denied");
        return duration == null ? denied : denied.withFixedDelay((int) duration.toMillis());
      case SERVER_ERROR:
        return error(500, "InternalError", "We encountered an internal error. Please try again.");
      case HANG:
        return aResponse()
            .proxiedFrom(target.toString())
            .withTransformers(HangTransformer.NAME)
            .withTransformerParameter(HangTransformer.DELAY_MS, duration.toMillis());
      case CONNECTION_RESET:
        return aResponse()
            .withFault(com.github.tomakehurst.wiremock.http.Fault.CONNECTION_RESET_BY_PEER);
      case HTML_NOT_FOUND:
        return aResponse()
            .withStatus(404)
            .withHeader("Content-Type", "text/html")
            .withBody(
                "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n"
                    + "<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n"
                    + "</body>\r\n</html>\r\n");
      case PARTIAL_WITHOUT_CONTENT_RANGE:
        return rewritten(target, BodyTransformer.Mode.DROP_CONTENT_RANGE);
      case TRUNCATED_BODY:
        return rewritten(target, BodyTransformer.Mode.TRUNCATE);
      case CORRUPT_BODY:
        return rewritten(target, BodyTransformer.Mode.CORRUPT);
      case WHOLE_OBJECT_FOR_RANGE:
        return rewritten(target, BodyTransformer.Mode.WHOLE_OBJECT);
      default:
        throw new AssertionError(type);
    }
  }

  private static ResponseDefinitionBuilder rewritten(URI target, BodyTransformer.Mode mode) {
    return aResponse()
        .proxiedFrom(target.toString())
        .withTransformers(BodyTransformer.NAME)
        .withTransformerParameter(BodyTransformer.MODE, mode.name());
  }

  static ResponseDefinitionBuilder error(int status, String code, String message) {
    return aResponse()
        .withStatus(status)
        .withHeader("Content-Type", "application/xml")
        .withBody(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
                + code
                + "</Code><Message>"
                + message
                + "</Message><RequestId>claimcheck-fault-proxy</RequestId></Error>");
  }

  private static void requireNonNegative(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative: " + d);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fault f && f.type == type && Objects.equals(f.duration, duration);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, duration);
  }

  @Override
  public String toString() {
    return duration == null ? type.toString() : type + "(" + duration + ")";
  }
}
