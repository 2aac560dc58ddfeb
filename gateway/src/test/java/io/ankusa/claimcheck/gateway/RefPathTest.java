package io.ankusa.claimcheck.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.util.Base64;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** Refs in paths: base64url without padding, bounded before decoding. */
class RefPathTest {

  @Test
  void aRefRoundTripsAndItsEtagIsItsChecksum() {
    ClaimRef ref =
        ClaimRef.of(
            Tenant.of("team-a"),
            new ClaimId(PackId.random(new Random(3)), 2),
            40,
            100,
            0xCAFE,
            Codec.NONE,
            100);
    String s = RefPath.encode(ref);
    assertThat(s).doesNotContain("=", "+", "/");
    assertThat(RefPath.decode(s)).isEqualTo(ref);
    assertThat(RefPath.etag(ref)).isEqualTo("\"0000cafe\"");
  }

  @Test
  void anEtagIsEightHexDigitsForEveryChecksum() {
    for (int checksum : new int[] {0, 1, 0xCAFE, 0x7FFFFFFF, 0x80000000, 0xDEADBEEF, -1}) {
      ClaimRef ref =
          ClaimRef.of(
              Tenant.of("team-a"),
              new ClaimId(PackId.random(new Random(4)), 0),
              0,
              10,
              checksum,
              Codec.NONE,
              10);
      assertThat(RefPath.etag(ref)).isEqualTo(String.format("\"%08x\"", checksum));
    }
  }

  @Test
  void tooLongPaddedOrForeignCharactersAreNotBase64() {
    assertThatThrownBy(() -> RefPath.decode("A".repeat(RefPath.MAX_CHARS + 1)))
        .isInstanceOf(RefPath.NotBase64.class);
    assertThatThrownBy(() -> RefPath.decode("")).isInstanceOf(RefPath.NotBase64.class);
    assertThatThrownBy(() -> RefPath.decode("AAAA==")).isInstanceOf(RefPath.NotBase64.class);
    assertThatThrownBy(() -> RefPath.decode("AA/A")).isInstanceOf(RefPath.NotBase64.class);
    assertThatThrownBy(() -> RefPath.decode("AAAAA")).isInstanceOf(RefPath.NotBase64.class);
    assertThatThrownBy(() -> RefPath.decode("AAAAAAAA")).isInstanceOf(MalformedRefException.class);
  }

  @Property
  void anySegmentIsARefThatReEncodesToItOrATypedRefusal(@ForAll String segment) {
    try {
      ClaimRef ref = RefPath.decode(segment);
      assertThat(RefPath.encode(ref)).isEqualTo(segment);
    } catch (RefPath.NotBase64 | MalformedRefException expected) {
      // 400 (or 503 for a newer ref)
    }
  }

  @Property
  void anyBytesAsBase64urlAreARefOrMalformed(@ForAll byte[] bytes) {
    String segment = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    try {
      RefPath.decode(segment);
    } catch (RefPath.NotBase64 | MalformedRefException expected) {
      // typed
    }
  }
}
