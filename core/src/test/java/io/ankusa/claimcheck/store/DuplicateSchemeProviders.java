package io.ankusa.claimcheck.store;

import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;

/** Two providers registered (in core's test resources) for one scheme, {@code test-dup}. */
public final class DuplicateSchemeProviders {

  private DuplicateSchemeProviders() {}

  /** The first claimant of {@code test-dup}. */
  public static final class First implements ClaimStoreProvider {
    @Override
    public Set<String> schemes() {
      return Set.of("test-dup");
    }

    @Override
    public ConfigDef settings() {
      return new ConfigDef();
    }

    @Override
    public ClaimStore open(URI uri, StoreConfig config) {
      throw new AssertionError("a scheme two providers claim is never opened");
    }
  }

  /** The second claimant of {@code test-dup}. */
  public static final class Second implements ClaimStoreProvider {
    @Override
    public Set<String> schemes() {
      return Set.of("TEST-DUP");
    }

    @Override
    public ConfigDef settings() {
      return new ConfigDef();
    }

    @Override
    public ClaimStore open(URI uri, StoreConfig config) {
      throw new AssertionError("a scheme two providers claim is never opened");
    }
  }
}
