package io.ankusa.claimcheck.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.internal.crypto.LocalKekProvider;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.store.file.FileStoreProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Connect transforms with a {@code local:} KEK (issue 19): {@code CheckIn} writes encrypted
 * claims to a file store whose files hold none of a planted plaintext marker, {@code Redeem} with
 * the KEK gives the field back, and a {@code Redeem} without it fails rather than pass ciphertext.
 */
class EncryptedRoundTripTest {

  private static final byte[] MARKER = "PLANTED-MARKER-19".getBytes(StandardCharsets.US_ASCII);

  @TempDir Path dir;

  @Test
  void checkInEncryptsAndOnlyARedeemWithTheKekGivesTheFieldBack() throws Exception {
    Path root = dir.resolve("claims");
    FileStoreProvider.initialize(root.toUri());
    Path key = dir.resolve("kek.json");
    Files.writeString(key, LocalKekProvider.newKeyFile());
    Map<String, Object> plain =
        Wire.with(Wire.config(1000), "claimcheck.stores", root.toUri().toString());
    Map<String, Object> config = Wire.with(plain, "claimcheck.encryption.kek", "local:" + key);
    byte[] value = new byte[50_000];
    for (int at = 0; at + MARKER.length <= value.length; at += 500) {
      System.arraycopy(MARKER, 0, value, at, MARKER.length);
    }
    CheckIn.Value<SourceRecord> checkIn = new CheckIn.Value<>();
    Redeem.Value<SinkRecord> redeem = new Redeem.Value<>();
    Redeem.Value<SinkRecord> without = new Redeem.Value<>();
    try {
      checkIn.configure(config);
      redeem.configure(config);
      without.configure(plain);
      SourceRecord out = checkIn.apply(Wire.source(null, null, Schema.BYTES_SCHEMA, value));
      assertThat(RefCodec.decode((byte[]) out.value()).isEncrypted()).isTrue();
      assertThat((byte[]) redeem.apply(Wire.overKafka(out)).value()).isEqualTo(value);
      List<Path> files;
      try (Stream<Path> walk = Files.walk(root)) {
        files = walk.filter(Files::isRegularFile).toList();
      }
      assertThat(files).isNotEmpty();
      for (Path f : files) {
        assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
            .as("file " + f)
            .doesNotContain(new String(MARKER, StandardCharsets.ISO_8859_1));
      }
      assertThatThrownBy(() -> without.apply(Wire.overKafka(out)))
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("local:" + key);
    } finally {
      checkIn.close();
      redeem.close();
      without.close();
    }
  }
}
