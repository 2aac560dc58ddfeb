package io.ankusa.claimcheck.store.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.ankusa.claimcheck.ClaimCheck;
import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.file.FileStoreProvider;
import io.ankusa.claimcheck.testkit.EmbeddedS3;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a {@code local:} KEK, the raw objects a real S3 server (S3Proxy) and the file store hold
 * contain none of a plaintext marker planted throughout the values, and the values still round-trip
 * (issue 19): packed claims, and streamed claims (an S3 multipart upload, a file store's streamed
 * put) sealed while streaming and read back as streams.
 */
class EncryptedStoresIT {

  private static final byte[] MARKER =
      "PLANTED-PLAINTEXT-MARKER-19".getBytes(StandardCharsets.US_ASCII);

  @TempDir Path dir;

  private Path key() throws Exception {
    Path k = dir.resolve("kek.json");
    if (!Files.exists(k)) {
      Files.writeString(k, LocalKekProvider.newKeyFile());
    }
    return k;
  }

  private static byte[] marked(int n, long seed) {
    byte[] v = new byte[n];
    Random r = new Random(seed);
    for (int i = 0; i < n; i++) {
      v[i] = (byte) ('a' + r.nextInt(3));
    }
    for (int at = 0; at + MARKER.length <= n; at += 4096) {
      System.arraycopy(MARKER, 0, v, at, MARKER.length);
    }
    return v;
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static List<ClaimRef> roundTrip(Map<String, Object> config) {
    try (ClaimCheck cc = ClaimCheck.open(config)) {
      List<byte[]> values = List.of(marked(300_000, 1), marked(1 << 20, 2), marked(5_000, 3));
      List<ClaimRef> refs = new java.util.ArrayList<>(cc.checkInAll(values.subList(0, 2)));
      refs.add(cc.checkIn(values.get(2)));
      for (int i = 0; i < refs.size(); i++) {
        assertThat(refs.get(i).isEncrypted()).isTrue();
        assertThat(cc.redeem(refs.get(i), cc.ticker().read() + 30_000_000_000L).join())
            .isEqualTo(values.get(i));
      }
      // A streamed claim past an S3 part (multipart), encrypted while streaming, read as a stream.
      byte[] big = marked(12 << 20, 4);
      ClaimRef streamed = cc.checkIn(new java.io.ByteArrayInputStream(big), big.length);
      assertThat(streamed.version()).isEqualTo(ClaimRef.STREAMED_ENCRYPTED_VERSION);
      try (ClaimCheck.ClaimStream s = cc.redeemStream(streamed, Duration.ofSeconds(30))) {
        assertThat(s.readAllBytes()).isEqualTo(big);
      }
      // Of unknown length too.
      byte[] more = marked(3 << 20, 5);
      ClaimRef unknown = cc.checkIn(new java.io.ByteArrayInputStream(more), -1);
      try (ClaimCheck.ClaimStream s = cc.redeemStream(unknown, Duration.ofSeconds(30))) {
        assertThat(s.readAllBytes()).isEqualTo(more);
      }
      refs.add(streamed);
      refs.add(unknown);
      return refs;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void theObjectsInS3HoldNoPlaintext() throws Exception {
    EmbeddedS3 s3 = EmbeddedS3.shared();
    String bucket = "enc-" + UUID.randomUUID().toString().substring(0, 8);
    s3.createBucket(bucket);
    for (String codec : new String[] {"none", "zstd"}) {
      Map<String, Object> config =
          S3TestStores.config(s3, s3.endpoint(), "s3://" + bucket + "/" + codec);
      config.put("claimcheck.encryption.kek", "local:" + key());
      config.put("claimcheck.encryption.required", "true");
      config.put("claimcheck.compression.type", codec);
      config.put("claimcheck.tenant", "acme");
      List<ClaimRef> refs = roundTrip(config);
      try (ClaimStore raw = S3TestStores.create(config)) {
        for (ClaimRef ref : refs) {
          String k = "acme/" + ref.packId().hex();
          long size = raw.stat(k, Duration.ofSeconds(10)).join().size();
          if (ref.isStreamed()) {
            assertThat(size).as("the whole object is the envelope").isEqualTo(ref.length());
          }
          byte[] object = raw.getRange(k, 0, (int) size, Duration.ofSeconds(10)).join();
          assertThat(object).hasSize((int) size);
          assertThat(contains(object, MARKER)).as("marker in s3 object " + k).isFalse();
        }
      }
    }
  }

  @Test
  void theFilesOfTheFileStoreHoldNoPlaintext() throws Exception {
    Path root = dir.resolve("claims");
    FileStoreProvider.initialize(root.toUri());
    Map<String, Object> config = new HashMap<>();
    config.put("claimcheck.stores", root.toUri().toString());
    config.put("claimcheck.encryption.kek", "local:" + key());
    config.put("claimcheck.tenant", "acme");
    roundTrip(config);
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    assertThat(files.size()).isGreaterThanOrEqualTo(2);
    long packs = 0;
    for (Path f : files) {
      byte[] bytes = Files.readAllBytes(f);
      assertThat(contains(bytes, MARKER)).as("marker in " + f).isFalse();
      packs += bytes.length > 1000 ? 1 : 0;
    }
    assertThat(packs).as("the two packs and two streamed claims were read").isEqualTo(4);
  }
}
