package io.ankusa.claimcheck.ref;

import java.util.Random;

/** Random valid values for round-trip tests; seeded, so failures reproduce. */
public final class Fixtures {

  private static final String TENANT_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._-";

  private Fixtures() {}

  public static Tenant tenant(Random random) {
    int length = random.nextInt(4) == 0 ? Tenant.MAX_LENGTH : 1 + random.nextInt(Tenant.MAX_LENGTH);
    while (true) {
      StringBuilder sb = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        sb.append(TENANT_CHARS.charAt(random.nextInt(TENANT_CHARS.length())));
      }
      String s = sb.toString();
      if (s.charAt(0) != '.' && s.charAt(0) != '-' && !s.contains("..")) {
        return Tenant.of(s);
      }
    }
  }

  public static ClaimRef ref(Random random) {
    int index =
        switch (random.nextInt(4)) {
          case 0 -> 0;
          case 1 -> ClaimId.MAX_INDEX;
          default -> random.nextInt(ClaimId.MAX_INDEX + 1);
        };
    int length = random.nextInt(3) == 0 ? Integer.MAX_VALUE : 1 + random.nextInt(Integer.MAX_VALUE);
    long offset =
        switch (random.nextInt(4)) {
          case 0 -> 0;
          case 1 -> Long.MAX_VALUE - length;
          default -> (random.nextLong() >>> 1) % (Long.MAX_VALUE - length + 1);
        };
    Codec codec = Codec.values()[random.nextInt(Codec.values().length)];
    Tenant tenant = tenant(random);
    ClaimId id = new ClaimId(new PackId(random.nextLong()), index);
    if (random.nextInt(4) == 0) {
      // An encrypted claim (version 3): any codec, a raw length apart from the envelope's length.
      int rawLength =
          random.nextInt(3) == 0 ? Integer.MAX_VALUE : random.nextInt(Integer.MAX_VALUE);
      return ClaimRef.ofEncrypted(tenant, id, offset, length, random.nextInt(), codec, rawLength);
    }
    if (random.nextBoolean()) {
      // What a writer writes today: version 2 with the raw length when compressed, else version 1.
      int rawLength =
          codec == Codec.NONE
              ? length
              : random.nextInt(3) == 0 ? Integer.MAX_VALUE : random.nextInt(Integer.MAX_VALUE);
      return ClaimRef.of(tenant, id, offset, length, random.nextInt(), codec, rawLength);
    }
    return ClaimRef.of(tenant, id, offset, length, random.nextInt(), codec);
  }
}
