package io.ankusa.claimcheck.config;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.Objects;
import org.apache.kafka.common.config.types.Password;

/**
 * One configured store, resolved from {@code claimcheck.stores} and its per-store overrides;
 * immutable and thread-safe. Equal specs describe the same store, which is what lets processes
 * share one store set and one reader per distinct configuration.
 */
public sealed interface StoreSpec {

  /** The store's index in {@code claimcheck.stores}. */
  int index();

  /** The deadline of one operation on this store. */
  Duration opDeadline();

  /**
   * An S3-compatible bucket; {@code toString} shows neither the access key id nor the secret (see
   * {@link Secrets}).
   */
  record S3(
      int index,
      String bucket,
      String prefix,
      String endpoint,
      String region,
      boolean pathStyleAccess,
      String accessKeyId,
      Password secretAccessKey,
      Duration opDeadline,
      Duration connectTimeout,
      int maxConnections,
      int multipartThreshold,
      int multipartPartSize,
      String httpClient)
      implements StoreSpec {
    public S3 {
      Objects.requireNonNull(bucket, "bucket");
      Objects.requireNonNull(prefix, "prefix");
    }

    @Override
    public String toString() {
      return "S3[index=" + index + ", bucket=" + bucket + ", prefix=" + prefix + ", endpoint="
          + endpoint + ", region=" + region + ", pathStyleAccess=" + pathStyleAccess
          + ", accessKeyId=" + (accessKeyId == null ? null : Secrets.HIDDEN)
          + ", secretAccessKey=" + (secretAccessKey == null ? null : Secrets.HIDDEN)
          + ", opDeadline=" + opDeadline + ", connectTimeout=" + connectTimeout
          + ", maxConnections=" + maxConnections + ", multipartThreshold=" + multipartThreshold
          + ", multipartPartSize=" + multipartPartSize + ", httpClient=" + httpClient + "]";
    }
  }

  /** A local or mounted directory, whose new packs get {@code permissions}. */
  record File(int index, Path root, Duration opDeadline, Set<PosixFilePermission> permissions)
      implements StoreSpec {
    public File {
      Objects.requireNonNull(root, "root");
      permissions = Set.copyOf(permissions);
    }

    /** A directory whose packs get the default permissions ({@code rw-r-----}). */
    public File(int index, Path root, Duration opDeadline) {
      this(index, root, opDeadline, PosixFilePermissions.fromString("rw-r-----"));
    }
  }

  /** A process-wide named in-memory store (tests and demos). */
  record Memory(int index, String name, Duration opDeadline) implements StoreSpec {}
}
