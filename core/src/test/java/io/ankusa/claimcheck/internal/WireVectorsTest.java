package io.ankusa.claimcheck.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ankusa.claimcheck.RefFields;
import io.ankusa.claimcheck.internal.WireVectors.NonRef;
import io.ankusa.claimcheck.internal.wire.Bytes;
import io.ankusa.claimcheck.internal.wire.Checksums;
import io.ankusa.claimcheck.ref.ClaimId;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.MalformedRefException;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.RefCodec;
import io.ankusa.claimcheck.ref.Tenant;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/wire-vectors.json}, which the Python and Node clients test against, is what the
 * library's own code answers for its bytes: each ref decodes to the fields written here, each
 * non-ref is refused for the reason written here. After a deliberate change of the vectors (or of
 * the wire format: then think twice), rerun with {@code -Dvectors.write=true} and review the diff.
 */
class WireVectorsTest {

  private static final Path FILE = Path.of("..", "docs", "wire-vectors.json");

  /** The refs of the vectors, as a writer of this library means them. */
  static final List<ClaimRef> REFS =
      List.of(
          ClaimRef.of(
              Tenant.of("acme"),
              claim("0123456789abcdef", 0),
              42,
              1_048_576,
              0x1cdf4421,
              Codec.NONE,
              1_048_576),
          ClaimRef.of(
              Tenant.of("orders-eu.prod_1"),
              claim("fedcba9876543210", 3),
              1_234_567,
              70_000,
              0xdeadbeef,
              Codec.GZIP,
              262_144),
          ClaimRef.of(
              Tenant.of("t"),
              claim("00000000000000ff", 1),
              60,
              5_000,
              0x00000001,
              Codec.SNAPPY,
              20_000),
          ClaimRef.of(
              Tenant.of("x9"),
              claim("8000000000000000", 65_535),
              9_999_999_999L,
              12,
              0x80000000,
              Codec.LZ4,
              0),
          ClaimRef.of(
              Tenant.of("zstd.users"),
              claim("7fffffffffffffff", 7),
              100,
              300_000,
              0x7fffffff,
              Codec.ZSTD,
              2_000_000_000),
          // A version-1 ref of a compressed claim: written by releases before version 2 existed.
          ClaimRef.of(
              Tenant.of("legacy"), claim("1111111111111111", 2), 76, 900, 0x12345678, Codec.GZIP),
          // The longest tenant and the extreme offset, length and checksum a version-1 ref holds.
          new ClaimRef(
              1,
              Tenant.of("a".repeat(20) + "0123456789-._9876543"),
              claim("ffffffffffffffff", 65_535),
              Long.MAX_VALUE - Integer.MAX_VALUE,
              Integer.MAX_VALUE,
              0xffffffff,
              Codec.NONE),
          // Version 2 of an uncompressed claim: never written, but every reader accepts it.
          new ClaimRef(2, Tenant.of("acme"), claim("0000000000000000", 0), 0, 1, 0, Codec.NONE, 1),
          // Version 3: an encrypted claim (the envelope stored), uncompressed and compressed.
          ClaimRef.ofEncrypted(
              Tenant.of("acme"),
              claim("2222222222222222", 0),
              38,
              1_137,
              0x0badcafe,
              Codec.NONE,
              1_000),
          ClaimRef.ofEncrypted(
              Tenant.of("acme"),
              claim("3333333333333333", 1),
              55,
              400,
              0x600dd00d,
              Codec.ZSTD,
              9_000));

  /**
   * The streamed claims' refs of the vectors (version 4: 64-bit lengths, a whole object; version 5:
   * the same, encrypted).
   */
  static final List<ClaimRef> STREAMED =
      List.of(
          ClaimRef.streamed(
              Tenant.of("acme"),
              new io.ankusa.claimcheck.ref.PackId(0x0123456789abcdefL),
              2_147_483_648L,
              0x1cdf4421,
              Codec.NONE,
              2_147_483_648L),
          ClaimRef.streamed(
              Tenant.of("media.eu"),
              new io.ankusa.claimcheck.ref.PackId(0xfedcba9876543210L),
              1_000_000_007L,
              0xcafef00d,
              Codec.ZSTD,
              5_368_709_120L),
          // Version 5: an encrypted streamed claim, its envelope longer than the claim it holds.
          ClaimRef.streamedEncrypted(
              Tenant.of("acme"),
              new io.ankusa.claimcheck.ref.PackId(0x00000000deadbeefL),
              3_221_324_000L,
              0x0badf00d,
              Codec.NONE,
              3_221_225_472L));

  @Test
  void everyStreamedRefVectorDecodesToTheRefItWasWrittenFrom() {
    for (ClaimRef ref : STREAMED) {
      byte[] bytes = RefCodec.encode(ref);
      assertThat(bytes.length).isLessThanOrEqualTo(RefCodec.MAX_V4_LENGTH);
      assertThat(RefCodec.isRef(bytes)).as("%s", ref).isTrue();
      assertThat(RefCodec.decode(bytes)).isEqualTo(ref);
      assertThat(RefFields.carriesRef(false, bytes)).isTrue();
    }
  }

  @Test
  void everyRefVectorDecodesToTheRefItWasWrittenFrom() {
    for (ClaimRef ref : REFS) {
      byte[] bytes = RefCodec.encode(ref);
      assertThat(RefCodec.isRef(bytes)).as("%s", ref).isTrue();
      assertThat(RefCodec.decode(bytes)).isEqualTo(ref);
      assertThat(RefFields.carriesRef(false, bytes)).isTrue();
    }
  }

  @Test
  void everyNonRefIsRefusedForTheReasonItIsNamedFor() {
    for (NonRef n : nonRefs()) {
      MalformedRefException e =
          catchThrowableOfType(MalformedRefException.class, () -> RefCodec.decode(n.bytes()));
      assertThat(e).as(n.name()).isNotNull();
      assertThat(e.reason().name().toLowerCase(java.util.Locale.ROOT))
          .as(n.name())
          .isEqualTo(n.name().substring(0, n.name().indexOf(':')));
      assertThat(RefFields.carriesRef(false, n.bytes()))
          .as(n.name())
          .isEqualTo(RefCodec.isRef(n.bytes()));
      if (WireVectors.carriesRefMarked(n.bytes())) { // where main's rule and issue 15's agree
        assertThat(RefFields.carriesRef(true, n.bytes())).as(n.name()).isTrue();
      }
    }
  }

  @Test
  void theCommittedVectorsAreWhatTheLibraryAnswers() throws IOException {
    boolean write = Boolean.getBoolean("vectors.write");
    String committed = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "";
    // The pack's compressed bytes depend on the zlib of the JDK that wrote them, so a check reads
    // them from the file (and render() proves each inflates to the payload it states).
    byte[] pack = write ? WireVectors.freshPack() : packOf(committed);
    String rendered = WireVectors.render(REFS, STREAMED, nonRefs(), pack);
    if (write) {
      Files.writeString(FILE, rendered, StandardCharsets.UTF_8);
      committed = Files.readString(FILE, StandardCharsets.UTF_8);
    }
    assertThat(committed)
        .as(
            "docs/wire-vectors.json differs from what the library answers; if deliberate,"
                + " regenerate with -Dvectors.write=true and review the diff")
        .isEqualTo(rendered);
  }

  @Test
  void aFreshPackOfEveryCodecRendersToo() {
    assertThat(WireVectors.render(REFS, STREAMED, nonRefs(), WireVectors.freshPack()))
        .contains("\"zstd\"");
  }

  static List<NonRef> nonRefs() {
    byte[] good = RefCodec.encode(REFS.get(1));
    byte[] badCrc = good.clone();
    badCrc[badCrc.length - 1] ^= 1;
    byte[] badBody = good.clone();
    badBody[12] ^= 0x10;
    byte[] v1 = RefV1Body.of("acme", 42, 100, Codec.NONE.id());
    return List.of(
        new NonRef("truncated: empty", new byte[0]),
        new NonRef("truncated: three bytes of the magic", Arrays.copyOf(RefCodec.MAGIC, 3)),
        new NonRef("truncated: the magic alone", RefCodec.MAGIC.clone()),
        new NonRef("truncated: a ref missing its last byte", Arrays.copyOf(good, good.length - 1)),
        new NonRef("bad_magic: JSON text", "{\"id\":1}".getBytes(StandardCharsets.US_ASCII)),
        new NonRef("bad_magic: a Confluent-framed payload", hex("0000000001020a68656c6c6f")),
        new NonRef(
            "trailing_bytes: a ref with one byte appended", Arrays.copyOf(good, good.length + 1)),
        new NonRef("trailing_bytes: a payload that starts with a ref", concat(good, new byte[100])),
        new NonRef("bad_crc: the CRC32 damaged", badCrc),
        new NonRef("bad_crc: a body byte damaged", badBody),
        new NonRef("unknown_version: an intact frame of version 6", frame(6, v1)),
        new NonRef("unknown_version: an intact frame of version 0", frame(0, v1)),
        new NonRef(
            "unknown_codec: an intact ref naming codec id 5",
            frame(1, RefV1Body.of("acme", 42, 100, 5))),
        new NonRef(
            "unknown_codec: codec 9 wins over a bad tenant",
            frame(1, RefV1Body.of("ACME", 42, 100, 9))),
        new NonRef("bad_field: a tenant in upper case", frame(1, RefV1Body.of("Acme", 42, 100, 0))),
        new NonRef(
            "bad_field: a tenant starting with a dot", frame(1, RefV1Body.of(".acme", 42, 100, 0))),
        new NonRef("bad_field: an empty tenant", frame(1, RefV1Body.of("", 42, 100, 0))),
        new NonRef("bad_field: a length of 0", frame(1, RefV1Body.of("acme", 42, 0, 0))),
        new NonRef("bad_field: a negative offset", frame(1, RefV1Body.of("acme", -1, 100, 0))),
        new NonRef("bad_field: a length past 2^31-1", frame(1, RefV1Body.of("acme", 42, -5, 0))),
        new NonRef(
            "bad_field: the body one byte short of its tenant",
            frame(1, Arrays.copyOf(v1, v1.length - 1))),
        new NonRef("bad_field: a version-1 body under version 2", frame(2, v1)),
        new NonRef(
            "bad_field: version 2 with a negative uncompressed length",
            frame(2, concat(RefV1Body.of("acme", 42, 100, 1), hex("ffffffff")))),
        new NonRef(
            "bad_field: version 2 uncompressed with another uncompressed length",
            frame(2, concat(RefV1Body.of("acme", 42, 100, 0), hex("00000065")))));
  }

  /** An intact frame: magic, {@code version}, the body's length, {@code body}, CRC32. */
  static byte[] frame(int version, byte[] body) {
    byte[] out = new byte[6 + body.length + 4];
    System.arraycopy(RefCodec.MAGIC, 0, out, 0, 4);
    out[4] = (byte) version;
    out[5] = (byte) body.length;
    System.arraycopy(body, 0, out, 6, body.length);
    Bytes.putInt(out, out.length - 4, Checksums.crc32(out, 0, out.length - 4));
    return out;
  }

  /** A version-1 body with any field values (pack 0102030405060708, index 1, checksum 0). */
  static final class RefV1Body {
    static byte[] of(String tenant, long offset, int length, int codecId) {
      byte[] t = tenant.getBytes(StandardCharsets.ISO_8859_1);
      byte[] b = new byte[28 + t.length];
      b[0] = (byte) t.length;
      System.arraycopy(t, 0, b, 1, t.length);
      int at = 1 + t.length;
      Bytes.putLong(b, at, 0x0102030405060708L);
      Bytes.putShort(b, at + 8, 1);
      Bytes.putLong(b, at + 10, offset);
      Bytes.putInt(b, at + 18, length);
      Bytes.putInt(b, at + 22, 0);
      b[at + 26] = (byte) codecId;
      return b;
    }
  }

  private static byte[] packOf(String committed) {
    Matcher m = Pattern.compile("\"pack_hex\": \"([0-9a-f]+)\"").matcher(committed);
    return m.find() ? WireVectors.HEX.parseHex(m.group(1)) : WireVectors.freshPack();
  }

  private static ClaimId claim(String packHex, int index) {
    return new ClaimId(PackId.parseHex(packHex), index);
  }

  private static byte[] hex(String hex) {
    return WireVectors.HEX.parseHex(hex);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
