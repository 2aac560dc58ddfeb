package io.ankusa.claimcheck.store.s3;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;

/**
 * Builds the HTTP client under an S3 store's SDK client, Netty (the default) or CRT; stateless and
 * thread-safe.
 *
 * <p>Both get the same bounds from the settings: at most {@code maxConnections} connections, a
 * connect timeout, and a connection-acquisition timeout (the connect timeout plus a second), so a
 * store that refuses connections fails fast either way. The CRT client lives in the optional {@code
 * aws-crt-client} artifact; its classes are touched only by {@link CrtHttpClient}, and only when
 * chosen.
 */
final class HttpClients {

  /** The HTTP client the store uses when none is chosen. */
  static final String NETTY = "netty";

  /**
   * The CRT-based HTTP client (optional artifact {@code software.amazon.awssdk:aws-crt-client}).
   */
  static final String CRT = "crt";

  /** A class of the SDK's CRT HTTP client and one of the native runtime it needs. */
  private static final String[] CRT_CLASSES = {
    "software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient", "software.amazon.awssdk.crt.CRT"
  };

  /**
   * The Netty event loop's quiet period on close. Not 0: the SDK's channel pool, closing, queues
   * follow-up tasks on the loop (a released channel's listeners, the idle count of a closed one),
   * and a loop without a quiet period terminates right after one round of tasks, rejecting those
   * ("Failed to submit a listener notification task. Event loop shut down?", logged at ERROR by a
   * few closes in every 200: OpenCloseLeakIT). Nobody waits for the loop to end, so this costs a
   * closing caller nothing: the threads just live this much longer.
   */
  private static final long QUIET_MS = 100;

  /** An HTTP client's builder, and what to release after the SDK client that owns it closes. */
  record Built(SdkAsyncHttpClient.Builder<?> builder, Runnable afterClose) {}

  private HttpClients() {}

  /**
   * The first class of the CRT HTTP client and its native runtime that cannot be loaded, or null
   * when both are on the class path.
   */
  static String missingCrtClass() {
    ClassLoader loader = HttpClients.class.getClassLoader();
    for (String c : CRT_CLASSES) {
      try {
        Class.forName(c, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        return c;
      }
    }
    return null;
  }

  /** Whether the CRT HTTP client and its native runtime are on the class path. */
  static boolean crtAvailable() {
    return missingCrtClass() == null;
  }

  /**
   * Returns the builder of the blocking HTTP client for inline calls, with the same bounds: Apache
   * 5 under Netty (the request written and its answer read on the calling thread), CRT's
   * synchronous client under CRT.
   */
  static SdkHttpClient.Builder<?> buildSync(S3Settings settings) {
    if (settings.httpClient().equals(CRT)) {
      return CrtHttpClient.syncBuilder(settings);
    }
    return Apache5HttpClient.builder()
        .maxConnections(settings.maxConnections())
        .connectionTimeout(settings.connectTimeout())
        .connectionAcquisitionTimeout(settings.connectionAcquisitionTimeout());
  }

  /**
   * Returns the builder of the HTTP client {@code settings} choose.
   *
   * @throws IllegalStateException when the CRT client is chosen and not on the class path
   */
  static Built build(S3Settings settings) {
    if (settings.httpClient().equals(CRT)) {
      if (!crtAvailable()) {
        throw new IllegalStateException(
            "the S3 HTTP client 'crt' needs"
                + " software.amazon.awssdk:aws-crt-client on the class path");
      }
      return new Built(CrtHttpClient.builder(settings), () -> {});
    }
    // Our own event loop, so closing a store does not sit through Netty's default 2 s quiet
    // period (a producer, a Streams thread or a Connect task closes within its own budget).
    EventLoopGroup loop = new NioEventLoopGroup(2, new DefaultThreadFactory("claimcheck-s3", true));
    return new Built(
        NettyNioAsyncHttpClient.builder()
            .maxConcurrency(settings.maxConnections())
            .connectionTimeout(settings.connectTimeout())
            .connectionAcquisitionTimeout(settings.connectionAcquisitionTimeout())
            .eventLoopGroup(SdkEventLoopGroup.create(loop)),
        () -> loop.shutdownGracefully(QUIET_MS, 5_000, TimeUnit.MILLISECONDS));
  }
}
