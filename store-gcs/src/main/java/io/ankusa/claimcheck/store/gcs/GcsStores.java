package io.ankusa.claimcheck.store.gcs;

import com.google.api.client.http.HttpTransport;
import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.auth.oauth2.ServiceAccountCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.HttpStorageOptions;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Builds the Cloud Storage client a store runs on: the JSON API over HTTP only (no gRPC), one
 * attempt per call (no SDK retries: the failover writer and the reader own retries), the {@link
 * ObservingTransport}, credentials by the settings' precedence; and the threads the SDK's blocking
 * calls run on. Stateless and thread-safe.
 */
final class GcsStores {

  /** Runs the SDK's blocking calls, so no caller's thread waits on the network. */
  private static final ExecutorService IO =
      Executors.newCachedThreadPool(
          new ThreadFactory() {
            private final AtomicInteger n = new AtomicInteger();

            @Override
            public Thread newThread(Runnable r) {
              Thread t = new Thread(r, "claimcheck-gcs-io-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            }
          });

  /**
   * The project named when neither the settings nor the credentials name one: object operations
   * send no project, and naming one keeps the SDK from looking for it (on the metadata server).
   */
  static final String NO_PROJECT = "claimcheck-no-project";

  private GcsStores() {}

  /**
   * Opens the store of {@code settings}.
   *
   * @throws IllegalStateException when its credentials cannot be read (the message names the
   *     setting, never the content)
   */
  static GcsClaimStore create(GcsSettings settings) {
    ObservingTransport transport = ObservingTransport.create();
    return new GcsClaimStore(storage(settings, transport.transport()), transport, settings, IO);
  }

  static Storage storage(GcsSettings settings, HttpTransport transport) {
    int timeout = (int) Math.min(Integer.MAX_VALUE, settings.operationTimeout().toMillis());
    HttpStorageOptions.Builder b =
        StorageOptions.http()
            .setTransportOptions(
                HttpTransportOptions.newBuilder()
                    .setHttpTransportFactory(() -> transport)
                    .setConnectTimeout(timeout)
                    .setReadTimeout(timeout)
                    .build())
            .setRetrySettings(RetrySettings.newBuilder().setMaxAttempts(1).build());
    settings.endpoint().ifPresent(e -> b.setHost(e.toString()));
    com.google.auth.Credentials credentials = credentials(settings);
    String project = settings.projectId().orElse(null);
    if (credentials != null) {
      b.setCredentials(credentials);
      if (project == null && credentials instanceof ServiceAccountCredentials sa) {
        project = sa.getProjectId();
      }
    }
    if (project == null && (settings.anonymous() || settings.endpoint().isPresent())) {
      project = NO_PROJECT;
    }
    if (project != null) {
      b.setProjectId(project);
    }
    return b.build().getService();
  }

  /** The explicit credentials, {@link NoCredentials} when anonymous; null for the default chain. */
  private static com.google.auth.Credentials credentials(GcsSettings settings) {
    if (settings.anonymous()) {
      return NoCredentials.getInstance();
    }
    try {
      if (settings.credentialsFile().isPresent()) {
        try (InputStream in = Files.newInputStream(settings.credentialsFile().get())) {
          return GoogleCredentials.fromStream(in);
        }
      }
      if (settings.credentialsJson().isPresent()) {
        return GoogleCredentials.fromStream(
            new ByteArrayInputStream(
                settings.credentialsJson().get().getBytes(StandardCharsets.UTF_8)));
      }
    } catch (IOException | RuntimeException e) {
      // Neither the content nor the parser's message (which may quote it) is shown.
      throw new IllegalStateException(
          settings.location()
              + ": the credentials in "
              + (settings.credentialsFile().isPresent()
                  ? GcsStoreProvider.CREDENTIALS_FILE
                  : GcsStoreProvider.CREDENTIALS_JSON)
              + " cannot be read as Google credentials JSON ("
              + e.getClass().getSimpleName()
              + ")");
    }
    return null;
  }
}
