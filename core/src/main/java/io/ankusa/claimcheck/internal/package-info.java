/**
 * Not API: this library's own wiring (the engine behind {@code ClaimCheck}, compression, ref
 * detection), public only so that its other modules can use it. It and every package under it may
 * change in any release without notice; do not import them.
 */
package io.ankusa.claimcheck.internal;
