package io.ankusa.claimcheck.store.azure;

import static org.assertj.core.api.Assertions.assertThat;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobStorageException;
import io.ankusa.claimcheck.config.ClaimCheckConfig;
import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreContract;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import io.ankusa.claimcheck.testkit.Fault;
import io.ankusa.claimcheck.testkit.FaultProxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shared store contract on Azurite through the fault proxy (unreachable = the proxy down), the
 * store opened by URI scheme through the configuration ({@code ServiceLoader}); and the Azure
 * store's hostile answers: 404s that are not Azure's {@code BlobNotFound}, throttling, a 500.
 */
class AzureClaimStoreContractIT extends ClaimStoreContract {

  private static final String CONTAINER = "contract";

  private static Azurite azurite;
  private static FaultProxy proxy;
  private static ClaimStore store;

  @BeforeAll
  static void start() {
    azurite = Azurite.shared();
    azurite.createContainer(CONTAINER);
    proxy = FaultProxy.start(azurite.server());
    store = open("abs://" + Azurite.ACCOUNT + "/" + CONTAINER + "/claims", Map.of());
  }

  /** Opens {@code uri} as a user would, through the proxy, with the settings {@code extra}. */
  static ClaimStore open(String uri, Map<String, String> extra) {
    Map<String, Object> m = new HashMap<>();
    m.put(ClaimCheckConfig.STORES, uri);
    m.put("claimcheck.store.0.abs.endpoint", proxy.endpoint() + "/" + Azurite.ACCOUNT);
    m.put("claimcheck.store.0.abs.account.key", Azurite.KEY);
    m.put("claimcheck.store.op.deadline.ms", "5000");
    extra.forEach((k, v) -> m.put("claimcheck.store.0." + k, v));
    return new ClaimCheckConfig(m).stores().get(0).open();
  }

  @AfterAll
  static void stop() {
    if (store != null) {
      store.close();
    }
    if (proxy != null) {
      proxy.close();
    }
  }

  @AfterEach
  void passThrough() {
    proxy.clear();
    proxy.resetCounts();
  }

  @Override
  protected ClaimStore store() {
    return store;
  }

  @Override
  protected void makeUnavailable() {
    proxy.down();
  }

  @Override
  protected void restore() {
    proxy.up();
  }

  /**
   * Writes down what Azurite answers for a missing blob, so the rule keeps real misses NOT_FOUND:
   * 404 with {@code x-ms-error-code: BlobNotFound} to GET and to HEAD (no body there), and {@code
   * ContainerNotFound} for a blob in a missing container.
   */
  @Test
  void whatAzuriteAnswersForAMissingBlobAndContainer() {
    BlobContainerClient c = azurite.createContainer(CONTAINER);
    BlobStorageException get = azureFailure(() -> c.getBlobClient("claims/none").downloadContent());
    assertThat(get.getStatusCode()).isEqualTo(404);
    assertThat(get.getResponse().getHeaderValue("x-ms-error-code")).isEqualTo("BlobNotFound");
    BlobStorageException head = azureFailure(() -> c.getBlobClient("claims/none").getProperties());
    assertThat(head.getStatusCode()).isEqualTo(404);
    assertThat(head.getResponse().getHeaderValue("x-ms-error-code")).isEqualTo("BlobNotFound");
    BlobStorageException noContainer =
        azureFailure(
            () ->
                c.getServiceClient()
                    .getBlobContainerClient("no-such-container")
                    .getBlobClient("k")
                    .getProperties());
    assertThat(noContainer.getResponse().getHeaderValue("x-ms-error-code"))
        .isEqualTo("ContainerNotFound");
  }

  @Test
  void aMissingContainerIsUnavailableNeverNotFound() {
    try (ClaimStore none = open("abs://" + Azurite.ACCOUNT + "/no-such-container", Map.of())) {
      for (int length : new int[] {10, 0}) {
        StoreException e = failure(none.getRange("k", 0, length, T));
        assertThat(e.kind()).as("%s", e).isEqualTo(Kind.UNAVAILABLE);
        assertThat(e).hasMessageContaining("container does not exist");
      }
      assertThat(failure(none.stat("k", T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
  }

  @Test
  void anHtml404IsUnavailableNotNotFound() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.inject(Fault.htmlNotFound());
    for (String k : new String[] {key, freshKey()}) {
      StoreException get = failure(store.getRange(k, 0, 10, T));
      assertThat(get.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(get).hasMessageContaining("without an Azure error code");
      assertThat(failure(store.getRange(k, 0, 0, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(failure(store.stat(k, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    }
    proxy.clear();
    assertThat(store.getRange(key, 0, 10, T).join()).isEqualTo(bytes(10));
  }

  @Test
  void throttlingIsThrottledWithItsRetryAfterAndA500IsUnavailable() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.inject(Fault.slowDown(Duration.ofSeconds(3))); // a 503 with Retry-After: 3
    StoreException slow = failure(store.getRange(key, 0, 10, T));
    assertThat(slow.kind()).isEqualTo(Kind.THROTTLED);
    assertThat(slow.retryAfter()).contains(Duration.ofSeconds(3));
    assertThat(failure(store.putIfAbsent(freshKey(), bytes(3), T)).kind())
        .isEqualTo(Kind.THROTTLED);
    proxy.clear();
    proxy.inject(Fault.tooManyRequests());
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.THROTTLED);
    proxy.clear();
    proxy.inject(Fault.serverError());
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.stat(key, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
  }

  @Test
  void aTruncatedBodyOrA206WithoutContentRangeIsUnavailableNeverShortBytes() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(100), T).join();
    proxy.inject(Fault.truncatedBody(), "GET");
    StoreException cut = failure(store.getRange(key, 0, 40, T));
    assertThat(cut.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(cut).hasMessageContaining("but the body has");
    proxy.clear();
    proxy.inject(Fault.partialWithoutContentRange(), "GET");
    StoreException noRange = failure(store.getRange(key, 10, 20, T));
    assertThat(noRange.kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(noRange).hasMessageContaining("without a Content-Range");
    proxy.clear();
    assertThat(store.getRange(key, 10, 20, T).join())
        .isEqualTo(java.util.Arrays.copyOfRange(bytes(100), 10, 30));
  }

  /** A hang or a reset is UNAVAILABLE within the call's timeout, and leaves no stuck connection. */
  @Test
  void aHungOrResetStoreIsUnavailableAndAnswersAgainAfterwards() {
    String key = freshKey();
    store.putIfAbsent(key, bytes(10), T).join();
    proxy.hang(Duration.ofSeconds(8));
    for (int i = 0; i < 4; i++) {
      StoreException hung = failure(store.getRange(key, 0, 10, Duration.ofSeconds(1)));
      assertThat(hung.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(hung).hasMessageContaining("timed out");
    }
    proxy.clear();
    proxy.reset();
    assertThat(failure(store.getRange(key, 0, 10, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    assertThat(failure(store.stat(key, T)).kind()).isEqualTo(Kind.UNAVAILABLE);
    proxy.clear();
    for (int i = 0; i < 20; i++) {
      assertThat(store.getRange(key, 0, 10, T).join()).isEqualTo(bytes(10));
    }
  }

  @Test
  void aLargePackGoesUpAsStagedBlocksCommittedOnlyIfAbsent() {
    try (ClaimStore blocks =
        open(
            "abs://" + Azurite.ACCOUNT + "/" + CONTAINER + "/blocks",
            Map.of("abs.block.threshold.bytes", "300000", "abs.block.bytes", "100000"))) {
      String key = freshKey();
      byte[] big = bytes(1_000_003);
      proxy.resetCounts();
      blocks.putIfAbsent(key, big, T).join();
      assertThat(proxy.requestCount("PUT")).as("10 blocks + 1 block list").isEqualTo(12);
      assertThat(blocks.getRange(key, 0, big.length, T).join()).isEqualTo(big);
      assertThat(failure(blocks.putIfAbsent(key, bytes(400_000), T)).kind())
          .isEqualTo(Kind.ALREADY_EXISTS);
      assertThat(blocks.getRange(key, 0, big.length, T).join()).isEqualTo(big);
      blocks.put(key, bytes(400_000), T).join();
      assertThat(blocks.stat(key, T).join().size()).isEqualTo(400_000);
    }
  }

  private static BlobStorageException azureFailure(Runnable call) {
    try {
      call.run();
      throw new AssertionError("expected an Azure error");
    } catch (BlobStorageException e) {
      return e;
    }
  }
}
