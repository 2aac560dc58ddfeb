package io.ankusa.claimcheck.store.gcs;

import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.apache.v2.ApacheHttpTransport;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpRequestInterceptor;
import org.apache.http.HttpResponseInterceptor;
import org.apache.http.client.config.RequestConfig;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.entity.HttpEntityWrapper;
import org.apache.http.impl.conn.PoolingHttpClientConnectionManager;

/**
 * The SDK's HTTP transport and its connection pool: Apache HttpClient (the SDK's own {@code
 * apache-v2} transport) without retries or redirects of its own, whose every answer is recorded in
 * the calling thread's {@link Exchange} (status, headers, an error body's start as the SDK reads
 * it), and whose requests' connect and socket timeouts are no longer than their call's.
 * Thread-safe.
 */
final class ObservingTransport {

  private final HttpTransport transport;
  private final PoolingHttpClientConnectionManager pool;

  private ObservingTransport(HttpTransport transport, PoolingHttpClientConnectionManager pool) {
    this.transport = transport;
    this.pool = pool;
  }

  /** The transport the SDK runs on. */
  HttpTransport transport() {
    return transport;
  }

  /**
   * Drops every idle pooled connection: called when a call could not reach the store (refused,
   * reset, broken), so the next call does not meet a connection the server (or a proxy that
   * restarted) has closed under it. The pool also re-checks a connection idle for 2 s before reuse.
   */
  void distrustPool() {
    pool.closeIdleConnections(0, TimeUnit.MILLISECONDS);
    pool.closeExpiredConnections();
  }

  /** Releases the pool's connections. */
  void shutdown() {
    try {
      transport.shutdown();
    } catch (IOException e) {
      // gone either way
    }
    pool.shutdown();
  }

  /** A new transport with its own connection pool. */
  static ObservingTransport create() {
    HttpRequestInterceptor capTimeouts =
        (request, context) -> {
          Exchange e = Exchange.current();
          if (e == null) {
            return;
          }
          HttpClientContext c = HttpClientContext.adapt(context);
          RequestConfig rc = c.getRequestConfig();
          c.setRequestConfig(
              RequestConfig.copy(rc)
                  .setConnectTimeout(bound(rc.getConnectTimeout(), e.timeoutMillis()))
                  .setSocketTimeout(bound(rc.getSocketTimeout(), e.timeoutMillis()))
                  .setConnectionRequestTimeout(
                      bound(rc.getConnectionRequestTimeout(), e.timeoutMillis()))
                  .build());
        };
    HttpResponseInterceptor record =
        (response, context) -> {
          Exchange e = Exchange.current();
          if (e == null) {
            return;
          }
          Map<String, String> headers = new HashMap<>();
          for (Header h : response.getAllHeaders()) {
            headers.putIfAbsent(h.getName().toLowerCase(Locale.ROOT), h.getValue());
          }
          int status = response.getStatusLine().getStatusCode();
          e.answered(status, headers);
          HttpEntity entity = response.getEntity();
          if (status >= 400 && entity != null) {
            response.setEntity(new Teed(entity, e));
          }
        };
    PoolingHttpClientConnectionManager pool = new PoolingHttpClientConnectionManager();
    pool.setMaxTotal(200);
    pool.setDefaultMaxPerRoute(64);
    pool.setValidateAfterInactivity(2000);
    HttpTransport transport =
        new ApacheHttpTransport(
            ApacheHttpTransport.newDefaultHttpClientBuilder()
                .setConnectionManager(pool)
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .addInterceptorLast(capTimeouts)
                .addInterceptorFirst(record)
                .build());
    return new ObservingTransport(transport, pool);
  }

  /** A timeout of at most {@code cap} ms; {@code configured} 0 or less means "none". */
  private static int bound(int configured, int cap) {
    return configured <= 0 ? cap : Math.min(configured, cap);
  }

  /** An error answer's entity whose bytes are copied into the exchange as they are read. */
  private static final class Teed extends HttpEntityWrapper {
    private final Exchange exchange;

    Teed(HttpEntity inner, Exchange exchange) {
      super(inner);
      this.exchange = exchange;
    }

    @Override
    public InputStream getContent() throws IOException {
      InputStream in = super.getContent();
      return in == null
          ? null
          : new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
              int b = super.read();
              if (b >= 0) {
                exchange.errorBytes(new byte[] {(byte) b}, 0, 1);
              }
              return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
              int n = super.read(b, off, len);
              if (n > 0) {
                exchange.errorBytes(b, off, n);
              }
              return n;
            }
          };
    }
  }
}
