package io.ankusa.claimcheck.config;

import io.ankusa.claimcheck.store.ClaimStoreProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigException;

/**
 * The {@link ClaimStoreProvider}s visible to this library, by scheme; immutable and thread-safe
 * once loaded.
 *
 * <p>Providers are looked up with {@link ServiceLoader} in the class loader that loaded this
 * library (a Connect plugin's own loader, where a plugin's store jars sit) and in the calling
 * thread's context class loader (an application server's or a framework's), each provider class
 * once. A provider that fails to load is remembered and reported only if no provider serves a
 * scheme a configuration asks for.
 */
final class StoreProviders {

  private final Map<String, List<ClaimStoreProvider>> byScheme;
  private final List<String> failures;

  private StoreProviders(Map<String, List<ClaimStoreProvider>> byScheme, List<String> failures) {
    this.byScheme = byScheme;
    this.failures = failures;
  }

  /** Loads the providers visible now. */
  static StoreProviders load() {
    Map<String, ClaimStoreProvider> byClass = new LinkedHashMap<>();
    List<String> failures = new ArrayList<>();
    ClassLoader own = ClaimStoreProvider.class.getClassLoader();
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    scan(ServiceLoader.load(ClaimStoreProvider.class, own), byClass, failures);
    if (context != null && context != own) {
      scan(ServiceLoader.load(ClaimStoreProvider.class, context), byClass, failures);
    }
    Map<String, List<ClaimStoreProvider>> byScheme = new TreeMap<>();
    for (ClaimStoreProvider p : byClass.values()) {
      for (String scheme : p.schemes()) {
        byScheme
            .computeIfAbsent(scheme.toLowerCase(java.util.Locale.ROOT), s -> new ArrayList<>())
            .add(p);
      }
    }
    return new StoreProviders(byScheme, List.copyOf(failures));
  }

  private static void scan(
      ServiceLoader<ClaimStoreProvider> loader,
      Map<String, ClaimStoreProvider> byClass,
      List<String> failures) {
    Iterator<ClaimStoreProvider> it = loader.iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          return;
        }
      } catch (ServiceConfigurationError e) {
        failures.add(e.getMessage());
        return; // a broken services file: the iterator cannot go on past it
      }
      try {
        ClaimStoreProvider p = it.next();
        byClass.putIfAbsent(p.getClass().getName(), p);
      } catch (ServiceConfigurationError e) {
        failures.add(e.getMessage());
      }
    }
  }

  /**
   * The one provider serving {@code scheme}, or a {@link ConfigException} naming {@code key}
   * (showing {@code shown}): no provider (listing the known schemes), or two.
   */
  ClaimStoreProvider forScheme(String scheme, String key, Object shown) {
    List<ClaimStoreProvider> ps = byScheme.getOrDefault(scheme, List.of());
    if (ps.isEmpty()) {
      throw new ConfigException(
          key,
          shown,
          "no store provider serves the scheme '"
              + scheme
              + "'; known schemes: "
              + String.join(", ", byScheme.keySet())
              + (failures.isEmpty() ? "" : " (providers that failed to load: " + failures + ")"));
    }
    if (ps.size() > 1) {
      TreeSet<String> names = new TreeSet<>();
      ps.forEach(p -> names.add(p.getClass().getName()));
      throw new ConfigException(
          key,
          shown,
          "the scheme '"
              + scheme
              + "' is served by "
              + ps.size()
              + " store providers, "
              + names
              + ": keep one of them on the class path");
    }
    return ps.get(0);
  }
}
