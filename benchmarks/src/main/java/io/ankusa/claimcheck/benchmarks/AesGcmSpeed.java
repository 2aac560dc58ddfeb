package io.ankusa.claimcheck.benchmarks;

import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * What the JDK's own AES-256-GCM costs on this machine, alone: decrypts and encrypts 1 MiB in
 * segments of 32 KiB (the envelope's), 64 KiB, 256 KiB and 1 MiB, one {@code init} and {@code
 * doFinal} per segment, and prints the best of 200 timed passes after 200 warm-up passes in ms per
 * MiB. The floor under any encrypted redeem's extra cost. Not thread-safe; {@code java -cp
 * benchmarks/target/benchmarks.jar io.ankusa.claimcheck.benchmarks.AesGcmSpeed}.
 */
public final class AesGcmSpeed {

  private static final int TOTAL = 1 << 20;
  private static final int PASSES = 400;

  private AesGcmSpeed() {}

  public static void main(String[] args) throws Exception {
    SecretKey key = new SecretKeySpec(new byte[32], "AES");
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    System.out.println("AES-256-GCM, " + System.getProperty("java.vm.version"));
    for (int seg : new int[] {32 << 10, 64 << 10, 256 << 10, 1 << 20}) {
      byte[] plain = new byte[TOTAL];
      new SecureRandom().nextBytes(plain);
      int segs = TOTAL / seg;
      byte[][] sealed = new byte[segs][];
      for (int i = 0; i < segs; i++) {
        c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv(i, 0, 1)));
        sealed[i] = c.doFinal(plain, i * seg, seg);
      }
      byte[] out = new byte[TOTAL];
      byte[] sealOut = new byte[seg + 16];
      long open = Long.MAX_VALUE;
      long seal = Long.MAX_VALUE;
      for (int pass = 0; pass < PASSES; pass++) {
        long t0 = System.nanoTime();
        for (int i = 0; i < segs; i++) {
          c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, iv(i, 0, 1)));
          c.doFinal(sealed[i], 0, sealed[i].length, out, i * seg);
        }
        long t1 = System.nanoTime();
        for (int i = 0; i < segs; i++) { // a fresh nonce each time: the JDK refuses a reused one
          c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv(i, pass + 1, 2)));
          c.doFinal(plain, i * seg, seg, sealOut, 0);
        }
        long t2 = System.nanoTime();
        if (pass >= PASSES / 2) {
          open = Math.min(open, t1 - t0);
          seal = Math.min(seal, t2 - t1);
        }
      }
      System.out.printf(
          "segments of %4d KiB: decrypt %.3f ms/MiB (%.1f GB/s), encrypt %.3f ms/MiB%n",
          seg >> 10, open / 1e6, TOTAL / (open / 1e9) / 1e9, seal / 1e6);
    }
  }

  private static byte[] iv(int segment, int pass, int kind) {
    byte[] iv = new byte[12];
    iv[0] = (byte) segment;
    iv[1] = (byte) pass;
    iv[2] = (byte) (pass >>> 8);
    iv[3] = (byte) kind;
    return iv;
  }
}
