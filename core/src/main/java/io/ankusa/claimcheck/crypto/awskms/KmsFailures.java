package io.ankusa.claimcheck.crypto.awskms;

import io.ankusa.claimcheck.crypto.KekProvider.KekException;
import io.ankusa.claimcheck.crypto.KekProvider.KekException.Kind;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.kms.model.DisabledException;
import software.amazon.awssdk.services.kms.model.IncorrectKeyException;
import software.amazon.awssdk.services.kms.model.InvalidCiphertextException;
import software.amazon.awssdk.services.kms.model.KmsInvalidStateException;
import software.amazon.awssdk.services.kms.model.NotFoundException;

/**
 * Classifies an AWS KMS failure as a {@link KekException} naming the key; stateless. Unreachable,
 * throttled, timed out or any answer not known to be final: {@code UNAVAILABLE}. Disabled or
 * pending deletion: {@code KEY_UNUSABLE} (an operator can undo it). Not found: {@code KEY_GONE}
 * (the writer used this key, so it existed: deleted, the claims are shredded). Access denied:
 * {@code DENIED}. A blob the key did not wrap under that context: {@code INVALID}.
 */
final class KmsFailures {

  private KmsFailures() {}

  static KekException of(String kekId, String op, Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof KekException k) {
      return k;
    }
    if (e instanceof Error err) {
      throw err;
    }
    String what = "AWS KMS " + op + " of KEK " + kekId + ": ";
    if (e instanceof DisabledException) {
      return new KekException(Kind.KEY_UNUSABLE, what + "the key is disabled: " + msg(e), e);
    }
    if (e instanceof KmsInvalidStateException) {
      return new KekException(
          Kind.KEY_UNUSABLE, what + "the key is pending deletion or unusable: " + msg(e), e);
    }
    if (e instanceof NotFoundException) {
      return new KekException(Kind.KEY_GONE, what + "the key does not exist: " + msg(e), e);
    }
    if (e instanceof InvalidCiphertextException || e instanceof IncorrectKeyException) {
      return new KekException(Kind.INVALID, what + msg(e), e);
    }
    if (e instanceof AwsServiceException s) {
      String code = s.awsErrorDetails() == null ? "" : s.awsErrorDetails().errorCode();
      if ("AccessDeniedException".equals(code)) {
        return new KekException(Kind.DENIED, what + "access denied: " + msg(e), e);
      }
      return new KekException(
          Kind.UNAVAILABLE, what + code + " (" + s.statusCode() + "): " + msg(e), e);
    }
    return new KekException(Kind.UNAVAILABLE, what + "no answer: " + e, e);
  }

  private static String msg(Throwable e) {
    return e instanceof AwsServiceException s && s.awsErrorDetails() != null
        ? s.awsErrorDetails().errorMessage()
        : e.getMessage();
  }
}
