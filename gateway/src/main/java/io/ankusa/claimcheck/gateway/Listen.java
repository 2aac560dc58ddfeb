package io.ankusa.claimcheck.gateway;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where the gateway listens: a host and a port (0: any free port); immutable.
 *
 * @param host a host name or IP literal (IPv6 in brackets in the key, without them here)
 * @param port 0..65535
 */
public record Listen(String host, int port) {

  /** Parses {@code host:port}, naming {@code key} when it is not one. */
  static Listen parse(String key, String value) {
    int colon = value.lastIndexOf(':');
    if (colon <= 0 || colon == value.length() - 1) {
      throw new ConfigException(key, value, "expected host:port");
    }
    String host = value.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(value.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new ConfigException(key, value, "the port is not a number");
    }
    if (port < 0 || port > 65535) {
      throw new ConfigException(key, value, "the port is outside 0..65535");
    }
    if (host.isBlank()) {
      throw new ConfigException(key, value, "expected host:port");
    }
    return new Listen(host, port);
  }

  /** Whether the host is a loopback address ({@code localhost} or 127.0.0.0/8, ::1). */
  boolean isLoopback() {
    if (host.equals("localhost")) {
      return true;
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
