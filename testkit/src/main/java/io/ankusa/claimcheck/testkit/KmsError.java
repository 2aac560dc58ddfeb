package io.ankusa.claimcheck.testkit;

/**
 * An error answer of {@link EmbeddedKms}: KMS's error type (the {@code __type} of the JSON body),
 * its HTTP status and message; immutable.
 */
final class KmsError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String type;
  private final int status;

  KmsError(String type, int status, String message) {
    super(message, null, false, false);
    this.type = type;
    this.status = status;
  }

  static KmsError notFound(String message) {
    return new KmsError("NotFoundException", 400, message);
  }

  static KmsError disabled(String arn) {
    return new KmsError("DisabledException", 400, arn + " is disabled.");
  }

  static KmsError invalidState(String arn) {
    return new KmsError("KMSInvalidStateException", 400, arn + " is pending deletion.");
  }

  static KmsError invalidCiphertext() {
    return new KmsError("InvalidCiphertextException", 400, null);
  }

  static KmsError incorrectKey() {
    return new KmsError(
        "IncorrectKeyException",
        400,
        "The key ID in the request does not identify a CMK that can perform this operation.");
  }

  static KmsError validation(String message) {
    return new KmsError("ValidationException", 400, message);
  }

  static KmsError throttling() {
    return new KmsError(
        "ThrottlingException",
        400,
        "You have exceeded the rate at which you may call KMS. Reduce the frequency of your calls.");
  }

  String type() {
    return type;
  }

  int status() {
    return status;
  }

  /** The JSON body real KMS answers with: {@code {"__type":"...","message":"..."}}. */
  String body() {
    String m = getMessage();
    return "{\"__type\":"
        + KmsJson.quote(type)
        + (m == null ? "" : ",\"message\":" + KmsJson.quote(m))
        + "}";
  }
}
