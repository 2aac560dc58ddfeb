package io.ankusa.claimcheck.store.azure;

import com.azure.identity.DefaultAzureCredentialBuilder;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds the Azure Blob container client a store runs on: one attempt per call (no SDK retries: the
 * failover writer and the reader own retries), credentials by the settings' precedence; the
 * executor that completes the store's futures off the HTTP event loop. Stateless and thread-safe.
 */
final class AzureStores {

  /** Completes store futures, so no caller's continuation runs on (or blocks) an event loop. */
  private static final ExecutorService COMPLETIONS =
      Executors.newCachedThreadPool(
          new java.util.concurrent.ThreadFactory() {
            private final AtomicInteger n = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "claimcheck-azure-completion-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });

  private AzureStores() {}

  /** Opens the store of {@code settings}. */
  static AzureClaimStore create(AzureSettings settings) {
    return new AzureClaimStore(container(settings), settings, COMPLETIONS);
  }

  /** The container client of {@code settings}, making exactly one attempt per call. */
  static BlobContainerAsyncClient container(AzureSettings settings) {
    BlobServiceClientBuilder b =
        new BlobServiceClientBuilder()
            .retryOptions(
                new RequestRetryOptions(
                    RetryPolicyType.FIXED, 1, (Integer) null, null, null, null));
    if (settings.connectionString().isPresent()) {
      b.connectionString(settings.connectionString().get());
    } else if (settings.accountKey().isPresent()) {
      b.credential(new StorageSharedKeyCredential(settings.account(), settings.accountKey().get()));
    } else {
      b.credential(new DefaultAzureCredentialBuilder().build());
    }
    if (settings.endpoint().isPresent()) {
      b.endpoint(settings.endpoint().get().toString());
    } else if (settings.connectionString().isEmpty()) {
      b.endpoint("https://" + settings.account() + ".blob.core.windows.net");
    }
    return b.buildAsyncClient().getBlobContainerAsyncClient(settings.container());
  }
}
