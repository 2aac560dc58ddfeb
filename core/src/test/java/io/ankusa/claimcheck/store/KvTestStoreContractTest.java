package io.ankusa.claimcheck.store;

import io.ankusa.claimcheck.config.ClaimCheckConfig;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The store contract on the plugged-in test store, opened through the configuration. */
class KvTestStoreContractTest extends ClaimStoreContract {

  private ClaimStore store;

  @BeforeEach
  void open() {
    store =
        (new ClaimCheckConfig(Map.of(ClaimCheckConfig.STORES, "test-kv:contract")).stores().get(0))
            .open();
  }

  @AfterEach
  void close() {
    KvTestStoreProvider.DOWN.remove("contract");
    store.close();
  }

  @Override
  protected ClaimStore store() {
    return store;
  }

  @Override
  protected boolean backdate(String key, java.time.Instant at) {
    KvTestStoreProvider.WRITTEN.put("contract\0" + key, at);
    return true;
  }

  @Override
  protected void makeUnavailable() {
    KvTestStoreProvider.DOWN.add("contract");
  }

  @Override
  protected void restore() {
    KvTestStoreProvider.DOWN.remove("contract");
  }
}
