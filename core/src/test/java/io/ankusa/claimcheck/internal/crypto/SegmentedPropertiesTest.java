package io.ankusa.claimcheck.internal.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.subtle.AesGcmHkdfStreaming;
import io.ankusa.claimcheck.ref.ClaimRef;
import io.ankusa.claimcheck.ref.Codec;
import io.ankusa.claimcheck.ref.PackId;
import io.ankusa.claimcheck.ref.Tenant;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The segmented envelope (AEAD id 2) on arbitrary lengths, around every segment boundary: what
 * {@link Segmented#seal} writes is what Tink's own encrypting stream writes in layout, {@link
 * Segmented#open} and a {@link SegmentDecrypter} fed segment by segment give the plaintext back,
 * and one changed byte, a cut or a wrong binding never decrypts.
 */
class SegmentedPropertiesTest {

  private static final byte[] KEY = new byte[32];
  private static final AesGcmHkdfStreaming AEAD = Segmented.of(KEY);
  private static final byte[] HEADER = Envelope.header("local:/k", new byte[] {1, 2, 3}, 2);

  private static byte[] plain(int n) {
    byte[] p = new byte[n];
    new Random(n).nextBytes(p);
    return p;
  }

  /** Lengths near segment boundaries: segment 0 holds SEGMENT - 16 - 40 plaintext bytes. */
  private static int length(int segments, int delta) {
    return Math.max(0, segments * Segmented.PLAIN_SEGMENT - Segmented.STREAM_HEADER + delta);
  }

  @Property(tries = 60)
  void sealedEnvelopesOpenToTheirPlaintextWholeAndSegmentBySegment(
      @ForAll @IntRange(min = 0, max = 5) int segments,
      @ForAll @IntRange(min = -3, max = 3) int delta)
      throws Exception {
    byte[] p = plain(length(segments, delta));
    byte[] ad = {9, 8, 7};
    byte[] env = Segmented.seal(AEAD, HEADER, ad, p);
    assertThat((long) env.length).isEqualTo(HEADER.length + Segmented.streamLength(p.length));
    assertThat(Segmented.plainLength(env.length - HEADER.length)).isEqualTo(p.length);
    assertThat(Segmented.open(AEAD, ad, env, HEADER.length)).isEqualTo(p);
    // The same layout as Tink's encrypting stream (another salt, so other bytes).
    ByteArrayOutputStream tink = new ByteArrayOutputStream();
    try (OutputStream o = AEAD.newEncryptingStream(tink, ad)) {
      o.write(p);
    }
    assertThat(tink.size()).isEqualTo(env.length - HEADER.length);
    // Segment by segment, as a streamed redeem does.
    ClaimRef ref =
        ClaimRef.streamedEncrypted(Tenant.of("t"), new PackId(1), env.length, 0, Codec.NONE, 1);
    SegmentDecrypter d = new SegmentDecrypter(AEAD, ad, env, HEADER.length, ref);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (long i = 0; i < d.segments(); i++) {
      int from = (int) d.segmentStart(i);
      out.write(d.decrypt(env, from, (int) (d.segmentEnd(i) - from), i));
    }
    assertThat(out.toByteArray()).isEqualTo(p);
  }

  @Property(tries = 100)
  void oneChangedByteACutOrAnotherBindingNeverDecrypts(
      @ForAll @IntRange(min = 1, max = 4) int segments,
      @ForAll @IntRange(min = 0, max = 1 << 20) int where,
      @ForAll @IntRange(min = 0, max = 2) int how)
      throws Exception {
    byte[] p = plain(length(segments, 5));
    byte[] ad = {1};
    byte[] env = Segmented.seal(AEAD, HEADER, ad, p);
    int at = HEADER.length + where % (env.length - HEADER.length);
    byte[] bad;
    byte[] useAd = ad;
    if (how == 0) {
      bad = env.clone();
      bad[at] ^= 0x01;
    } else if (how == 1) {
      bad = Arrays.copyOf(env, at);
    } else {
      bad = env;
      useAd = new byte[] {2};
    }
    byte[] broken = bad;
    byte[] binding = useAd;
    assertThatThrownBy(() -> Segmented.open(AEAD, binding, broken, HEADER.length))
        .isInstanceOf(GeneralSecurityException.class);
  }

  @Property(tries = 20)
  void segmentsSwappedNeverDecrypt(@ForAll @IntRange(min = 3, max = 5) int segments)
      throws Exception {
    byte[] p = plain(length(segments, 100));
    byte[] ad = {1};
    byte[] env = Segmented.seal(AEAD, HEADER, ad, p);
    int s1 = HEADER.length + Segmented.SEGMENT;
    byte[] one = Arrays.copyOfRange(env, s1, s1 + Segmented.SEGMENT);
    System.arraycopy(env, s1 + Segmented.SEGMENT, env, s1, Segmented.SEGMENT);
    System.arraycopy(one, 0, env, s1 + Segmented.SEGMENT, Segmented.SEGMENT);
    assertThatThrownBy(() -> Segmented.open(AEAD, ad, env, HEADER.length))
        .isInstanceOf(GeneralSecurityException.class);
  }
}
