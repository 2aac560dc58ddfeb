/**
 * Not API: envelope encryption of claims (issue 19): the envelope format ({@code Envelope}), the
 * writer's reused data keys ({@code DataKeys}), the reader's cache of unwrapped ones ({@code
 * UnwrappedKeys}), the KEKs by id ({@code Keks}) and the built-in {@code local:} KEK provider. It
 * may change in any release without notice; do not import it.
 */
package io.ankusa.claimcheck.internal.crypto;
