package io.ankusa.claimcheck.store.memory;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Serves {@code faulty:<name>}: the process-wide fault-injecting store {@link MemoryStores#named}
 * of that name, so a test configures a surface with it and injects faults into the very store the
 * surface uses; stateless and thread-safe. Registered in core's test resources only.
 */
public final class FaultyStoreProvider implements ClaimStoreProvider {

  @Override
  public Set<String> schemes() {
    return Set.of("faulty");
  }

  @Override
  public ConfigDef settings() {
    return new ConfigDef();
  }

  @Override
  public void validate(URI uri, StoreConfig config) {
    name(uri);
  }

  /** The named store; it ignores close, so the test keeps it while surfaces come and go. */
  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    return MemoryStores.named(name(uri));
  }

  private static String name(URI uri) {
    return MemoryStoreProvider.name(uri, "faulty"); // the same name rule as memory:<name>
  }
}
