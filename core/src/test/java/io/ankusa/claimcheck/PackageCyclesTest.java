package io.ankusa.claimcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Core's packages do not import each other in circles, as read by the JDK's {@code jdeps} from the
 * compiled classes, with no exception: the facade's package names the internals ({@code
 * ClaimCheck.open}) and no internal package imports it back (its implementation is package-private
 * beside it).
 */
class PackageCyclesTest {

  private static final String ROOT = "io.ankusa.claimcheck";
  private static final Pattern EDGE =
      Pattern.compile(
          "^\\s+(io\\.ankusa\\.claimcheck[\\w.]*)\\s+->\\s+(io\\.ankusa\\.claimcheck[\\w.]*)\\s");

  @Test
  void packagesFormNoCycle() {
    Map<String, Set<String>> graph = dependencies(Path.of("target", "classes"));
    assertThat(graph)
        .as("jdeps found core's packages")
        .containsKeys(ROOT + ".internal.reader", ROOT + ".store", ROOT + ".ref");
    List<Set<String>> cycles = new ArrayList<>();
    for (Set<String> component : new Tarjan(graph).components()) {
      if (component.size() > 1) {
        cycles.add(component);
      }
    }
    assertThat(cycles).as("package cycles (give shared basics a leaf package)").isEmpty();
  }

  @Test
  void theCheckSeesACycleWhenThereIsOne() {
    Map<String, Set<String>> g = new TreeMap<>();
    g.put("a", Set.of("b"));
    g.put("b", Set.of("c"));
    g.put("c", Set.of("a"));
    g.put("d", Set.of("a"));
    assertThat(new Tarjan(g).components()).contains(Set.of("a", "b", "c"), Set.of("d"));
  }

  private static Map<String, Set<String>> dependencies(Path classes) {
    ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int rc =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "-verbose:package",
            "-filter:none",
            classes.toString());
    assertThat(rc).as("jdeps: %s", err).isZero();
    Map<String, Set<String>> graph = new TreeMap<>();
    for (String line : out.toString().split("\\R")) {
      Matcher m = EDGE.matcher(line);
      if (m.find() && !m.group(1).equals(m.group(2))) {
        graph.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(m.group(2));
        graph.computeIfAbsent(m.group(2), k -> new TreeSet<>());
      }
    }
    return graph;
  }

  /** Tarjan's strongly connected components; not thread-safe (one use). */
  private static final class Tarjan {
    private final Map<String, Set<String>> graph;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new TreeSet<>();
    private final List<Set<String>> components = new ArrayList<>();

    Tarjan(Map<String, Set<String>> graph) {
      this.graph = graph;
    }

    List<Set<String>> components() {
      for (String v : graph.keySet()) {
        if (!index.containsKey(v)) {
          visit(v);
        }
      }
      return components;
    }

    private void visit(String v) {
      index.put(v, index.size());
      low.put(v, index.get(v));
      stack.push(v);
      onStack.add(v);
      for (String w : graph.getOrDefault(v, Set.of())) {
        if (!index.containsKey(w)) {
          visit(w);
          low.put(v, Math.min(low.get(v), low.get(w)));
        } else if (onStack.contains(w)) {
          low.put(v, Math.min(low.get(v), index.get(w)));
        }
      }
      if (low.get(v).equals(index.get(v))) {
        Set<String> component = new TreeSet<>();
        String w;
        do {
          w = stack.pop();
          onStack.remove(w);
          component.add(w);
        } while (!w.equals(v));
        components.add(component);
      }
    }
  }
}
