package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bearer tokens the gateway accepts, read from a file of their SHA-256 hashes (never the
 * tokens) and re-read when its bytes change; thread-safe (one volatile snapshot).
 *
 * <p>A presented token is hashed and compared with every entry in constant time ({@link
 * MessageDigest#isEqual}, no early exit), so timing says nothing of which entry or how much of it
 * matched. No token, hash or line of the file is ever logged: a bad line is named by its number.
 *
 * <p>A line {@code cn:<CN> <tenant> <rights>} maps a client certificate (mutual TLS, verified
 * against {@code gateway.tls.truststore.path} in the handshake) whose subject CN is exactly {@code
 * <CN>} (no whitespace) to that tenant and those rights.
 */
final class Tokens {

  private static final Logger LOG = LoggerFactory.getLogger(Tokens.class);
  private static final int HASH_BYTES = 32;

  private record Entry(byte[] hash, Grant grant) {}

  /** A client certificate's subject CN mapped to a grant (a {@code cn:<CN>} line). */
  private record CnEntry(String cn, Grant grant) {}

  private record Snapshot(byte[] source, List<Entry> entries, List<CnEntry> cns) {}

  private record Parsed(List<Entry> entries, List<CnEntry> cns) {}

  private final Path file;
  private volatile Snapshot snapshot;

  /** Reads {@code file}; throws {@link IllegalArgumentException} when it does not parse. */
  Tokens(Path file) throws IOException {
    this.file = file;
    byte[] bytes = Files.readAllBytes(file);
    this.snapshot = snapshot(bytes);
  }

  /** The grant of {@code token}, or null when no entry's hash is the token's. */
  Grant lookup(String token) {
    byte[] hash = sha256(token);
    Grant found = null;
    for (Entry e : snapshot.entries()) {
      if (MessageDigest.isEqual(hash, e.hash()) && found == null) {
        found = e.grant();
      }
    }
    return found;
  }

  /**
   * The grant of a verified client certificate whose subject CN is {@code cn} (a {@code cn:<CN>}
   * line of the file), or null; a CN is no secret, so this is a plain lookup.
   */
  Grant lookupCn(String cn) {
    for (CnEntry e : snapshot.cns()) {
      if (e.cn().equals(cn)) {
        return e.grant();
      }
    }
    return null;
  }

  private static Snapshot snapshot(byte[] bytes) {
    Parsed p = parse(bytes);
    return new Snapshot(bytes, p.entries(), p.cns());
  }

  /**
   * Re-reads the file and, when its bytes changed and parse, puts the new tokens in force; a file
   * that cannot be read or parsed leaves the old ones (logged without content). Returns whether the
   * tokens changed.
   */
  boolean reload() {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      LOG.warn("tokens file {} unreadable ({}); the previous tokens stay", file, e.toString());
      return false;
    }
    if (Arrays.equals(bytes, snapshot.source())) {
      return false;
    }
    try {
      Snapshot next = snapshot(bytes);
      snapshot = next;
      LOG.info(
          "tokens file {} reloaded: {} token(s), {} certificate name(s)",
          file,
          next.entries().size(),
          next.cns().size());
      return true;
    } catch (IllegalArgumentException e) {
      LOG.warn("tokens file {} not reloaded: {}; the previous tokens stay", file, e.getMessage());
      return false;
    }
  }

  /** How many tokens are in force. */
  int size() {
    return snapshot.entries().size();
  }

  private static Parsed parse(byte[] bytes) {
    List<Entry> out = new ArrayList<>();
    List<CnEntry> cns = new ArrayList<>();
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\\s+");
      int n = i + 1;
      if (f.length != 3) {
        throw new IllegalArgumentException(
            "line " + n + ": expected '<sha-256 hex> <tenant> <read|write|read,write>'");
      }
      boolean cn = f[0].startsWith("cn:") && f[0].length() > 3;
      if (!cn && !f[0].matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException(
            "line " + n + ": the first field is neither 64 lowercase hex digits nor cn:<CN>");
      }
      if (!ClaimCheckConfig.TENANT_PATTERN.matcher(f[1]).matches() || f[1].contains("..")) {
        throw new IllegalArgumentException("line " + n + ": not a tenant name");
      }
      boolean read = false;
      boolean write = false;
      for (String right : f[2].split(",", -1)) {
        switch (right) {
          case "read" -> read = true;
          case "write" -> write = true;
          default ->
              throw new IllegalArgumentException(
                  "line " + n + ": rights are read, write or read,write");
        }
      }
      if (cn) {
        cns.add(new CnEntry(f[0].substring(3), new Grant(f[1], read, write)));
        continue;
      }
      byte[] hash = HexFormat.of().parseHex(f[0]);
      if (hash.length != HASH_BYTES) {
        throw new IllegalArgumentException("line " + n + ": not a SHA-256");
      }
      out.add(new Entry(hash, new Grant(f[1], read, write)));
    }
    return new Parsed(List.copyOf(out), List.copyOf(cns));
  }

  /** The SHA-256 of {@code token}'s UTF-8 bytes. */
  static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The lowercase hex SHA-256 of {@code token}: what a tokens file holds. */
  static String hashHex(String token) {
    return HexFormat.of().formatHex(sha256(token));
  }
}
