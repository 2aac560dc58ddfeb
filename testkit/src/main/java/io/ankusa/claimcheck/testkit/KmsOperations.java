package io.ankusa.claimcheck.testkit;

import java.math.BigDecimal;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@link EmbeddedKms}'s operations: a parsed JSON 1.1 request in, a JSON answer out, or a {@link
 * KmsError}; thread-safe (the state is in {@link KmsKeys}).
 *
 * <p>Field names and shapes follow the KMS API reference for {@code GenerateDataKey}, {@code
 * Encrypt}, {@code Decrypt} and {@code DescribeKey}; blobs are base64 strings.
 */
final class KmsOperations {

  private static final String ALGORITHM = "SYMMETRIC_DEFAULT";
  private static final int MAX_PLAINTEXT = 4096;

  private final KmsKeys keys;
  private final SecureRandom random = new SecureRandom();

  KmsOperations(KmsKeys keys) {
    this.keys = keys;
  }

  /** Answers operation {@code op} (such as {@code Decrypt}) of request body {@code in}. */
  String answer(String op, Map<String, Object> in) {
    return switch (op) {
      case "GenerateDataKey" -> generateDataKey(in, true);
      case "GenerateDataKeyWithoutPlaintext" -> generateDataKey(in, false);
      case "Encrypt" -> encrypt(in);
      case "Decrypt" -> decrypt(in);
      case "DescribeKey" -> describeKey(in);
      default ->
          throw new KmsError(
              "UnknownOperationException", 400, "EmbeddedKms does not implement " + op);
    };
  }

  private String generateDataKey(Map<String, Object> in, boolean withPlaintext) {
    KmsKeys.Key k = keys.usable(string(in, "KeyId"));
    Object spec = in.get("KeySpec");
    Object bytes = in.get("NumberOfBytes");
    int n;
    if ((spec == null) == (bytes == null)) {
      throw KmsError.validation("Please specify either number of bytes or key spec.");
    } else if (bytes != null) {
      n = number(bytes, "NumberOfBytes");
      if (n < 1 || n > 1024) {
        throw KmsError.validation("NumberOfBytes must be between 1 and 1024");
      }
    } else if ("AES_256".equals(spec)) {
      n = 32;
    } else if ("AES_128".equals(spec)) {
      n = 16;
    } else {
      throw KmsError.validation("KeySpec must be AES_256 or AES_128: " + spec);
    }
    byte[] dataKey = new byte[n];
    random.nextBytes(dataKey);
    Map<String, String> out = new LinkedHashMap<>();
    out.put("CiphertextBlob", b64(keys.encrypt(k, dataKey, context(in))));
    if (withPlaintext) {
      out.put("Plaintext", b64(dataKey));
    }
    out.put("KeyId", k.arn);
    return object(out);
  }

  private String encrypt(Map<String, Object> in) {
    KmsKeys.Key k = keys.usable(string(in, "KeyId"));
    byte[] plaintext = blob(in, "Plaintext");
    if (plaintext.length < 1 || plaintext.length > MAX_PLAINTEXT) {
      throw KmsError.validation("Plaintext must be 1 to 4096 bytes");
    }
    Map<String, String> out = new LinkedHashMap<>();
    out.put("CiphertextBlob", b64(keys.encrypt(k, plaintext, context(in))));
    out.put("KeyId", k.arn);
    out.put("EncryptionAlgorithm", ALGORITHM);
    return object(out);
  }

  private String decrypt(Map<String, Object> in) {
    Object keyId = in.get("KeyId");
    KmsKeys.Decrypted d =
        keys.decrypt(
            blob(in, "CiphertextBlob"), context(in), keyId == null ? null : string(in, "KeyId"));
    Map<String, String> out = new LinkedHashMap<>();
    out.put("KeyId", d.key().arn);
    out.put("Plaintext", b64(d.plaintext()));
    out.put("EncryptionAlgorithm", ALGORITHM);
    return object(out);
  }

  private String describeKey(Map<String, Object> in) {
    KmsKeys.Key k = keys.resolve(string(in, "KeyId"));
    if (k.state == KmsKeys.State.DELETED) {
      throw KmsError.notFound("Key '" + k.arn + "' does not exist");
    }
    return "{\"KeyMetadata\":{\"AWSAccountId\":"
        + KmsJson.quote(KmsKeys.ACCOUNT)
        + ",\"KeyId\":"
        + KmsJson.quote(k.id.toString())
        + ",\"Arn\":"
        + KmsJson.quote(k.arn)
        + ",\"CreationDate\":"
        + k.created.getEpochSecond()
        + ",\"Enabled\":"
        + (k.state == KmsKeys.State.ENABLED)
        + ",\"KeyState\":"
        + KmsJson.quote(k.state.wire)
        + ",\"KeyUsage\":\"ENCRYPT_DECRYPT\",\"KeySpec\":\"SYMMETRIC_DEFAULT\""
        + ",\"KeyManager\":\"CUSTOMER\",\"Origin\":\"AWS_KMS\""
        + ",\"EncryptionAlgorithms\":[\"SYMMETRIC_DEFAULT\"]}}";
  }

  private static String string(Map<String, Object> in, String field) {
    Object v = in.get(field);
    if (!(v instanceof String s) || s.isEmpty()) {
      throw KmsError.validation(field + " is required and must be a string");
    }
    return s;
  }

  private static byte[] blob(Map<String, Object> in, String field) {
    try {
      return Base64.getDecoder().decode(string(in, field));
    } catch (IllegalArgumentException e) {
      throw KmsError.validation(field + " is not base64");
    }
  }

  private static int number(Object v, String field) {
    if (!(v instanceof BigDecimal d)) {
      throw KmsError.validation(field + " must be a number");
    }
    try {
      return d.intValueExact();
    } catch (ArithmeticException e) {
      throw KmsError.validation(field + " must be an integer");
    }
  }

  private static Map<String, String> context(Map<String, Object> in) {
    Object v = in.get("EncryptionContext");
    if (v == null) {
      return Map.of();
    }
    if (!(v instanceof Map<?, ?> m)) {
      throw KmsError.validation("EncryptionContext must be an object");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : m.entrySet()) {
      if (!(e.getValue() instanceof String s)) {
        throw KmsError.validation("EncryptionContext values must be strings");
      }
      out.put((String) e.getKey(), s);
    }
    return out;
  }

  private static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  private static String object(Map<String, String> fields) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, String> e : fields.entrySet()) {
      b.append(b.length() == 1 ? "" : ",");
      b.append(KmsJson.quote(e.getKey())).append(':').append(KmsJson.quote(e.getValue()));
    }
    return b.append('}').toString();
  }
}
