package io.ankusa.claimcheck.store.azure;

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
 * Serves {@code abs://account/container[/prefix]} stores (Azure Blob Storage) and defines their
 * per-store settings; stateless and thread-safe. Found by {@link java.util.ServiceLoader} when this
 * module's jar is on the class path.
 */
public final class AzureStoreProvider implements ClaimStoreProvider {

  static final String ENDPOINT = "abs.endpoint";
  static final String ACCOUNT_KEY = "abs.account.key";
  static final String CONNECTION_STRING = "abs.connection.string";
  static final String BLOCK_THRESHOLD = "abs.block.threshold.bytes";
  static final String BLOCK_SIZE = "abs.block.bytes";

  private static final int DEFAULT_BLOCK_THRESHOLD = 16 << 20;
  private static final int DEFAULT_BLOCK_SIZE = 8 << 20;

  private static final ConfigDef SETTINGS =
      new ConfigDef()
          .define(
              ENDPOINT,
              Type.STRING,
              null,
              MEDIUM,
              "The Blob service endpoint URL; empty for https://<account>.blob.core.windows.net."
                  + " For Azurite: http://127.0.0.1:10000/<account> (the account in the path).")
          .define(
              ACCOUNT_KEY,
              Type.PASSWORD,
              null,
              MEDIUM,
              "The storage account's shared key; else abs.connection.string, else the Azure"
                  + " default credential chain (environment, workload or managed identity, Azure"
                  + " CLI). Never shown (typed PASSWORD).")
          .define(
              CONNECTION_STRING,
              Type.PASSWORD,
              null,
              MEDIUM,
              "A storage connection string (it carries the account key or a SAS); never shown. Its"
                  + " BlobEndpoint is used unless abs.endpoint is set.")
          .define(
              BLOCK_THRESHOLD,
              Type.INT,
              DEFAULT_BLOCK_THRESHOLD,
              Range.atLeast(1),
              LOW,
              "Packs of at least this many bytes go up as staged blocks, committed as one block"
                  + " list only if no blob is there (If-None-Match: *); smaller ones as one Put"
                  + " Blob with the same condition.")
          .define(
              BLOCK_SIZE,
              Type.INT,
              DEFAULT_BLOCK_SIZE,
              Range.between(1, 100 << 20),
              LOW,
              "The block size of a staged upload (at most 100 MiB).");

  @Override
  public Set<String> schemes() {
    return Set.of("abs");
  }

  @Override
  public ConfigDef settings() {
    return SETTINGS;
  }

  @Override
  public void validate(URI uri, StoreConfig config) {
    AzureSettings.from(uri, config);
  }

  @Override
  public ClaimStore open(URI uri, StoreConfig config) {
    return AzureStores.create(AzureSettings.from(uri, config));
  }
}
