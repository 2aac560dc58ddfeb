package io.ankusa.claimcheck.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Fetches a whole object from the proxy's target with its own SigV2-signed GET (the client's ranged
 * request cannot be replayed without its {@code Range}: that header is signed); thread-safe.
 */
final class WholeObjects {

  private final URI target;
  private final String accessKey;
  private final String secretKey;
  private HttpClient http; // made on first use: a proxy that never widens a range starts no thread

  WholeObjects(URI target, String accessKey, String secretKey) {
    this.target = target;
    this.accessKey = accessKey;
    this.secretKey = secretKey;
  }

  /**
   * Returns the object at {@code url} (path-style {@code /bucket/key}, query ignored).
   *
   * @throws IllegalStateException when the target does not answer 200
   */
  byte[] fetch(String url) {
    int q = url.indexOf('?');
    String path = q < 0 ? url : url.substring(0, q);
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    String signature = sign("GET\n\n\n" + date + "\n" + path);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(target.toString() + path))
            .timeout(Duration.ofSeconds(10))
            .header("Date", date)
            .header("Authorization", "AWS " + accessKey + ":" + signature)
            .GET()
            .build();
    try {
      HttpResponse<byte[]> response =
          client().send(request, HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "FaultProxy: whole-object GET " + path + " answered " + response.statusCode());
      }
      return response.body();
    } catch (IOException e) {
      throw new IllegalStateException("FaultProxy: whole-object GET " + path + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("FaultProxy: whole-object GET " + path + " interrupted", e);
    }
  }

  private synchronized HttpClient client() {
    if (http == null) {
      http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }
    return http;
  }

  private String sign(String stringToSign) {
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
      return Base64.getEncoder()
          .encodeToString(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 unavailable", e);
    }
  }
}
