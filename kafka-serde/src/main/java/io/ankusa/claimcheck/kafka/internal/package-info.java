/**
 * Not API: the pieces the serde's packages share (what a checked-in field becomes, the marker
 * header on Kafka's {@code Headers}, the serializer's counts, the per-thread poll boundaries); they
 * may change in any release. Users name the classes of {@code io.ankusa.claimcheck.kafka} and its
 * {@code producer} and {@code prefetch} packages.
 */
package io.ankusa.claimcheck.kafka.internal;
