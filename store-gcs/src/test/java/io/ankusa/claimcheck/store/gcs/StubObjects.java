package io.ankusa.claimcheck.store.gcs;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The stub's buckets and their objects, and the JSON resources and error documents GCS answers
 * with; thread-safe (one lock per stub: a conditional write checks and inserts atomically, as GCS's
 * preconditions do). See {@link GcsStub} for where each answer comes from.
 */
final class StubObjects {

  /** One stored object: its bytes, generation and {@code updated} time; immutable. */
  record StubObject(String name, byte[] bytes, long generation, Instant updated) {}

  private final Map<String, NavigableMap<String, StubObject>> buckets = new ConcurrentHashMap<>();
  private final AtomicLong generations = new AtomicLong(1_700_000_000_000_000L);

  void createBucket(String bucket) {
    buckets.putIfAbsent(bucket, new TreeMap<>());
  }

  boolean hasBucket(String bucket) {
    return buckets.containsKey(bucket);
  }

  synchronized StubObject get(String bucket, String name) {
    return buckets.get(bucket).get(name);
  }

  /**
   * Stores {@code bytes} under {@code name} if {@code ifGenerationMatch} (null for none) holds: 0
   * means "no live object"; returns null when it does not.
   */
  synchronized StubObject put(String bucket, String name, byte[] bytes, Long ifGenerationMatch) {
    NavigableMap<String, StubObject> b = buckets.get(bucket);
    if (!holds(b.get(name), ifGenerationMatch)) {
      return null;
    }
    StubObject o = new StubObject(name, bytes, generations.incrementAndGet(), Instant.now());
    b.put(name, o);
    return o;
  }

  /** Whether a precondition holds for the live object {@code o} (may be null). */
  static boolean holds(StubObject o, Long ifGenerationMatch) {
    return ifGenerationMatch == null
        || (ifGenerationMatch == 0 ? o == null : o != null && o.generation() == ifGenerationMatch);
  }

  synchronized boolean delete(String bucket, String name) {
    return buckets.get(bucket).remove(name) != null;
  }

  /** Makes {@code name} list as updated at {@code at} (the contract's backdating). */
  synchronized void backdate(String bucket, String name, Instant at) {
    StubObject o = buckets.get(bucket).get(name);
    buckets.get(bucket).put(name, new StubObject(name, o.bytes(), o.generation(), at));
  }

  /** The objects after {@code pageToken} (exclusive; null for the first page) whose names match. */
  synchronized List<StubObject> list(String bucket, String prefix, String after, int max) {
    List<StubObject> out = new ArrayList<>();
    NavigableMap<String, StubObject> b = buckets.get(bucket);
    for (StubObject o : (after == null ? b : b.tailMap(after, false)).values()) {
      if (!o.name().startsWith(prefix)) {
        if (o.name().compareTo(prefix) > 0) {
          break;
        }
        continue;
      }
      if (out.size() == max + 1) {
        break;
      }
      out.add(o);
    }
    return out;
  }

  /** The object resource ({@code storage#object}) of {@code o}. */
  static String json(String bucket, StubObject o) {
    return "{\"kind\":\"storage#object\",\"id\":\""
        + bucket
        + "/"
        + o.name()
        + "/"
        + o.generation()
        + "\",\"name\":\""
        + o.name()
        + "\",\"bucket\":\""
        + bucket
        + "\",\"generation\":\""
        + o.generation()
        + "\",\"metageneration\":\"1\",\"contentType\":\"application/octet-stream\""
        + ",\"storageClass\":\"STANDARD\",\"size\":\""
        + o.bytes().length
        + "\",\"md5Hash\":\""
        + md5(o.bytes())
        + "\",\"crc32c\":\""
        + crc32c(o.bytes())
        + "\",\"etag\":\"CN"
        + o.generation()
        + "=\",\"timeCreated\":\""
        + o.updated()
        + "\",\"updated\":\""
        + o.updated()
        + "\"}";
  }

  /** GCS's JSON error document: {@code {"error":{"code":..,"message":..,"errors":[..]}}}. */
  static String error(int code, String reason, String message) {
    return "{\"error\":{\"code\":"
        + code
        + ",\"message\":\""
        + message
        + "\",\"errors\":[{\"message\":\""
        + message
        + "\",\"domain\":\"global\",\"reason\":\""
        + reason
        + "\"}]}}";
  }

  /** Base64 of the big-endian CRC32C, as GCS gives {@code crc32c} and {@code x-goog-hash}. */
  static String crc32c(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return Base64.getEncoder()
        .encodeToString(ByteBuffer.allocate(4).putInt((int) c.getValue()).array());
  }

  static String md5(byte[] b) {
    try {
      return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
