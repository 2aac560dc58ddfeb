package io.ankusa.claimcheck.store.gcs;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ankusa.claimcheck.store.gcs.StubObjects.StubObject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A <b>stub</b> of the few Cloud Storage JSON API calls the GCS store makes, on loopback, for tests
 * only: not GCS, not an emulator. Thread-safe.
 *
 * <p>Uploads are {@link StubUploads}'. It answers as GCS's documentation says GCS answers, and no
 * further:
 *
 * <ul>
 *   <li>{@code objects.insert} ({@code POST /upload/storage/v1/b/<bucket>/o}), {@code
 *       uploadType=multipart} (a {@code multipart/related} body: the JSON resource, then the media)
 *       and {@code uploadType=resumable} (a session URI in {@code Location}; {@code PUT}s of {@code
 *       Content-Range: bytes a-b/*} answered {@code 308} with {@code Range: bytes=0-b}; the one
 *       with the total finalizes the object):
 *       https://cloud.google.com/storage/docs/json_api/v1/objects/insert,
 *       https://cloud.google.com/storage/docs/performing-resumable-uploads. The object exists only
 *       once finalized; an unfinalized session leaves nothing visible;
 *   <li>{@code ifGenerationMatch} (0: no live object) on the insert and again when a resumable
 *       session finalizes; failing it is {@code 412 conditionNotMet}:
 *       https://cloud.google.com/storage/docs/request-preconditions;
 *   <li>{@code objects.get} with {@code alt=media} and {@code Range}: {@code 206} with {@code
 *       Content-Range}, {@code x-goog-generation}, {@code x-goog-stored-content-length}, {@code
 *       x-goog-hash}; {@code 416} for a range starting at or past the end; without {@code alt}, the
 *       object resource: https://cloud.google.com/storage/docs/json_api/v1/objects/get;
 *   <li>{@code objects.list} with {@code prefix}, {@code maxResults}, {@code pageToken} (name
 *       order, {@code nextPageToken} while more remain):
 *       https://cloud.google.com/storage/docs/json_api/v1/objects/list;
 *   <li>{@code objects.delete}: {@code 204}:
 *       https://cloud.google.com/storage/docs/json_api/v1/objects/delete;
 *   <li>errors as GCS's JSON error document ({@code {"error":{"code":..,"message":..,
 *       "errors":[{"reason":..}]}}}): a missing object {@code 404 notFound "No such object:
 *       <bucket>/<name>"}, a missing bucket {@code 404 notFound "The specified bucket does not
 *       exist."}, {@code 412 conditionNotMet}, a crc32c that does not match {@code 400 invalid}:
 *       https://cloud.google.com/storage/docs/json_api/v1/status-codes. Throttling ({@code 429
 *       rateLimitExceeded}, {@code 503} with {@code Retry-After}) is {@link #throttleNext}.
 * </ul>
 *
 * No authentication, no batch endpoint, no ACLs, no consistency model but "one lock", no resumable
 * status queries or retries of a chunk (the store makes none).
 */
final class GcsStub implements AutoCloseable {

  private static final Pattern OBJECT =
      Pattern.compile("(?:/download)?/storage/v1/b/([^/]+)/o/(.+)");
  private static final Pattern OBJECTS = Pattern.compile("/storage/v1/b/([^/]+)/o/?");
  private static final Pattern UPLOAD = Pattern.compile("/upload/storage/v1/b/([^/]+)/o/?");
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d*)");

  private final StubObjects objects = new StubObjects();
  private final StubUploads uploads = new StubUploads(objects);
  private final AtomicInteger throttles = new AtomicInteger();
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private volatile int throttleStatus;

  private GcsStub(HttpServer server) {
    this.server = server;
  }

  /** Starts a stub on a free loopback port. */
  static GcsStub start() throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    GcsStub stub = new GcsStub(s);
    s.createContext("/", stub::handle);
    s.setExecutor(stub.threads);
    s.start();
    return stub;
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  StubObjects objects() {
    return objects;
  }

  /** How many resumable sessions were opened and never finalized. */
  int openSessions() {
    return uploads.openSessions();
  }

  /**
   * Answers the next {@code n} requests with GCS's throttling: {@code 429 rateLimitExceeded}, or
   * (status 503) {@code 503 backendError} with {@code Retry-After: 2}.
   */
  void throttleNext(int n, int status) {
    throttleStatus = status;
    throttles.set(n);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      byte[] body = x.getRequestBody().readAllBytes();
      if (Boolean.getBoolean("gcs.stub.log")) {
        System.err.println(
            "GcsStub: "
                + x.getRequestMethod()
                + " "
                + x.getRequestURI()
                + " "
                + x.getRequestHeaders().entrySet()
                + " body "
                + body.length);
      }
      if (throttles.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        if (throttleStatus == 503) {
          x.getResponseHeaders().set("Retry-After", "2");
          json(x, 503, StubObjects.error(503, "backendError", "Backend Error"));
        } else {
          json(
              x,
              429,
              StubObjects.error(
                  429,
                  "rateLimitExceeded",
                  "The rate of change requests to the object exceeds the rate limit. Please reduce the rate of create, update, and delete requests."));
        }
        return;
      }
      route(x, body);
    } catch (RuntimeException e) {
      json(x, 500, StubObjects.error(500, "backendError", "stub: " + e));
    }
  }

  private void route(HttpExchange x, byte[] body) throws IOException {
    String path = x.getRequestURI().getRawPath();
    Map<String, String> q = query(x.getRequestURI().getRawQuery());
    String method = x.getRequestMethod();
    Matcher m;
    if ((m = UPLOAD.matcher(path)).matches()) {
      String bucket = decode(m.group(1));
      if (!bucketExists(x, bucket)) {
        return;
      }
      if (method.equals("POST") && "multipart".equals(q.get("uploadType"))) {
        uploads.multipart(x, bucket, q, body);
      } else if (method.equals("POST") && "resumable".equals(q.get("uploadType"))) {
        uploads.startResumable(x, bucket, q, body);
      } else if (method.equals("PUT") && q.containsKey("upload_id")) {
        uploads.resumableChunk(x, q.get("upload_id"), body);
      } else {
        json(
            x,
            400,
            StubObjects.error(400, "invalid", "stub: unsupported upload " + method + " " + q));
      }
    } else if ((m = OBJECT.matcher(path)).matches()) {
      String bucket = decode(m.group(1));
      if (bucketExists(x, bucket)) {
        object(x, method, bucket, decode(m.group(2)), q);
      }
    } else if ((m = OBJECTS.matcher(path)).matches() && method.equals("GET")) {
      String bucket = decode(m.group(1));
      if (bucketExists(x, bucket)) {
        list(x, bucket, q);
      }
    } else {
      json(x, 404, StubObjects.error(404, "notFound", "stub: no such call " + method + " " + path));
    }
  }

  private boolean bucketExists(HttpExchange x, String bucket) throws IOException {
    if (objects.hasBucket(bucket)) {
      return true;
    }
    json(x, 404, StubObjects.error(404, "notFound", "The specified bucket does not exist."));
    return false;
  }

  private void object(
      HttpExchange x, String method, String bucket, String name, Map<String, String> q)
      throws IOException {
    StubObject o = objects.get(bucket, name);
    if (o == null) {
      json(x, 404, StubObjects.error(404, "notFound", "No such object: " + bucket + "/" + name));
      return;
    }
    if (method.equals("DELETE")) {
      objects.delete(bucket, name);
      x.sendResponseHeaders(204, -1);
    } else if (method.equals("GET") && "media".equals(q.get("alt"))) {
      media(x, bucket, o);
    } else if (method.equals("GET")) {
      json(x, 200, StubObjects.json(bucket, o));
    } else {
      json(x, 405, StubObjects.error(405, "methodNotAllowed", "stub: " + method));
    }
  }

  private void media(HttpExchange x, String bucket, StubObject o) throws IOException {
    byte[] b = o.bytes();
    var h = x.getResponseHeaders();
    h.set("Content-Type", "application/octet-stream");
    h.set("x-goog-generation", Long.toString(o.generation()));
    h.set("x-goog-metageneration", "1");
    h.set("x-goog-stored-content-length", Integer.toString(b.length));
    h.set("x-goog-stored-content-encoding", "identity");
    h.set("x-goog-hash", "crc32c=" + StubObjects.crc32c(b) + ",md5=" + StubObjects.md5(b));
    String range = x.getRequestHeaders().getFirst("Range");
    if (range == null) {
      send(x, 200, b, 0, b.length);
      return;
    }
    Matcher m = RANGE.matcher(range.trim());
    if (!m.matches()) {
      send(x, 200, b, 0, b.length);
      return;
    }
    long first = Long.parseLong(m.group(1));
    long last =
        m.group(2).isEmpty() ? b.length - 1 : Math.min(Long.parseLong(m.group(2)), b.length - 1);
    if (first >= b.length) {
      h.remove("x-goog-hash");
      json(
          x,
          416,
          StubObjects.error(
              416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied."));
      return;
    }
    h.set("Content-Range", "bytes " + first + "-" + last + "/" + b.length);
    send(x, 206, b, (int) first, (int) (last - first + 1));
  }

  private void list(HttpExchange x, String bucket, Map<String, String> q) throws IOException {
    int max = Math.min(1000, Integer.parseInt(q.getOrDefault("maxResults", "1000")));
    String after =
        q.containsKey("pageToken")
            ? new String(Base64.getUrlDecoder().decode(q.get("pageToken")), StandardCharsets.UTF_8)
            : null;
    List<StubObject> page = objects.list(bucket, q.getOrDefault("prefix", ""), after, max);
    StringBuilder b = new StringBuilder("{\"kind\":\"storage#objects\"");
    if (page.size() > max) {
      page = page.subList(0, max);
      b.append(",\"nextPageToken\":\"")
          .append(
              Base64.getUrlEncoder()
                  .encodeToString(page.get(max - 1).name().getBytes(StandardCharsets.UTF_8)))
          .append('"');
    }
    b.append(",\"items\":[");
    for (int i = 0; i < page.size(); i++) {
      b.append(i == 0 ? "" : ",").append(StubObjects.json(bucket, page.get(i)));
    }
    json(x, 200, b.append("]}").toString());
  }

  static Optional<String> field(Pattern p, String json) {
    Matcher m = p.matcher(json);
    return m.find() ? Optional.of(m.group(1).replace("\\/", "/")) : Optional.empty();
  }

  static void json(HttpExchange x, int status, String json) throws IOException {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
    send(x, status, b, 0, b.length);
  }

  private static void send(HttpExchange x, int status, byte[] b, int off, int len)
      throws IOException {
    x.sendResponseHeaders(status, len == 0 ? -1 : len);
    if (len > 0) {
      try (OutputStream out = x.getResponseBody()) {
        out.write(b, off, len);
      }
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw != null) {
      for (String kv : raw.split("&")) {
        int i = kv.indexOf('=');
        q.put(decode(i < 0 ? kv : kv.substring(0, i)), i < 0 ? "" : decode(kv.substring(i + 1)));
      }
    }
    return q;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /** For {@link Instant} backdating from tests. */
  void backdate(String bucket, String name, Instant at) {
    objects.backdate(bucket, name, at);
  }
}
