package io.ankusa.claimcheck.config;

import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * Resolves {@code claimcheck.stores} and the per-store overrides ({@code
 * claimcheck.store.<index>.<setting>}) into {@link StoreSpec}s; thread-safe (stateless).
 */
final class StoreSpecs {

  private static final Pattern OVERRIDE = Pattern.compile("claimcheck\\.store\\.(\\d+)\\.(.+)");
  static final Set<String> SETTINGS = Set.of("s3.endpoint", "s3.region",
      "s3.path.style.access", "s3.access.key.id", "s3.secret.access.key", "s3.connect.timeout.ms",
      "s3.max.connections", "s3.multipart.threshold.bytes", "s3.multipart.part.bytes",
      "op.deadline.ms", "file.permissions");

  private StoreSpecs() {}

  static List<StoreSpec> resolve(ClaimCheckConfig config, Map<String, Object> originals) {
    List<String> uris = config.getList(ClaimCheckConfig.STORES);
    if (uris.isEmpty()) {
      throw new ConfigException(ClaimCheckConfig.STORES, "", "at least one store is required");
    }
    Map<Integer, Map<String, Object>> overrides = new HashMap<>();
    for (Map.Entry<String, Object> e : originals.entrySet()) {
      Matcher m = OVERRIDE.matcher(e.getKey());
      if (!m.matches()) {
        continue;
      }
      int index;
      try {
        index = Integer.parseInt(m.group(1));
      } catch (NumberFormatException ex) {
        throw new ConfigException(e.getKey(), Secrets.HIDDEN, "not a store index");
      }
      if (index >= uris.size()) {
        // Its value is not shown: a setting for a store that does not exist may be a secret.
        throw new ConfigException(e.getKey(), Secrets.HIDDEN,
            "there is no store " + index + " (" + uris.size() + " configured in " + ClaimCheckConfig.STORES + ")");
      }
      if (!SETTINGS.contains(m.group(2))) {
        throw new ConfigException(e.getKey(), Secrets.HIDDEN,
            "unknown per-store setting (its value is not shown, in case it is a secret); known: "
                + new java.util.TreeSet<>(SETTINGS));
      }
      overrides.computeIfAbsent(index, i -> new HashMap<>()).put(m.group(2), e.getValue());
    }
    List<StoreSpec> specs = new ArrayList<>();
    for (int i = 0; i < uris.size(); i++) {
      specs.add(spec(config, i, uris.get(i), overrides.getOrDefault(i, Map.of())));
    }
    return List.copyOf(specs);
  }

  private static StoreSpec spec(ClaimCheckConfig c, int i, String uri, Map<String, Object> o) {
    StoreUris.Parsed p = StoreUris.parse(ClaimCheckConfig.STORES, uri);
    String at = "claimcheck.store." + i + ".";
    Duration deadline = Duration.ofMillis(longValue(at + "op.deadline.ms", o.get("op.deadline.ms"),
        c.getLong(ClaimCheckConfig.OP_DEADLINE_MS), 600_000));
    switch (p.scheme()) {
      case "memory":
        return new StoreSpec.Memory(i, p.bucketOrName(), deadline);
      case "file":
        Object perms = o.containsKey("file.permissions") ? o.get("file.permissions")
            : c.getString(ClaimCheckConfig.FILE_PERMISSIONS);
        return new StoreSpec.File(i, p.root(), deadline, filePermissions(
            o.containsKey("file.permissions") ? at + "file.permissions"
                : ClaimCheckConfig.FILE_PERMISSIONS, perms));
      default:
        String endpoint = string(o.get("s3.endpoint"), c.getString(ClaimCheckConfig.S3_ENDPOINT));
        if (endpoint != null) {
          try {
            java.net.URI u = java.net.URI.create(endpoint);
            if (u.getScheme() == null || u.getHost() == null) {
              throw new IllegalArgumentException("no scheme or host");
            }
            if (u.getRawUserInfo() != null) {
              throw new IllegalArgumentException("it carries user info (credentials go in "
                  + ClaimCheckConfig.S3_ACCESS_KEY_ID + " and " + ClaimCheckConfig.S3_SECRET_ACCESS_KEY + ")");
            }
          } catch (IllegalArgumentException e) {
            // Neither the value nor the parser's message (which quotes it) is shown: it may hold
            // user info.
            throw new ConfigException(o.containsKey("s3.endpoint") ? at + "s3.endpoint"
                : ClaimCheckConfig.S3_ENDPOINT, Secrets.HIDDEN, "not an endpoint URL"
                + (e.getMessage() != null && e.getMessage().startsWith("it carries") ? ": " + e.getMessage()
                : e.getMessage() != null && e.getMessage().equals("no scheme or host") ? ": no scheme or host" : ""));
          }
        }
        String region = string(o.get("s3.region"), c.getString(ClaimCheckConfig.S3_REGION));
        boolean pathStyle = c.getBoolean(ClaimCheckConfig.S3_PATH_STYLE);
        if (o.containsKey("s3.path.style.access")) {
          String b = String.valueOf(o.get("s3.path.style.access")).trim().toLowerCase(java.util.Locale.ROOT);
          if (!b.equals("true") && !b.equals("false")) {
            throw new ConfigException(at + "s3.path.style.access",
                Secrets.shown(at + "s3.path.style.access", o.get("s3.path.style.access")),
                "must be true or false");
          }
          pathStyle = Boolean.parseBoolean(b);
        }
        Password id = c.getPassword(ClaimCheckConfig.S3_ACCESS_KEY_ID);
        Object idOverride = o.get("s3.access.key.id");
        String accessKey = string(idOverride instanceof Password pw ? pw.value() : idOverride,
            id == null ? null : id.value());
        Object secretOverride = o.get("s3.secret.access.key");
        Password secret = secretOverride == null ? c.getPassword(ClaimCheckConfig.S3_SECRET_ACCESS_KEY)
            : secretOverride instanceof Password pw ? pw : new Password(String.valueOf(secretOverride));
        if ((accessKey == null) != (secret == null)) {
          throw new ConfigException(o.containsKey("s3.access.key.id") || o.containsKey("s3.secret.access.key")
              ? at + "s3.access.key.id" : ClaimCheckConfig.S3_ACCESS_KEY_ID, Secrets.HIDDEN,
              "give both the access key id and the secret access key, or neither (default chain)");
        }
        Duration connect = Duration.ofMillis(longValue(at + "s3.connect.timeout.ms",
            o.get("s3.connect.timeout.ms"), c.getLong(ClaimCheckConfig.S3_CONNECT_TIMEOUT_MS), 60_000));
        int connections = (int) longValue(at + "s3.max.connections", o.get("s3.max.connections"),
            c.getInt(ClaimCheckConfig.S3_MAX_CONNECTIONS), 10_000);
        int partSize = (int) longValue(at + "s3.multipart.part.bytes",
            o.get("s3.multipart.part.bytes"), c.getInt(ClaimCheckConfig.S3_MULTIPART_PART_SIZE),
            Integer.MAX_VALUE);
        int threshold = (int) longValue(at + "s3.multipart.threshold.bytes",
            o.get("s3.multipart.threshold.bytes"), c.getInt(ClaimCheckConfig.S3_MULTIPART_THRESHOLD),
            Integer.MAX_VALUE);
        if (partSize < 5 << 20) {
          throw new ConfigException(o.containsKey("s3.multipart.part.bytes")
              ? at + "s3.multipart.part.bytes" : ClaimCheckConfig.S3_MULTIPART_PART_SIZE, partSize,
              "must be at least 5 MiB (" + (5 << 20) + " bytes), S3's smallest part");
        }
        if (threshold <= partSize) {
          throw new ConfigException(o.containsKey("s3.multipart.threshold.bytes")
              ? at + "s3.multipart.threshold.bytes" : ClaimCheckConfig.S3_MULTIPART_THRESHOLD,
              threshold, "must exceed the multipart part size (" + partSize + ")");
        }
        return new StoreSpec.S3(i, p.bucketOrName(), p.prefix(), endpoint, region, pathStyle,
            accessKey, secret, deadline, connect, connections, threshold, partSize,
            c.getString(ClaimCheckConfig.S3_HTTP_CLIENT).trim().toLowerCase(java.util.Locale.ROOT));
    }
  }

  /** Parses POSIX permissions like {@code rw-r-----} that let the owner read, for {@code key}. */
  static Set<PosixFilePermission> filePermissions(String key, Object value) {
    String v = String.valueOf(value).trim();
    Set<PosixFilePermission> perms;
    try {
      perms = PosixFilePermissions.fromString(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(key, value, "not POSIX permissions like rw-r----- (9 of r, w, x, -)");
    }
    if (!perms.contains(PosixFilePermission.OWNER_READ)) {
      throw new ConfigException(key, value, "the owner must be able to read its packs (r at the start)");
    }
    return perms;
  }

  private static String string(Object override, String fallback) {
    String v = override == null ? fallback : String.valueOf(override).trim();
    return v == null || v.isEmpty() ? null : v;
  }

  private static long longValue(String key, Object v, long fallback, long max) {
    if (v == null) {
      return fallback;
    }
    try {
      long l = Long.parseLong(String.valueOf(v).trim());
      if (l < 1 || l > max) {
        throw new ConfigException(key, Secrets.shown(key, v), "must be between 1 and " + max);
      }
      return l;
    } catch (NumberFormatException e) {
      throw new ConfigException(key, Secrets.shown(key, v), "not a whole number");
    }
  }
}
