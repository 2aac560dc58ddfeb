package io.ankusa.claimcheck.internal.crypto;

import io.ankusa.claimcheck.crypto.KekProvider;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The {@link KekProvider}s visible to this library, by scheme; immutable and thread-safe once
 * loaded. Looked up with {@link ServiceLoader} in this library's class loader and the calling
 * thread's context class loader, as the store providers are.
 */
public final class KekProviders {

  private final Map<String, KekProvider> byScheme;

  private KekProviders(Map<String, KekProvider> byScheme) {
    this.byScheme = byScheme;
  }

  /** No providers (encryption off). */
  static KekProviders none() {
    return new KekProviders(Map.of());
  }

  /** Loads the providers visible now. */
  public static KekProviders load() {
    Map<String, KekProvider> byClass = new LinkedHashMap<>();
    ClassLoader own = KekProvider.class.getClassLoader();
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    scan(ServiceLoader.load(KekProvider.class, own), byClass);
    if (context != null && context != own) {
      scan(ServiceLoader.load(KekProvider.class, context), byClass);
    }
    Map<String, KekProvider> byScheme = new TreeMap<>();
    for (KekProvider p : byClass.values()) {
      for (String scheme : p.schemes()) {
        KekProvider other = byScheme.putIfAbsent(scheme.toLowerCase(Locale.ROOT), p);
        if (other != null && other != p) {
          throw new IllegalStateException(
              "two KEK providers serve the scheme '"
                  + scheme
                  + "': "
                  + other.getClass().getName()
                  + " and "
                  + p.getClass().getName());
        }
      }
    }
    return new KekProviders(byScheme);
  }

  private static void scan(ServiceLoader<KekProvider> loader, Map<String, KekProvider> byClass) {
    Iterator<KekProvider> it = loader.iterator();
    while (true) {
      try {
        if (!it.hasNext()) {
          return;
        }
        KekProvider p = it.next();
        byClass.putIfAbsent(p.getClass().getName(), p);
      } catch (ServiceConfigurationError e) {
        return; // a broken services file: the iterator cannot go on past it
      }
    }
  }

  /** The scheme of {@code kekId} ({@code scheme:reference}); {@link IllegalArgumentException}. */
  public static String schemeOf(String kekId) {
    int colon = kekId.indexOf(':');
    if (colon <= 0 || colon == kekId.length() - 1) {
      throw new IllegalArgumentException(
          "a KEK is none or scheme:reference (local:PATH, aws-kms:KEY-ARN-OR-ALIAS), not '"
              + kekId
              + "'");
    }
    return kekId.substring(0, colon).toLowerCase(Locale.ROOT);
  }

  /** The provider of {@code kekId}'s scheme; {@link IllegalArgumentException} listing the known. */
  public KekProvider forId(String kekId) {
    String scheme = schemeOf(kekId);
    KekProvider p = byScheme.get(scheme);
    if (p == null) {
      throw new IllegalArgumentException(
          "no KEK provider serves the scheme '"
              + scheme
              + "'; known schemes: "
              + byScheme.keySet());
    }
    return p;
  }
}
