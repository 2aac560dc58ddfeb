"""Integration test against a running gateway (not run by `unittest discover`: no test_ prefix).

The gateway module's CrossLanguageIT starts a gateway and runs this file with:
  GATEWAY_URL          http://127.0.0.1:PORT
  GATEWAY_TOKEN        a bearer token with read,write on the records' tenant
  CLAIMCHECK_MANIFEST  a JSON file: {"records": [{"value": b64, "headers": [[name, b64|null]],
                       "expected_file": path}]}: record values as the Java serializer wrote them
It redeems every record's ref through the gateway and compares the bytes with the expected file,
byte for byte, then checks a payload in through POST and redeems it back. Exit status 0 = passed.
"""

import base64
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import claimcheck  # noqa: E402


class GatewayIntegration(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.client = claimcheck.GatewayClient(os.environ["GATEWAY_URL"], os.environ["GATEWAY_TOKEN"])
        with open(os.environ["CLAIMCHECK_MANIFEST"], encoding="utf-8") as f:
            cls.records = json.load(f)["records"]

    def test_redeems_what_the_java_serializer_wrote_byte_for_byte(self):
        self.assertTrue(self.records)
        for r in self.records:
            value = base64.b64decode(r["value"])
            headers = [(n, None if v is None else base64.b64decode(v)) for n, v in r["headers"]]
            ref = claimcheck.ref_from_record(value, headers)
            self.assertIsNotNone(ref, "the serializer checked this value in")
            with open(r["expected_file"], "rb") as f:
                expected = f.read()
            got = self.client.redeem(value, deadline_s=60)
            self.assertEqual(len(got), len(expected))
            self.assertEqual(got, expected)

    def test_checks_in_then_redeems_and_describes(self):
        payload = os.urandom(70_000)
        ref = self.client.check_in(payload, deadline_s=60)
        self.assertEqual(self.client.redeem(ref, deadline_s=60), payload)
        self.assertEqual(self.client.describe(ref, deadline_s=60)["length"], len(payload))
        compressed = self.client.check_in(b"zstd " * 10_000, compression="zstd", deadline_s=60)
        self.assertEqual(claimcheck.decode_ref(compressed).codec, "zstd")
        self.assertEqual(self.client.redeem(compressed, deadline_s=60), b"zstd " * 10_000)

    def test_a_bad_token_is_refused(self):
        value = base64.b64decode(self.records[0]["value"])
        bad = claimcheck.GatewayClient(os.environ["GATEWAY_URL"], "not-a-token")
        with self.assertRaises(claimcheck.Refused):
            bad.redeem(value, deadline_s=10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
