package io.ankusa.claimcheck.store.gcs;

import static org.apache.kafka.common.config.ConfigDef.Importance.LOW;
import static org.apache.kafka.common.config.ConfigDef.Importance.MEDIUM;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.ClaimStoreProvider;
import java.net.URI;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Serves {@code gs://bucket[/prefix]} stores (Google Cloud Storage, JSON API over HTTP) and defines
 * their per-store settings; stateless and thread-safe. Found by {@link java.util.ServiceLoader}
 * when this module's jar is on the class path. Names no class of the Google Cloud SDK, so its
 * settings can be read (the configuration reference) without the SDK on the class path.
 */
public final class GcsStoreProvider implements ClaimStoreProvider {

  static final String ENDPOINT = "gcs.endpoint";
  static final String CREDENTIALS_FILE = "gcs.credentials.file";
  static final String CREDENTIALS_JSON = "gcs.credentials.json";
  static final String ANONYMOUS = "gcs.anonymous";
  static final String PROJECT_ID = "gcs.project.id";
  static final String CHUNK_SIZE = "gcs.upload.chunk.bytes";

  /** GCS takes the chunks of a resumable upload (all but the last) in multiples of 256 KiB. */
  static final int CHUNK_QUANTUM = 256 << 10;

  private static final int DEFAULT_CHUNK_SIZE = 8 << 20;

  private static final ConfigDef SETTINGS =
      new ConfigDef()
          .define(
              ENDPOINT,
              Type.STRING,
              null,
              MEDIUM,
              "The Cloud Storage endpoint URL (scheme, host, port); empty for"
                  + " https://storage.googleapis.com. For a private endpoint or a local stand-in,"
                  + " such as http://127.0.0.1:4443.")
          .define(
              CREDENTIALS_FILE,
              Type.STRING,
              null,
              MEDIUM,
              "The path of a credentials JSON file (a service-account key, or any credential"
                  + " JSON the Google auth library reads); else gcs.credentials.json, else the"
                  + " Application Default Credentials chain (GOOGLE_APPLICATION_CREDENTIALS, gcloud,"
                  + " workload identity, the metadata server). Its content is never shown.")
          .define(
              CREDENTIALS_JSON,
              Type.PASSWORD,
              null,
              MEDIUM,
              "The credentials JSON itself (typed PASSWORD: never shown), for where a file is"
                  + " awkward (a Connect worker's config provider).")
          .define(
              ANONYMOUS,
              Type.BOOLEAN,
              false,
              LOW,
              "Send no credentials at all (a public bucket, or a local stand-in); not with"
                  + " gcs.credentials.file or gcs.credentials.json.")
          .define(
              PROJECT_ID,
              Type.STRING,
              null,
              LOW,
              "The project the client names; empty for the credentials' own. Object operations"
                  + " do not need one.")
          .define(
              CHUNK_SIZE,
              Type.INT,
              DEFAULT_CHUNK_SIZE,
              Range.between(CHUNK_QUANTUM, 1 << 30),
              LOW,
              "The chunk size of a streamed claim's resumable upload (a multiple of 256 KiB):"
                  + " what one streamed write holds in memory.");

  @Override
  public Set<String> schemes() {
    return Set.of("gs");
  }

  @Override
  public ConfigDef settings() {
    return SETTINGS;
  }

  @Override
  public void validate(URI uri, StoreConfig config) {
    GcsSettings.from(uri, config);
  }

  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    return GcsStores.create(GcsSettings.from(uri, config));
  }
}
