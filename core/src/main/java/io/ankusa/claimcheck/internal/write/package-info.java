/**
 * Not API: the check-in (compress, pack, write through the failover writer, mint a fresh id on a
 * collision, read back and rewrite a reused key pack). It may change in any release without notice;
 * do not import it.
 */
package io.ankusa.claimcheck.internal.write;
