/**
 * The pipelined producer: {@link io.ankusa.claimcheck.kafka.producer.ClaimCheckProducer}, a Kafka
 * {@code Producer} that checks large values in concurrently on its own pool and still hands each
 * partition's records to its inner producer in send order. Its {@code claimcheck.write.*} keys are
 * defined (and documented) with the serde's in {@code ClaimCheckSerdeConfig}.
 */
package io.ankusa.claimcheck.kafka.producer;
