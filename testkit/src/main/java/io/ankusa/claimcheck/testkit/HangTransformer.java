package io.ankusa.claimcheck.testkit;

import com.github.tomakehurst.wiremock.extension.Parameters;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

/**
 * Holds a request that matched a hang stub for the stub's delay before it is answered or passed
 * through, so a hung request reaches the target only after the delay (WireMock's own fixed delay
 * would pass it through first and hold only the answer); stateless and thread-safe.
 */
final class HangTransformer implements ResponseDefinitionTransformerV2 {

  static final String NAME = "claimcheck-hang";
  static final String DELAY_MS = "delayMs";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public boolean applyGlobally() {
    return false;
  }

  @Override
  public ResponseDefinition transform(ServeEvent serveEvent) {
    ResponseDefinition response = serveEvent.getResponseDefinition();
    Parameters parameters = response.getTransformerParameters();
    Object delay = parameters == null ? null : parameters.get(DELAY_MS);
    if (delay instanceof Number n && n.longValue() > 0) {
      try {
        Thread.sleep(n.longValue());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the server is stopping: answer at once
      }
    }
    return response;
  }
}
