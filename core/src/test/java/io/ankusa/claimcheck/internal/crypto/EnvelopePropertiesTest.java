package io.ankusa.claimcheck.internal.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The envelope header decoder on hostile input: arbitrary bytes, bytes after the magic, and valid
 * envelopes with one byte changed or cut short each parse to a typed {@link
 * Envelope.EnvelopeException} or to a header that re-encodes to the same bytes.
 */
class EnvelopePropertiesTest {

  @Property
  void arbitraryBytesParseToATypedErrorOrTheSameHeader(@ForAll @Size(max = 600) byte[] bytes) {
    check(bytes);
  }

  @Property
  void bytesAfterTheMagicParseToATypedErrorOrTheSameHeader(@ForAll @Size(max = 600) byte[] tail) {
    byte[] b = new byte[4 + tail.length];
    System.arraycopy(Envelope.MAGIC, 0, b, 0, 4);
    System.arraycopy(tail, 0, b, 4, tail.length);
    check(b);
  }

  @Property
  void validEnvelopesParseToTheirFields(@ForAll("envelopes") byte[][] parts) {
    byte[] env = parts[0];
    Envelope e = (Envelope) check(env);
    assertThat(e.kekId()).isEqualTo(new String(parts[1], java.nio.charset.StandardCharsets.UTF_8));
    assertThat(e.wrapped()).isEqualTo(parts[2]);
  }

  @Property
  void validEnvelopesWithOneByteChangedOrCutParseToATypedErrorOrAHeader(
      @ForAll("envelopes") byte[][] parts,
      @ForAll @IntRange(min = 0, max = 2000) int where,
      @ForAll byte value,
      @ForAll boolean cut) {
    byte[] env = parts[0].clone();
    int at = where % env.length;
    check(cut ? Arrays.copyOf(env, at) : set(env, at, value));
  }

  private static byte[] set(byte[] b, int at, byte v) {
    b[at] = v;
    return b;
  }

  @Provide
  Arbitrary<byte[][]> envelopes() {
    Arbitrary<String> ids =
        Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(255);
    Arbitrary<byte[]> wrapped =
        Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(Envelope.MAX_WRAPPED);
    Arbitrary<byte[]> body =
        Arbitraries.bytes().array(byte[].class).ofMinSize(Envelope.AEAD_OVERHEAD).ofMaxSize(200);
    return Combinators.combine(ids, wrapped, body)
        .as(
            (id, w, b) -> {
              byte[] h = Envelope.header(id, w);
              byte[] env = Arrays.copyOf(h, h.length + b.length);
              System.arraycopy(b, 0, env, h.length, b.length);
              return new byte[][] {env, id.getBytes(java.nio.charset.StandardCharsets.UTF_8), w};
            });
  }

  /** Parses and checks the contract; returns the envelope or the exception. */
  static Object check(byte[] bytes) {
    try {
      Envelope e = Envelope.parse(bytes);
      byte[] header = e.header();
      assertThat(header.length).isEqualTo(e.headerLength());
      assertThat(Arrays.copyOf(bytes, e.headerLength())).isEqualTo(header);
      assertThat(bytes.length - e.headerLength()).isGreaterThanOrEqualTo(Envelope.AEAD_OVERHEAD);
      return e;
    } catch (Envelope.EnvelopeException x) {
      assertThat(x.getMessage()).isNotBlank();
      return x;
    }
  }
}
