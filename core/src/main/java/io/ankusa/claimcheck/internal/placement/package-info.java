/**
 * Not API: this library's own placement, failover writer and read search, public only so that its
 * other modules can use it. It may change in any release without notice; do not import it.
 */
package io.ankusa.claimcheck.internal.placement;
