package io.ankusa.claimcheck.store.gcs;

import com.sun.net.httpserver.HttpExchange;
import io.ankusa.claimcheck.store.gcs.StubObjects.StubObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@link GcsStub}'s {@code objects.insert}: {@code uploadType=multipart} and the resumable
 * protocol (session, {@code 308} chunks, finalize with the total), each under its {@code
 * ifGenerationMatch}; thread-safe. Where each answer comes from: {@link GcsStub}.
 */
final class StubUploads {

  private static final Pattern CONTENT_RANGE =
      Pattern.compile("bytes (?:(\\d+)-(\\d+)|\\*)/(\\d+|\\*)");
  private static final Pattern NAME =
      Pattern.compile("\"name\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern CRC = Pattern.compile("\"crc32c\"\\s*:\\s*\"([^\"]+)\"");

  /** One open resumable session. */
  private record Session(
      String bucket, String name, Long ifGenerationMatch, ByteArrayOutputStream bytes) {}

  private final StubObjects objects;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

  StubUploads(StubObjects objects) {
    this.objects = objects;
  }

  /** How many resumable sessions were opened and never finalized. */
  int openSessions() {
    return sessions.size();
  }

  void multipart(HttpExchange x, String bucket, Map<String, String> q, byte[] body)
      throws IOException {
    String type = x.getRequestHeaders().getFirst("Content-Type");
    Matcher bm = Pattern.compile("boundary=\"?([^\";]+)\"?").matcher(type == null ? "" : type);
    if (!bm.find()) {
      GcsStub.json(x, 400, StubObjects.error(400, "invalid", "stub: not multipart/related"));
      return;
    }
    List<byte[]> parts = Multipart.parts(body, bm.group(1));
    if (parts.size() != 2) {
      GcsStub.json(
          x, 400, StubObjects.error(400, "invalid", "stub: " + parts.size() + " parts, not 2"));
      return;
    }
    String metadata = new String(parts.get(0), StandardCharsets.UTF_8);
    String name = q.getOrDefault("name", GcsStub.field(NAME, metadata).orElse(null));
    byte[] media = parts.get(1);
    Optional<String> crc = GcsStub.field(CRC, metadata);
    if (crc.isPresent() && !crc.get().equals(StubObjects.crc32c(media))) {
      GcsStub.json(
          x,
          400,
          StubObjects.error(
              400,
              "invalid",
              "Provided CRC32C \\\"" + crc.get() + "\\\" doesn't match calculated CRC32C."));
      return;
    }
    finish(x, bucket, name, media, generationMatch(q));
  }

  void startResumable(HttpExchange x, String bucket, Map<String, String> q, byte[] body)
      throws IOException {
    String name =
        q.getOrDefault(
            "name", GcsStub.field(NAME, new String(body, StandardCharsets.UTF_8)).orElse(null));
    Long match = generationMatch(q);
    if (!StubObjects.holds(objects.get(bucket, name), match)) {
      conditionNotMet(x);
      return;
    }
    String id = UUID.randomUUID().toString();
    sessions.put(id, new Session(bucket, name, match, new ByteArrayOutputStream()));
    String host = x.getRequestHeaders().getFirst("Host"); // the client's view (a proxy keeps it)
    x.getResponseHeaders()
        .set(
            "Location",
            "http://"
                + host
                + "/upload/storage/v1/b/"
                + bucket
                + "/o?uploadType=resumable&upload_id="
                + id);
    x.sendResponseHeaders(200, -1);
  }

  void resumableChunk(HttpExchange x, String id, byte[] body) throws IOException {
    Session s = sessions.get(id);
    if (s == null) {
      GcsStub.json(x, 404, StubObjects.error(404, "notFound", "stub: no such upload session"));
      return;
    }
    String cr = x.getRequestHeaders().getFirst("Content-Range");
    Matcher m = CONTENT_RANGE.matcher(cr == null ? "" : cr.trim());
    if (!m.matches()) {
      GcsStub.json(x, 400, StubObjects.error(400, "invalid", "stub: bad Content-Range " + cr));
      return;
    }
    synchronized (s) {
      if (m.group(1) != null && Long.parseLong(m.group(1)) != s.bytes().size()) {
        GcsStub.json(
            x,
            400,
            StubObjects.error(
                400, "invalid", "stub: chunk at " + m.group(1) + ", expected " + s.bytes().size()));
        return;
      }
      s.bytes().write(body);
      if (m.group(3).equals("*")) {
        x.getResponseHeaders().set("Range", "bytes=0-" + (s.bytes().size() - 1));
        x.sendResponseHeaders(308, -1);
        return;
      }
      if (Long.parseLong(m.group(3)) != s.bytes().size()) {
        GcsStub.json(
            x,
            400,
            StubObjects.error(
                400,
                "invalid",
                "stub: total " + m.group(3) + " but " + s.bytes().size() + " bytes sent"));
        return;
      }
      sessions.remove(id);
      finish(x, s.bucket(), s.name(), s.bytes().toByteArray(), s.ifGenerationMatch());
    }
  }

  private void finish(HttpExchange x, String bucket, String name, byte[] bytes, Long match)
      throws IOException {
    StubObject o = objects.put(bucket, name, bytes, match);
    if (o == null) {
      conditionNotMet(x);
      return;
    }
    GcsStub.json(x, 200, StubObjects.json(bucket, o));
  }

  private static void conditionNotMet(HttpExchange x) throws IOException {
    GcsStub.json(
        x,
        412,
        StubObjects.error(
            412,
            "conditionNotMet",
            "At least one of the pre-conditions you specified did not hold."));
  }

  private static Long generationMatch(Map<String, String> q) {
    String v = q.get("ifGenerationMatch");
    return v == null ? null : Long.valueOf(v);
  }
}
