package io.ankusa.claimcheck.gateway;

/**
 * What one bearer token may do: read and/or write one tenant's claims; immutable.
 *
 * @param tenant the only tenant the token acts for
 * @param read whether it may redeem and inspect that tenant's claims
 * @param write whether it may check claims in for that tenant
 */
record Grant(String tenant, boolean read, boolean write) {}
