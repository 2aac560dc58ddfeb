package io.ankusa.claimcheck.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KmsJsonTest {

  @Test
  void parsesTheShapesTheSdkSends() {
    Map<String, Object> m =
        KmsJson.parseObject(
            " {\"KeyId\":\"alias/a\",\"NumberOfBytes\":32,\"EncryptionContext\":{\"t\":\"x\\\"y\"},"
                + "\"GrantTokens\":[\"g1\",\"g2\"],\"DryRun\":false,\"Nothing\":null} ");

    assertThat(m)
        .containsEntry("KeyId", "alias/a")
        .containsEntry("NumberOfBytes", new BigDecimal(32))
        .containsEntry("EncryptionContext", Map.of("t", "x\"y"))
        .containsEntry("GrantTokens", List.of("g1", "g2"))
        .containsEntry("DryRun", false)
        .containsEntry("Nothing", null);
    assertThat(KmsJson.parseObject("")).isEmpty();
    assertThat(KmsJson.parseObject("{}")).isEmpty();
  }

  @Test
  void quotedStringsParseBackToThemselves() {
    String tricky = "a\"b\\c\n\r\t\u0001é€/";
    assertThat(KmsJson.parseObject("{\"k\":" + KmsJson.quote(tricky) + "}"))
        .containsEntry("k", tricky);
    assertThat(KmsJson.parseObject("{\"k\":\"\\u00e9\\/\"}")).containsEntry("k", "é/");
  }

  @Test
  void rejectsWhatIsNotOneObject() {
    for (String bad :
        List.of("[]", "{", "{\"a\":}", "{\"a\":1} x", "{\"a\" 1}", "\"s\"", "{\"a\":tru}")) {
      assertThatThrownBy(() -> KmsJson.parseObject(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
