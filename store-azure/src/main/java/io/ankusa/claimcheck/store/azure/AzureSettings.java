package io.ankusa.claimcheck.store.azure;

import static io.ankusa.claimcheck.store.azure.AzureStoreProvider.ACCOUNT_KEY;
import static io.ankusa.claimcheck.store.azure.AzureStoreProvider.BLOCK_SIZE;
import static io.ankusa.claimcheck.store.azure.AzureStoreProvider.BLOCK_THRESHOLD;
import static io.ankusa.claimcheck.store.azure.AzureStoreProvider.CONNECTION_STRING;
import static io.ankusa.claimcheck.store.azure.AzureStoreProvider.ENDPOINT;

import io.ankusa.claimcheck.store.ClaimStoreProvider.StoreConfig;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The settings of one Azure Blob claim store, parsed once from its URI and {@link StoreConfig}; an
 * immutable, thread-safe record. {@link #toString()} never shows the account key or the connection
 * string.
 *
 * @param account the storage account name
 * @param container the container name
 * @param prefix the blob name prefix: empty, or ending with {@code /}
 * @param endpoint the Blob service endpoint (account URL); absent means the connection string's,
 *     else {@code https://<account>.blob.core.windows.net}
 * @param accountKey the shared key; absent means the connection string or the default chain
 * @param connectionString a connection string; absent means the account key or the default chain
 * @param operationTimeout the longest any one store operation may take
 * @param blockThreshold the pack size from which a put goes up as staged blocks
 * @param blockSize the block size of a staged upload
 */
record AzureSettings(
    String account,
    String container,
    String prefix,
    Optional<URI> endpoint,
    Optional<String> accountKey,
    Optional<String> connectionString,
    Duration operationTimeout,
    int blockThreshold,
    int blockSize) {

  private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9]{3,24}");
  private static final Pattern CONTAINER =
      Pattern.compile("[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]");
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9!_.*'()/=-]*");

  /**
   * The settings of the store at {@code uri}: an {@link IllegalArgumentException} for a URI that is
   * not {@code abs://account/container[/prefix]}, a {@link ConfigException} naming the key for a
   * bad setting.
   */
  static AzureSettings from(URI uri, StoreConfig config) {
    if (uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(
          "an Azure Blob store is abs://account/container[/prefix], without user info, a query or"
              + " a fragment (credentials go in abs.account.key or abs.connection.string)");
    }
    String account = uri.getHost();
    if (account == null || !ACCOUNT.matcher(account).matches()) {
      throw new IllegalArgumentException(
          "an Azure Blob store is abs://account/container[/prefix] with a storage account name of"
              + " 3 to 24 lower-case letters and digits");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String[] parts = path.startsWith("/") ? path.substring(1).split("/", 2) : new String[] {""};
    String container = parts[0];
    if (!CONTAINER.matcher(container).matches()) {
      throw new IllegalArgumentException(
          "an Azure Blob store is abs://account/container[/prefix] with a valid container name (3"
              + " to 63 lower-case letters, digits and single hyphens)");
    }
    String prefix = parts.length > 1 ? parts[1] : "";
    if (!PREFIX.matcher(prefix).matches() || prefix.contains("//")) {
      throw new IllegalArgumentException(
          "the prefix of an Azure Blob store may hold letters, digits and !_.*'()/=- only");
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    Optional<String> key = secret(config.getPassword(ACCOUNT_KEY));
    Optional<String> connection = secret(config.getPassword(CONNECTION_STRING));
    if (key.isPresent() && connection.isPresent()) {
      throw new ConfigException(
          config.keyOf(CONNECTION_STRING),
          "[hidden]",
          "give " + config.keyOf(ACCOUNT_KEY) + " or a connection string, not both");
    }
    int threshold = config.getInt(BLOCK_THRESHOLD);
    int block = config.getInt(BLOCK_SIZE);
    if (threshold <= block) {
      throw new ConfigException(
          config.keyOf(BLOCK_THRESHOLD),
          threshold,
          "must exceed the block size (" + block + ", " + config.keyOf(BLOCK_SIZE) + ")");
    }
    return new AzureSettings(
        account,
        container,
        prefix,
        endpoint(config),
        key,
        connection,
        config.opDeadline(),
        threshold,
        block);
  }

  private static Optional<URI> endpoint(StoreConfig config) {
    String v = config.getString(ENDPOINT);
    if (v == null || v.isBlank()) {
      return Optional.empty();
    }
    URI u;
    try {
      u = new URI(v.trim());
    } catch (URISyntaxException e) {
      throw new ConfigException(config.keyOf(ENDPOINT), "[hidden]", "not a URL; not shown");
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https"))
        || u.getHost() == null
        || u.getRawUserInfo() != null
        || u.getRawQuery() != null) {
      throw new ConfigException(
          config.keyOf(ENDPOINT),
          "[hidden]",
          "must be an http:// or https:// URL with a host, without user info or a query (a SAS"
              + " goes in abs.connection.string)");
    }
    String s = u.toString();
    return Optional.of(URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s));
  }

  private static Optional<String> secret(Password p) {
    return p == null || p.value() == null || p.value().isBlank()
        ? Optional.empty()
        : Optional.of(p.value());
  }

  /** {@code abs://account/container/prefix}: the store's name in messages, never a credential. */
  String location() {
    return "abs://" + account + "/" + container + (prefix.isEmpty() ? "" : "/" + prefix);
  }

  @Override
  public String toString() {
    return "AzureSettings["
        + location()
        + ", endpoint="
        + endpoint.map(URI::toString).orElse("(default)")
        + ", credentials="
        + (accountKey.isPresent()
            ? "account key"
            : connectionString.isPresent() ? "connection string" : "default chain")
        + "]";
  }
}
