/**
 * Not API: the redeem (admission, the reader's fetch verified before it caches, the second look
 * before a final answer, decompression into the caller's copy). It may change in any release
 * without notice; do not import it.
 */
package io.ankusa.claimcheck.internal.redeem;
