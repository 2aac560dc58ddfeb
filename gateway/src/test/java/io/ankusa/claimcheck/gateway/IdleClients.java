package io.ankusa.claimcheck.gateway;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * The client side of {@link GatewayIdleConnectionsIT}, run as a process of its own so that each end
 * of 10,000 connections has its own file descriptor limit: {@code IdleClients HOST PORT N WAIT_MS}
 * opens {@code N} connections that send nothing, prints {@code OPENED N MS}, then waits (up to
 * {@code WAIT_MS} in all) for the server to close each one and prints {@code CLOSED K MS} ({@code
 * K} of {@code N} closed by the server) and exits. Not thread-safe; one thread.
 */
final class IdleClients {

  private IdleClients() {}

  public static void main(String[] args) throws IOException {
    InetSocketAddress at = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    int n = Integer.parseInt(args[2]);
    long waitMs = Long.parseLong(args[3]);
    long start = System.nanoTime();
    List<Socket> sockets = new ArrayList<>(n);
    try {
      for (int i = 0; i < n; i++) {
        Socket s = new Socket();
        s.connect(at, 30_000);
        sockets.add(s);
      }
      System.out.println("OPENED " + n + " " + (System.nanoTime() - start) / 1_000_000);
      System.out.flush();
      long end = System.nanoTime() + waitMs * 1_000_000;
      int closed = 0;
      for (Socket s : sockets) {
        long left = (end - System.nanoTime()) / 1_000_000;
        if (left > 0 && closedByServer(s, (int) Math.min(left, Integer.MAX_VALUE))) {
          closed++;
        }
      }
      System.out.println("CLOSED " + closed + " " + (System.nanoTime() - start) / 1_000_000);
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }

  /** Whether the server closed {@code s} (EOF or reset) within {@code waitMs}. */
  private static boolean closedByServer(Socket s, int waitMs) throws IOException {
    s.setSoTimeout(waitMs);
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }
}
