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

  /**
   * Returns {@code n} different ports that were free a moment ago: all are held open together while
   * they are chosen, so the system cannot hand out one port twice (calling {@link #next} twice can,
   * once a released port is reused).
   */
  static int[] distinct(int n) {
    ServerSocket[] sockets = new ServerSocket[n];
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        sockets[i] = new ServerSocket();
        sockets[i].setReuseAddress(true);
        sockets[i].bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find " + n + " free local ports", e);
    } finally {
      for (ServerSocket s : sockets) {
        if (s != null) {
          try {
            s.close();
          } catch (IOException ignored) {
            // a socket that will not close still released nothing we need
          }
        }
      }
    }
  }
}
