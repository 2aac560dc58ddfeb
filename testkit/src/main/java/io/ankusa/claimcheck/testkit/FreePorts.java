package io.ankusa.claimcheck.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Finds free local TCP ports; thread-safe (stateless). */
final class FreePorts {

  private FreePorts() {}

  /** Returns a port that was free on the loopback interface a moment ago. */
  static int next() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free local port", e);
    }
  }
}
