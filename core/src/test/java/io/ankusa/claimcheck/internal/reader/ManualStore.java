package io.ankusa.claimcheck.internal.reader;

import io.ankusa.claimcheck.store.StoreException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/** Fetch functions whose store requests the test answers by hand; thread-safe. */
final class ManualStore {

  private final List<CompletableFuture<byte[]>> requests = new CopyOnWriteArrayList<>();

  /** Returns a fetch function; each call is one store request, answered by the test. */
  Supplier<CompletableFuture<byte[]>> fn() {
    return () -> {
      CompletableFuture<byte[]> f = new CompletableFuture<>();
      requests.add(f);
      return f;
    };
  }

  int calls() {
    return requests.size();
  }

  /** Returns how many requests are not answered yet. */
  int running() {
    return (int) requests.stream().filter(f -> !f.isDone()).count();
  }

  void answer(int request, byte[] bytes) {
    requests.get(request).complete(bytes);
  }

  void fail(int request, StoreException.Kind kind) {
    requests.get(request).completeExceptionally(new StoreException(kind, "request " + request));
  }

  void fail(int request, Throwable t) {
    requests.get(request).completeExceptionally(t);
  }

  static StoreException failure(StoreException.Kind kind) {
    return new StoreException(kind, "test");
  }
}
