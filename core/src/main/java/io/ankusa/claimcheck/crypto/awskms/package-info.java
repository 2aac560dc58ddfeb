/**
 * The {@code aws-kms:KEY-ARN-OR-ALIAS} KEKs over the AWS SDK v2 {@code kms} client: {@link
 * AwsKmsKekProvider}, public only for {@code ServiceLoader}; not for direct use. With {@code
 * store.s3}, the only package importing the AWS SDK.
 */
package io.ankusa.claimcheck.crypto.awskms;
