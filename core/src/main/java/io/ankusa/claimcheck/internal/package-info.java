/**
 * Not API: this library's own wiring (the shared runtimes, one store set and reader per store
 * configuration; the reader's exposure to this library's surfaces), public only so that its other
 * modules can use it. It and every package under it may change in any release without notice; do
 * not import them. No internal package imports the facade's package.
 */
package io.ankusa.claimcheck.internal;
