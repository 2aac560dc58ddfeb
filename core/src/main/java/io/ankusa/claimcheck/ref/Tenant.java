package io.ankusa.claimcheck.ref;

import java.util.Objects;

/**
 * The owner of a claim, safe to use as a key segment; immutable and thread-safe.
 *
 * <p>A tenant is 1 to {@value #MAX_LENGTH} characters of {@code [a-z0-9._-]}, does not start with
 * {@code '.'} or {@code '-'} and does not contain {@code ".."}: it can never be a path character,
 * {@code "."} or {@code ".."}, so it cannot escape the prefix it is placed under.
 *
 * @param value the validated tenant name
 */
public record Tenant(String value) {

  /** The longest tenant name, in characters (each one byte in a ref). */
  public static final int MAX_LENGTH = 40;

  /** Validates {@code value}; throws {@link IllegalArgumentException} naming it if invalid. */
  public Tenant {
    Objects.requireNonNull(value, "tenant");
    String problem = problem(value);
    if (problem != null) {
      throw new IllegalArgumentException("invalid tenant \"" + printable(value) + "\": " + problem);
    }
  }

  /** Returns the tenant named {@code value}; throws {@link IllegalArgumentException} if invalid. */
  public static Tenant of(String value) {
    return new Tenant(value);
  }

  private static String problem(String value) {
    if (value.isEmpty()) {
      return "must not be empty";
    }
    if (value.length() > MAX_LENGTH) {
      return "longer than " + MAX_LENGTH + " characters";
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
      if (!ok) {
        return "character at index " + i + " is not one of [a-z0-9._-]";
      }
    }
    char first = value.charAt(0);
    if (first == '.' || first == '-') {
      return "must not start with '" + first + "'";
    }
    if (value.contains("..")) {
      return "must not contain \"..\"";
    }
    return null;
  }

  /** Shows control and non-ASCII characters as escapes so the message stays one readable line. */
  private static String printable(String value) {
    String shown =
        value.length() > 2 * MAX_LENGTH ? value.substring(0, 2 * MAX_LENGTH) + "..." : value;
    StringBuilder sb = new StringBuilder(shown.length());
    for (int i = 0; i < shown.length(); i++) {
      char c = shown.charAt(i);
      if (c < 0x20 || c >= 0x7f) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /** Returns the tenant name. */
  @Override
  public String toString() {
    return value;
  }
}
