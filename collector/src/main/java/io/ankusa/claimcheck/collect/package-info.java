/**
 * The collector of unreferenced packs (module {@code claimcheck-collector}): {@link
 * io.ankusa.claimcheck.collect.Collector} runs a mark and sweep of one tenant ({@link
 * io.ankusa.claimcheck.collect.GcOptions} in, {@link io.ankusa.claimcheck.collect.GcReport} out,
 * {@link io.ankusa.claimcheck.collect.Progress} along the way), and offers tools the scan of topics
 * ({@link io.ankusa.claimcheck.collect.RefVisitor}, {@link io.ankusa.claimcheck.collect.LogScan})
 * and the listing of a store's packs ({@link io.ankusa.claimcheck.collect.StoredPack}). Those seven
 * types are the API; every other class here is package-private implementation (log scanning, ref
 * frames, pack listing, the sweeper under {@link io.ankusa.claimcheck.store.SweepLock}).
 */
package io.ankusa.claimcheck.collect;
