/**
 * Not API: retry backoff and the timer, a leaf package that the reader and the failover writer both
 * reach without importing each other. It may change in any release without notice; do not import
 * it.
 */
package io.ankusa.claimcheck.internal.schedule;
