package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.gateway.telemetry.GatewayMetrics;
import io.ankusa.claimcheck.time.Ticker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The claim gateway: a Jetty 12 server over one {@link ClaimCheck}, started by {@link #start} and
 * stopped by {@link #close}; thread-safe.
 *
 * <p>Jetty 12's core {@code Handler} API answers asynchronously (a redeem waiting on a store holds
 * no thread, except the few {@link InlineLeads} that make their small store read on the server's
 * thread, {@code gateway.inline.leads}), streams request and response bodies, bounds header sizes
 * and idle connections, and is already on the build (S3Proxy 4 runs on it, so the Jetty BOM is
 * imported): no servlet container and no second HTTP stack. Jetty has no deadline for a request's
 * headers (its idle timeout restarts at every byte): {@link HeaderDeadline} adds one.
 */
public final class Gateway implements AutoCloseable {

  private final GatewayConfig config;
  private final GatewayMetrics metrics = new GatewayMetrics();
  private final ClaimCheck cc;
  private final Tokens tokens;
  private final CheckIns checkIns;
  private final Readiness readiness;
  private final ScheduledExecutorService timer;
  private final ThreadPoolExecutor checkInPool;
  private final Server server;

  /** Connections the OS may hold waiting for an accept (capped by net.core.somaxconn). */
  static final int ACCEPT_QUEUE = 1024;

  private final ServerConnector connector;
  private HeaderDeadline headerDeadline;

  private Gateway(GatewayConfig config) {
    this.config = config;
    try {
      this.tokens = new Tokens(config.tokensFile());
    } catch (IOException e) {
      throw new ConfigException(
          GatewayConfig.TOKENS_FILE, config.tokensFile().toString(), "unreadable: " + e);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          GatewayConfig.TOKENS_FILE, config.tokensFile().toString(), e.getMessage());
    }
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "claimcheck-gateway-timer");
              t.setDaemon(true);
              return t;
            });
    QueuedThreadPool pool = new QueuedThreadPool(config.threadsMax(), 4);
    pool.setName("claimcheck-gateway");
    this.server = new Server(pool);
    this.cc = ClaimCheck.open(config.library(), metrics.registry(), Ticker.system());
    this.checkInPool =
        new ThreadPoolExecutor(
            config.checkInThreads(),
            config.checkInThreads(),
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, "claimcheck-gateway-checkin");
              t.setDaemon(true);
              return t;
            });
    checkInPool.allowCoreThreadTimeOut(true);
    this.checkIns =
        new CheckIns(config.library(), metrics.registry(), Ticker.system(), checkInPool);
    this.readiness = new Readiness(cc, timer);

    HttpConfiguration http = new HttpConfiguration();
    http.setRequestHeaderSize(config.maxHeaderBytes());
    http.setSendServerVersion(false);
    http.setSendDateHeader(true);
    HttpConnectionFactory h1 = new HttpConnectionFactory(http);
    if (config.tls()) {
      SecureRequestCustomizer secure = new SecureRequestCustomizer();
      secure.setSniHostCheck(false);
      http.addCustomizer(secure);
      SslContextFactory.Server ssl = new SslContextFactory.Server();
      ssl.setKeyStorePath(config.keystorePath());
      ssl.setKeyStoreType("PKCS12");
      if (config.keystorePassword() != null) {
        ssl.setKeyStorePassword(config.keystorePassword().value());
      }
      if (!config.clientAuth().equals("none")) {
        ssl.setTrustStorePath(config.truststorePath());
        ssl.setTrustStoreType("PKCS12");
        if (config.truststorePassword() != null) {
          ssl.setTrustStorePassword(config.truststorePassword().value());
        }
        ssl.setNeedClientAuth(config.clientAuth().equals("need"));
        ssl.setWantClientAuth(config.clientAuth().equals("want"));
      }
      this.connector =
          new ServerConnector(server, new SslConnectionFactory(ssl, h1.getProtocol()), h1);
    } else {
      this.connector = new ServerConnector(server, h1);
    }
    connector.setHost(config.listen().host());
    connector.setPort(config.listen().port());
    connector.setIdleTimeout(config.idleTimeoutMs());
    // The OS accept queue: Java's default of 50 drops the SYNs of a burst of new connections once
    // 50 wait, and each dropped one costs its client a 1 s SYN retransmit (10,000 connections took
    // 60 s to open here, 1 s with this); the kernel caps it at net.core.somaxconn.
    connector.setAcceptQueueSize(ACCEPT_QUEUE);
    server.addConnector(connector);
    // Idle connections are bounded in number (here) and in time (the idle timeout): a flood of
    // them costs a selector key and a small buffer each, never a thread.
    server.addBean(new NetworkConnectionLimit(config.maxConnections(), connector));
    server.setHandler(
        new GatewayHandler(
            cc,
            tokens,
            metrics,
            checkIns,
            readiness,
            new InlineLeads(config.inlineLeads(), cc.ticker()),
            config.retryAfterSeconds(),
            pool));
  }

  /**
   * Validates {@code properties} ({@code ConfigException} naming the key), opens the stores and
   * starts listening.
   */
  public static Gateway start(Map<String, ?> properties) {
    GatewayConfig config = new GatewayConfig(properties);
    Gateway g = new Gateway(config);
    try {
      g.server.start();
    } catch (Exception e) {
      g.close();
      if (e instanceof IOException io) {
        throw new UncheckedIOException("gateway: cannot listen on " + config.listen(), io);
      }
      throw new IllegalStateException("gateway: the HTTP server did not start", e);
    }
    long reload = config.tokensReloadMs();
    g.timer.scheduleWithFixedDelay(g.tokens::reload, reload, reload, TimeUnit.MILLISECONDS);
    g.readiness.start();
    g.headerDeadline =
        new HeaderDeadline(g.connector, Ticker.system(), config.headerDeadlineMs(), g.timer);
    return g;
  }

  /** Where it listens: {@code http[s]://HOST:PORT} with the port actually bound. */
  public URI uri() {
    String host = config.listen().host();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create(
        (config.tls() ? "https" : "http") + "://" + host + ":" + connector.getLocalPort());
  }

  /** Whether the stores answered the readiness probe. */
  public boolean ready() {
    return readiness.ready();
  }

  /** The claim check it serves through (the gate, the reader): for tests in this package. */
  ClaimCheck claimCheck() {
    return cc;
  }

  /**
   * The server's thread pool, the one admitted requests are handed to: for tests in this package.
   */
  java.util.concurrent.Executor pool() {
    return server.getThreadPool();
  }

  /** How many connections the gateway holds open now: for tests in this package. */
  int openConnections() {
    return connector.getConnectedEndPoints().size();
  }

  Tokens tokens() {
    return tokens;
  }

  /** How many connections the header deadline closed: for tests in this package. */
  long closedForSlowHeaders() {
    return headerDeadline == null ? 0 : headerDeadline.closed();
  }

  /** Stops listening, then closes the claim checks; idempotent. */
  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      // stopping is best effort: the claim checks still close
    }
    timer.shutdownNow();
    checkInPool.shutdownNow();
    checkIns.close();
    cc.close();
    metrics.close();
  }
}
