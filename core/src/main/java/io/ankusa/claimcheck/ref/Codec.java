package io.ankusa.claimcheck.ref;

/**
 * How a claim's stored bytes are compressed, with the id written in refs and pack indexes; ids are
 * part of the wire format and never change.
 */
public enum Codec {
  /** Stored as given. */
  NONE(0),
  /** gzip. */
  GZIP(1),
  /** Snappy. */
  SNAPPY(2),
  /** LZ4. */
  LZ4(3),
  /** Zstandard. */
  ZSTD(4);

  private static final Codec[] BY_ID = values();

  private final int id;

  Codec(int id) {
    this.id = id;
  }

  /** Returns the id written on the wire. */
  public int id() {
    return id;
  }

  /** Returns the codec with wire id {@code id}; throws {@link IllegalArgumentException} if none. */
  public static Codec ofId(int id) {
    if (id < 0 || id >= BY_ID.length || BY_ID[id].id != id) {
      throw new IllegalArgumentException("unknown codec id " + id);
    }
    return BY_ID[id];
  }
}
