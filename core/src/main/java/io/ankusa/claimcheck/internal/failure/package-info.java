/**
 * Not API: how a check-in or a redeem fails before the facade gives the failure its public type,
 * and the one size both byte limits judge; a leaf under the writer and the redeemer. It may change
 * in any release without notice; do not import it.
 */
package io.ankusa.claimcheck.internal.failure;
