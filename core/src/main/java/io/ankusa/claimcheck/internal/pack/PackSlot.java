package io.ankusa.claimcheck.internal.pack;

import io.ankusa.claimcheck.ref.Codec;
import java.util.Objects;

/**
 * One claim of a pack encoded in place ({@link Packs#encode(java.util.List, SlotWriter)}): the
 * length its stored bytes will have and their codec, known before they are written; immutable and
 * thread-safe.
 *
 * @param length the number of stored bytes the claim's slot holds, at least 1
 * @param codec how the stored bytes are compressed
 */
public record PackSlot(int length, Codec codec) {

  /** Validates the fields; throws {@link IllegalArgumentException} for an empty slot. */
  public PackSlot {
    Objects.requireNonNull(codec, "codec");
    if (length < 1) {
      throw new IllegalArgumentException("a claim must not be empty (empty payloads stay inline)");
    }
  }
}
