package io.ankusa.claimcheck.gateway;

import java.util.Map;

/** Writes flat JSON objects of strings, numbers and booleans; stateless and thread-safe. */
final class Json {

  private Json() {}

  static String write(Map<String, ?> m) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, ?> e : m.entrySet()) {
      if (b.length() > 1) {
        b.append(',');
      }
      string(b, e.getKey());
      b.append(':');
      Object v = e.getValue();
      if (v == null) {
        b.append("null");
      } else if (v instanceof Number || v instanceof Boolean) {
        b.append(v);
      } else {
        string(b, v.toString());
      }
    }
    return b.append('}').toString();
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
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
    b.append('"');
  }
}
