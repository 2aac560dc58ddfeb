/**
 * Time as the library reads it: the injected {@link io.ankusa.claimcheck.time.Ticker}. A leaf
 * package, so every other package may depend on it without depending on each other.
 */
package io.ankusa.claimcheck.time;
