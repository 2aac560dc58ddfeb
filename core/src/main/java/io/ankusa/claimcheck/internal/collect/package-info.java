/**
 * Not API: this library's own collector implementation (log scanning, pack listing, sweeping),
 * public only so that its other modules can use it. It may change in any release without notice; do
 * not import it.
 */
package io.ankusa.claimcheck.internal.collect;
