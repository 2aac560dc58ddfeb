package io.ankusa.claimcheck.store.memory;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreContract;
import io.ankusa.claimcheck.store.StoreException.Kind;
import org.junit.jupiter.api.BeforeEach;

/** The store contract on the in-memory store; unreachable is its injected UNAVAILABLE fault. */
class MemoryStoreContractTest extends ClaimStoreContract {

  private MemoryStore store;

  @BeforeEach
  void open() {
    store = MemoryStores.create("contract", MemoryStores.realTime());
  }

  @Override
  protected ClaimStore store() {
    return store;
  }

  @Override
  protected boolean backdate(String key, java.time.Instant at) {
    store.lastModified(key, at);
    return true;
  }

  @Override
  protected void makeUnavailable() {
    for (MemoryStore.Op op : MemoryStore.Op.values()) {
      store.failAlways(op, Kind.UNAVAILABLE);
    }
  }

  @Override
  protected void restore() {
    store.clearFaults();
  }
}
