/**
 * The key-encryption-key SPI of envelope encryption: {@link KekProvider}, found by {@code
 * ServiceLoader} by the scheme of a KEK id ({@code local:PATH}, {@code aws-kms:ARN}, or a
 * plugged-in scheme such as a Vault transit key), as the stores' {@code ClaimStoreProvider} is by
 * URI scheme.
 */
package io.ankusa.claimcheck.crypto;
