package io.ankusa.claimcheck.testkit;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for {@link EmbeddedKms}: parses a request body into maps, lists, strings,
 * numbers, booleans and nulls, and quotes strings for answers; stateless and thread-safe.
 *
 * <p>Hand-written (not Jackson) because testkit has no JSON library on its compile class path and
 * KMS's request bodies are small and flat.
 */
final class KmsJson {

  private final String s;
  private int i;

  private KmsJson(String s) {
    this.s = s;
  }

  /**
   * Parses {@code text}, which must be one JSON object; an empty body is an empty object.
   *
   * @throws IllegalArgumentException when it is not
   */
  static Map<String, Object> parseObject(String text) {
    if (text.isBlank()) {
      return Map.of();
    }
    KmsJson p = new KmsJson(text);
    Object v = p.value();
    p.skipSpace();
    if (!(v instanceof Map) || p.i != text.length()) {
      throw new IllegalArgumentException("not one JSON object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) v;
    return m;
  }

  /** Returns {@code v} as a JSON string literal, quotes included. */
  static String quote(String v) {
    StringBuilder b = new StringBuilder(v.length() + 2).append('"');
    for (int k = 0; k < v.length(); k++) {
      char c = v.charAt(k);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }

  private Object value() {
    skipSpace();
    if (i >= s.length()) {
      throw new IllegalArgumentException("unexpected end of JSON");
    }
    char c = s.charAt(i);
    return switch (c) {
      case '{' -> object();
      case '[' -> array();
      case '"' -> string();
      case 't' -> literal("true", Boolean.TRUE);
      case 'f' -> literal("false", Boolean.FALSE);
      case 'n' -> literal("null", null);
      default -> number();
    };
  }

  private Map<String, Object> object() {
    Map<String, Object> m = new LinkedHashMap<>();
    i++;
    skipSpace();
    if (peek() == '}') {
      i++;
      return m;
    }
    while (true) {
      skipSpace();
      String k = string();
      skipSpace();
      expect(':');
      m.put(k, value());
      skipSpace();
      if (peek() == ',') {
        i++;
      } else {
        expect('}');
        return m;
      }
    }
  }

  private List<Object> array() {
    List<Object> l = new ArrayList<>();
    i++;
    skipSpace();
    if (peek() == ']') {
      i++;
      return l;
    }
    while (true) {
      l.add(value());
      skipSpace();
      if (peek() == ',') {
        i++;
      } else {
        expect(']');
        return l;
      }
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return b.toString();
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          if (i + 4 > s.length()) {
            throw new IllegalArgumentException("bad \\u escape");
          }
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
        }
        default -> b.append(e);
      }
    }
  }

  private Object literal(String word, Object v) {
    if (!s.startsWith(word, i)) {
      throw new IllegalArgumentException("bad JSON literal at " + i);
    }
    i += word.length();
    return v;
  }

  private BigDecimal number() {
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    try {
      return new BigDecimal(s.substring(start, i));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad JSON number at " + start, e);
    }
  }

  private void skipSpace() {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
  }

  private char peek() {
    return i < s.length() ? s.charAt(i) : '\0';
  }

  private char next() {
    if (i >= s.length()) {
      throw new IllegalArgumentException("unexpected end of JSON");
    }
    return s.charAt(i++);
  }

  private void expect(char c) {
    if (next() != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + (i - 1));
    }
  }
}
