package io.ankusa.claimcheck.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The public API of a module as sorted text lines — every public type and its public or protected
 * constructors, methods and fields — for a baseline check that fails the build on an accidental
 * break; stateless and thread-safe.
 *
 * <p>Use from a module's test: compare {@link #of} with the committed file via {@link #check}; run
 * the test with {@code -Dapi.write=true} to rewrite the file after a deliberate change (and review
 * its diff). Types in packages named {@code internal} are not API and are left out.
 */
public final class PublicApi {

  private PublicApi() {}

  /** The API lines of the classes compiled into {@code classesDir}, loaded by {@code loader}. */
  public static List<String> of(Path classesDir, ClassLoader loader) {
    TreeSet<String> lines = new TreeSet<>();
    try (Stream<Path> files = Files.walk(classesDir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        String name = classesDir.relativize(f).toString().replace('/', '.').replace('\\', '.');
        name = name.substring(0, name.length() - ".class".length());
        if (name.endsWith("package-info") || name.endsWith("module-info")) {
          continue;
        }
        Class<?> c;
        try {
          c = Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
          throw new IllegalStateException("cannot load " + name + ": " + e, e);
        }
        if (!isApi(c)) {
          continue;
        }
        lines.add(c.getName() + " " + describe(c));
        for (Constructor<?> k : c.getDeclaredConstructors()) {
          add(lines, c, k, k.toGenericString());
        }
        for (Method m : c.getDeclaredMethods()) {
          if (!m.isBridge()) {
            add(lines, c, m, m.toGenericString());
          }
        }
        for (Field fl : c.getDeclaredFields()) {
          add(lines, c, fl, fl.toGenericString());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return List.copyOf(lines);
  }

  /**
   * Compares {@code actual} with the lines of {@code baseline}; with {@code -Dapi.write=true} it
   * rewrites the file first. Returns the differences ({@code + added}, {@code - removed}) and every
   * API line that names a type in an {@code internal} package ({@code !}: such a type would become
   * API through the back door); empty when all is well.
   */
  public static List<String> check(List<String> actual, Path baseline) {
    try {
      if (Boolean.getBoolean("api.write")) {
        Files.write(baseline, actual, StandardCharsets.UTF_8);
      }
      List<String> expected =
          Files.exists(baseline) ? Files.readAllLines(baseline, StandardCharsets.UTF_8) : List.of();
      List<String> diff = new ArrayList<>();
      TreeSet<String> was = new TreeSet<>(expected);
      TreeSet<String> is = new TreeSet<>(actual);
      for (String l : is) {
        if (!was.contains(l)) {
          diff.add("+ " + l);
        }
      }
      for (String l : was) {
        if (!is.contains(l)) {
          diff.add("- " + l);
        }
      }
      for (String l : is) {
        if (l.contains(".internal.")) {
          diff.add("! an API signature names a type that is not API: " + l);
        }
      }
      return diff;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isApi(Class<?> c) {
    if (c.isSynthetic() || c.isAnonymousClass() || c.isLocalClass()) {
      return false;
    }
    if (c.getPackageName().contains(".internal")) {
      return false;
    }
    for (Class<?> t = c; t != null; t = t.getDeclaringClass()) {
      if (!Modifier.isPublic(t.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static void add(TreeSet<String> lines, Class<?> c, Member m, String signature) {
    if (m.isSynthetic()) {
      return;
    }
    int mod = m.getModifiers();
    boolean visible =
        Modifier.isPublic(mod)
            || (Modifier.isProtected(mod) && !Modifier.isFinal(c.getModifiers()));
    if (visible) {
      lines.add(c.getName() + " :: " + signature);
    }
  }

  private static String describe(Class<?> c) {
    StringBuilder b = new StringBuilder();
    b.append(
        c.isInterface()
            ? "interface"
            : c.isEnum()
                ? "enum"
                : c.isRecord()
                    ? "record"
                    : c.isAnnotation()
                        ? "annotation"
                        : Modifier.isAbstract(c.getModifiers())
                            ? "abstract class"
                            : Modifier.isFinal(c.getModifiers()) ? "final class" : "class");
    if (c.getGenericSuperclass() != null
        && c.getSuperclass() != Object.class
        && !c.isEnum()
        && !c.isRecord()) {
      b.append(" extends ").append(c.getGenericSuperclass().getTypeName());
    }
    if (c.getGenericInterfaces().length > 0) {
      b.append(c.isInterface() ? " extends " : " implements ");
      for (int i = 0; i < c.getGenericInterfaces().length; i++) {
        b.append(i == 0 ? "" : ", ").append(c.getGenericInterfaces()[i].getTypeName());
      }
    }
    return b.toString();
  }
}
