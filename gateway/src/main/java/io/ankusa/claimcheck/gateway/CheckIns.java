package io.ankusa.claimcheck.gateway;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.ClaimCheckFailure;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.time.Ticker;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * {@code POST /v1/claims}: checks the body in for the token's tenant, answering 201 with the ref
 * only once a store durably holds the claim (the library's check-in, as the serializer's);
 * thread-safe.
 *
 * <p>One claim check per (tenant, codec), opened on first use over the same store configuration, so
 * all share the process's one store set and reader. A body within {@code
 * claimcheck.write.max.bytes} is read whole and checked in as a packed claim; a longer one
 * (declared, or a chunked body passing it), up to {@code claimcheck.stream.max.bytes}, is a
 * streamed claim read on a check-in thread straight into one store (413 past the limit: from the
 * declared length before reading, or once a chunked body passes it). A check-in blocks a thread of
 * {@code executor} (up to the write deadline; a streamed one as long as its body takes); when none
 * is free the answer is 503.
 */
final class CheckIns implements AutoCloseable {

  private record Key(String tenant, Codec codec) {}

  private final ClaimCheckConfig base;
  private final Object registry;
  private final Ticker ticker;
  private final Executor executor;
  private final int writeMaxBytes;
  private final long streamMaxBytes;
  private final Map<Key, ClaimCheck> writers = new ConcurrentHashMap<>();

  CheckIns(ClaimCheckConfig base, Object registry, Ticker ticker, Executor executor) {
    this.base = base;
    this.registry = registry;
    this.ticker = ticker;
    this.executor = executor;
    this.writeMaxBytes = base.writeMaxBytes();
    this.streamMaxBytes = Math.max(writeMaxBytes, base.streamWriteMaxBytes());
  }

  void checkIn(Exchange x, Grant grant) {
    if (!grant.write()) {
      refuseAfterBody(
          x,
          new Problem(
              403,
              "FORBIDDEN",
              "this token may not check claims in for tenant " + grant.tenant(),
              grant.tenant(),
              null));
      return;
    }
    Codec codec;
    try {
      codec = codec(x.request());
    } catch (IllegalArgumentException e) {
      refuseAfterBody(x, new Problem(400, "BAD_REQUEST", e.getMessage(), grant.tenant(), null));
      return;
    }
    long declared = x.request().getLength();
    if (declared > streamMaxBytes) {
      x.problem(tooLarge(grant, declared + " bytes"));
      return;
    }
    if (declared == 0) {
      x.problem(
          new Problem(
              400, "BAD_REQUEST", "an empty payload is never checked in", grant.tenant(), null));
      return;
    }
    if (declared > writeMaxBytes || (declared < 0 && streamMaxBytes > writeMaxBytes)) {
      // Larger than a whole check-in takes (or perhaps, chunked): streamed on a check-in thread.
      try {
        executor.execute(() -> streamed(x, grant, codec, declared));
      } catch (RejectedExecutionException full) {
        x.problem(
            new Problem(
                503,
                "UNAVAILABLE",
                "overloaded: every check-in thread is busy",
                grant.tenant(),
                null));
      }
      return;
    }
    BoundedBody.read(x.request(), writeMaxBytes, declared)
        .whenComplete(
            (bytes, error) -> {
              if (error != null) {
                x.problem(tooLargeOrBroken(grant, error));
              } else if (bytes.length == 0) {
                x.problem(
                    new Problem(
                        400,
                        "BAD_REQUEST",
                        "an empty payload is never checked in",
                        grant.tenant(),
                        null));
              } else {
                try {
                  executor.execute(() -> store(x, grant, codec, bytes));
                } catch (RejectedExecutionException full) {
                  x.problem(
                      new Problem(
                          503,
                          "UNAVAILABLE",
                          "overloaded: every check-in thread is busy",
                          grant.tenant(),
                          null));
                }
              }
            });
  }

  /**
   * Answers {@code p} to a POST refused before its body was needed, once a small body (at most
   * {@value #DRAIN_BYTES} bytes, declared or chunked) has been read and dropped: a final answer
   * sent while the client still writes its body makes the server close the connection under it, and
   * the client may then see the reset instead of the answer. A larger body is not read: the answer
   * goes out at once and the connection closes after it.
   */
  private static void refuseAfterBody(Exchange x, Problem p) {
    long declared = x.request().getLength();
    if (declared > DRAIN_BYTES) {
      x.problem(p);
      return;
    }
    BoundedBody.read(x.request(), DRAIN_BYTES, declared).whenComplete((bytes, e) -> x.problem(p));
  }

  /** The largest body {@link #refuseAfterBody} reads before answering. */
  static final int DRAIN_BYTES = 64 * 1024;

  /**
   * Checks a body in that may pass the whole-claim limit, reading it on this (check-in) thread: a
   * chunked body that ends within {@code claimcheck.write.max.bytes} is an ordinary check-in (a v1
   * or v2 ref, as the serializer's); a longer one — or one declared longer — is a streamed claim
   * (zstd when asked for, else stored as it is), up to {@code claimcheck.stream.max.bytes}.
   */
  private void streamed(Exchange x, Grant grant, Codec codec, long declared) {
    InputStream body = Content.Source.asInputStream(x.request());
    ClaimRef ref;
    try {
      if (declared < 0) {
        byte[] head = body.readNBytes(writeMaxBytes + 1);
        if (head.length <= writeMaxBytes) {
          if (head.length == 0) {
            x.problem(
                new Problem(
                    400,
                    "BAD_REQUEST",
                    "an empty payload is never checked in",
                    grant.tenant(),
                    null));
          } else {
            store(x, grant, codec, head);
          }
          return;
        }
        body = new SequenceInputStream(new ByteArrayInputStream(head), body);
      }
      ref =
          writer(grant.tenant(), codec)
              .checkIn(body, declared, codec == Codec.ZSTD ? Codec.ZSTD : Codec.NONE);
    } catch (ClaimCheckFailure f) {
      Problem p = Problem.of(f, null);
      x.problem(new Problem(p.status(), p.reason(), p.detail(), grant.tenant(), null));
      return;
    } catch (IOException | IllegalArgumentException e) {
      x.problem(
          new Problem(
              400,
              "BAD_REQUEST",
              "the request body could not be read: " + e.getMessage(),
              grant.tenant(),
              null));
      return;
    } catch (RuntimeException e) {
      x.problem(new Problem(503, "UNAVAILABLE", "check-in failed: " + e, grant.tenant(), null));
      return;
    }
    created(x, ref);
  }

  private void store(Exchange x, Grant grant, Codec codec, byte[] bytes) {
    ClaimRef ref;
    try {
      ref = writer(grant.tenant(), codec).checkIn(bytes);
    } catch (ClaimCheckFailure f) {
      Problem p = Problem.of(f, null);
      x.problem(new Problem(p.status(), p.reason(), p.detail(), grant.tenant(), null));
      return;
    } catch (RuntimeException e) {
      x.problem(new Problem(503, "UNAVAILABLE", "check-in failed: " + e, grant.tenant(), null));
      return;
    }
    created(x, ref);
  }

  private void created(Exchange x, ClaimRef ref) {
    String b64 = RefPath.encode(ref);
    var h = x.response().getHeaders();
    h.put(HttpHeader.LOCATION, "/v1/claims/" + b64);
    h.put(HttpHeader.ETAG, RefPath.etag(ref));
    h.put(HttpHeader.CACHE_CONTROL, "no-store");
    String accept = x.header(HttpHeader.ACCEPT);
    byte[] body;
    if (accept != null && accept.contains("application/octet-stream")) {
      body = RefCodec.encode(ref);
      h.put(HttpHeader.CONTENT_TYPE, "application/octet-stream");
    } else {
      body = b64.getBytes(StandardCharsets.US_ASCII);
      h.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=us-ascii");
    }
    h.put(HttpHeader.CONTENT_LENGTH, Long.toString(body.length));
    x.answer(201, ByteBuffer.wrap(body), 0);
  }

  private ClaimCheck writer(String tenant, Codec codec) {
    return writers.computeIfAbsent(
        new Key(tenant, codec),
        k -> {
          Map<String, Object> m = new HashMap<>(base.originals());
          m.put(ClaimCheckConfig.TENANT, k.tenant());
          m.put(ClaimCheckConfig.COMPRESSION_TYPE, k.codec().name().toLowerCase(Locale.ROOT));
          return ClaimCheck.open(new ClaimCheckConfig(m), registry, ticker);
        });
  }

  /** The codec of {@code ?compression=}, or the configured one. */
  private Codec codec(Request r) {
    String asked = Request.extractQueryParameters(r).getValue("compression");
    if (asked == null) {
      return Codec.valueOf(
          base.getString(ClaimCheckConfig.COMPRESSION_TYPE).toUpperCase(Locale.ROOT));
    }
    for (Codec c : Codec.values()) {
      if (c.name().equalsIgnoreCase(asked)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "compression must be one of none, gzip, snappy, lz4, zstd, not '"
            + asked.substring(0, Math.min(asked.length(), 20))
            + "'");
  }

  private Problem tooLarge(Grant grant, String what) {
    return new Problem(
        413,
        "REFUSED",
        "a payload of "
            + what
            + " exceeds "
            + ClaimCheckConfig.WRITE_MAX_BYTES
            + " ("
            + writeMaxBytes
            + ")"
            + (streamMaxBytes > writeMaxBytes
                ? " and " + ClaimCheckConfig.STREAM_MAX_BYTES + " (" + streamMaxBytes + ")"
                : ""),
        grant.tenant(),
        null);
  }

  private Problem tooLargeOrBroken(Grant grant, Throwable error) {
    Throwable e =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e instanceof BoundedBody.TooLarge) {
      return tooLarge(grant, "more bytes");
    }
    return new Problem(
        400, "BAD_REQUEST", "the request body could not be read: " + e, grant.tenant(), null);
  }

  @Override
  public void close() {
    writers.values().forEach(ClaimCheck::close);
    writers.clear();
  }
}
