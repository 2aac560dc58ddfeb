package io.ankusa.claimcheck.testkit;

import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.extension.ResponseTransformerV2;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.HttpHeaders;
import com.github.tomakehurst.wiremock.http.Response;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Rewrites the real (proxied) answer to a GET after it arrives from the target: drops the
 * Content-Range of a partial answer, cuts or flips the body's bytes, or replaces a ranged answer by
 * the whole object; stateless and thread-safe. Answers to other methods pass through unchanged.
 *
 * <p>A rewritten answer's {@code Content-Length} always equals its body's length, so the HTTP layer
 * accepts it and only the S3 client's own checks can notice the lie.
 */
final class BodyTransformer implements ResponseTransformerV2 {

  static final String NAME = "claimcheck-body";
  static final String MODE = "mode";

  /** What to do to the answer. */
  enum Mode {
    DROP_CONTENT_RANGE,
    TRUNCATE,
    CORRUPT,
    WHOLE_OBJECT
  }

  private final WholeObjects wholeObjects;

  /** {@code wholeObjects} fetches an object unranged; null when the target's keys are unknown. */
  BodyTransformer(WholeObjects wholeObjects) {
    this.wholeObjects = wholeObjects;
  }

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public boolean applyGlobally() {
    return false;
  }

  @Override
  public Response transform(Response response, ServeEvent serveEvent) {
    Parameters parameters = serveEvent.getTransformerParameters();
    Object mode = parameters == null ? null : parameters.get(MODE);
    if (mode == null
        || !"GET".equals(serveEvent.getRequest().getMethod().getName().toUpperCase(Locale.ROOT))) {
      return response;
    }
    byte[] body = response.getBody() == null ? new byte[0] : response.getBody();
    switch (Mode.valueOf(mode.toString())) {
      case DROP_CONTENT_RANGE:
        return rebuilt(response, 206, body, "Content-Range");
      case TRUNCATE:
        int drop = body.length == 0 ? 0 : Math.max(1, body.length / 4);
        byte[] shorter = new byte[body.length - drop];
        System.arraycopy(body, 0, shorter, 0, shorter.length);
        return rebuilt(response, response.getStatus(), shorter);
      case CORRUPT:
        byte[] flipped = new byte[body.length];
        for (int i = 0; i < body.length; i++) {
          flipped[i] = (byte) ~body[i]; // every byte differs from the real one
        }
        return rebuilt(response, response.getStatus(), flipped);
      case WHOLE_OBJECT:
        if (response.getStatus() != 206) {
          return response; // not a ranged answer (or an error): nothing to widen
        }
        if (wholeObjects == null) {
          return rebuilt(
              response,
              500,
              "FaultProxy: wholeObjectForRange needs the target's credentials (use inFrontOf)"
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8),
              "Content-Range");
        }
        byte[] whole = wholeObjects.fetch(serveEvent.getRequest().getUrl());
        return rebuilt(response, 200, whole, "Content-Range");
      default:
        throw new AssertionError(mode);
    }
  }

  private static Response rebuilt(Response response, int status, byte[] body, String... drop) {
    List<HttpHeader> kept = new ArrayList<>();
    for (HttpHeader h : response.getHeaders().all()) {
      if (h.keyEquals("Content-Length") || h.keyEquals("Transfer-Encoding")) {
        continue;
      }
      boolean dropped = false;
      for (String d : drop) {
        dropped |= h.keyEquals(d);
      }
      if (!dropped) {
        kept.add(h);
      }
    }
    kept.add(new HttpHeader("Content-Length", Integer.toString(body.length)));
    return Response.Builder.like(response)
        .but()
        .status(status)
        .headers(new HttpHeaders(kept))
        .body(body)
        .build();
  }
}
