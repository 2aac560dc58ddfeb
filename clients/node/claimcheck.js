// Ankusa claim check for Node 20: decode refs, redeem and check in claims through the gateway.
// No dependencies (the global fetch). The wire format is docs/wire-format.md.
export * from './refs.js';
export * from './gateway.js';
