package io.ankusa.claimcheck.store;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a store listing, in key order; immutable and thread-safe.
 *
 * @param objects the objects of this page
 * @param continuation the token that asks for the next page, or null when this page is the last
 */
public record ListPage(List<StoredObject> objects, String continuation) {

  /** Copies {@code objects}. */
  public ListPage {
    objects = List.copyOf(Objects.requireNonNull(objects, "objects"));
  }

  /** Returns the token of the next page, empty when this page is the last. */
  public Optional<String> next() {
    return Optional.ofNullable(continuation);
  }
}
