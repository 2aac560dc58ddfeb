package io.ankusa.claimcheck.store.s3;

import static io.ankusa.claimcheck.store.s3.S3TestStores.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ankusa.claimcheck.store.ClaimStore;
import io.ankusa.claimcheck.store.StoreException;
import io.ankusa.claimcheck.store.StoreException.Kind;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the S3 store decides before sending anything (its endpoint is never contacted). */
class S3ClaimStoreTest {

  private static ClaimStore store;

  @BeforeAll
  static void create() {
    store =
        S3TestStores.create(
            Map.of(
                "claimcheck.stores", "s3://bucket/prefix",
                "claimcheck.s3.endpoint", "http://127.0.0.1:9",
                "claimcheck.s3.region", "us-east-1",
                "claimcheck.s3.path.style.access", "true",
                "claimcheck.s3.access.key.id", "id",
                "claimcheck.s3.secret.access.key", "secret"));
  }

  @AfterAll
  static void close() {
    store.close();
  }

  @Test
  void aTimeoutThatAlreadyPassedIsUnavailableWithoutARequest() {
    for (Duration passed : new Duration[] {Duration.ZERO, Duration.ofMillis(-5)}) {
      StoreException get = failure(store.getRange("k", 0, 10, passed));
      assertThat(get.kind()).isEqualTo(Kind.UNAVAILABLE);
      assertThat(get)
          .hasMessageContaining("already passed")
          .hasMessageContaining("s3://bucket/prefix");
      assertThat(failure(store.putIfAbsent("k", new byte[1], passed)))
          .hasMessageContaining("already passed");
      assertThat(failure(store.delete("k", passed))).hasMessageContaining("already passed");
    }
  }

  @Test
  void badArgumentsAreRefusedAtOnce() {
    Duration t = Duration.ofSeconds(1);
    assertThatThrownBy(() -> store.getRange("", 0, 1, t))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.getRange(null, 0, 1, t))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.getRange("k", -1, 1, t)).hasMessageContaining("offset");
    assertThatThrownBy(() -> store.getRange("k", 0, -1, t)).hasMessageContaining("length");
    assertThatThrownBy(() -> store.getRange("k", Long.MAX_VALUE, 2, t))
        .hasMessageContaining("overflows");
    assertThatThrownBy(() -> store.putIfAbsent("k", null, t))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> store.putIfAbsent("k", new byte[1], null))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void describesItsLocation() {
    assertThat(store.describe()).isEqualTo("s3://bucket/prefix");
    assertThat(store.toString()).contains("s3://bucket/prefix").doesNotContain("secret");
  }
}
