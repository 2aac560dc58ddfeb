"""Tests of claimcheck.py: the shared wire vectors (docs/wire-vectors.json, written and checked by
core's WireVectorsTest) and the gateway client against a stub HTTP server on 127.0.0.1."""

import gzip
import http.server
import json
import os
import struct
import threading
import unittest
import zlib

import claimcheck as cc

VECTORS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                            "wire-vectors.json")
with open(VECTORS_PATH, encoding="utf-8") as f:
    VECTORS = json.load(f)

PACK = VECTORS["pack"]
PAYLOAD = bytes.fromhex(PACK["payload_hex"])
PLAIN_REF = bytes.fromhex(PACK["claims"][0]["ref_hex"])  # codec none: CRC32C of PAYLOAD
GZIP_REF = bytes.fromhex(PACK["claims"][1]["ref_hex"])  # version 2, uncompressed length known

ENCRYPTED = next(v for v in VECTORS["refs"] if v["version"] == 3 and v["codec"] == "none")
ENCRYPTED_REF = bytes.fromhex(ENCRYPTED["hex"])  # its length and CRC32C: the envelope's


def v4(tenant=b"acme", length=5, codec=0, raw=5, body_extra=b"", version=4, checksum=0x1234):
    """A version-4 (streamed) ref as RefV4 writes it."""
    body = (bytes([len(tenant)]) + tenant + bytes.fromhex("0123456789abcdef")
            + struct.pack(">qIBq", length, checksum, codec, raw) + body_extra)
    head = cc.MAGIC + bytes([version, len(body)]) + body
    return head + struct.pack(">I", zlib.crc32(head))


class RefVectorsTest(unittest.TestCase):

    def test_every_ref_vector_decodes_to_its_fields(self):
        self.assertGreater(len(VECTORS["refs"]), 5)
        for v in VECTORS["refs"]:
            with self.subTest(v["hex"]):
                data = bytes.fromhex(v["hex"])
                r = cc.decode_ref(data)
                self.assertEqual(
                    (r.version, r.tenant, r.pack_id, r.index, r.offset, r.length, r.checksum,
                     r.codec, r.uncompressed_length),
                    (v["version"], v["tenant"], v["pack_id"], v["index"], int(v["offset"]),
                     v["length"], v["checksum"], v["codec"], v["uncompressed_length"]))
                self.assertTrue(cc.is_ref(data))
                self.assertTrue(cc.is_ref(data, marked=True))
                self.assertEqual(cc.ref_to_base64url(data), v["base64url"])
                self.assertEqual(cc.ref_from_base64url(v["base64url"]), data)
                self.assertEqual(r.key("flat"), v["flat_key"])
                self.assertEqual(r.key("sharded"), v["sharded_key"])
                self.assertEqual(cc.ref_from_record(data, None), r)
                self.assertEqual(cc.ref_from_record(data, [(cc.VALUE_MARKER, b"2")]), r)
                self.assertEqual(r.encrypted, v["version"] == 3)
                self.assertFalse(r.streamed)

    def test_the_vectors_cover_encrypted_refs(self):
        encrypted = [v for v in VECTORS["refs"] if v["version"] == 3]
        self.assertTrue(encrypted)
        self.assertTrue(any(v["codec"] == "none" and v["uncompressed_length"] != v["length"]
                            for v in encrypted), "an envelope is longer than its claim")
        self.assertTrue(any(v["error"] is None and v["ref"]["version"] == 3
                            for v in VECTORS["fuzz"]))

    def test_every_streamed_ref_vector_decodes_to_its_fields(self):
        self.assertGreaterEqual(len(VECTORS["streamed_refs"]), 2)
        for v in VECTORS["streamed_refs"]:
            with self.subTest(v["hex"]):
                data = bytes.fromhex(v["hex"])
                r = cc.decode_ref(data)
                self.assertEqual(
                    (r.version, r.tenant, r.pack_id, r.index, r.offset, r.length, r.checksum,
                     r.codec, r.uncompressed_length),
                    (v["version"], v["tenant"], v["pack_id"], 0, 0, int(v["length"]),
                     v["checksum"], v["codec"], int(v["uncompressed_length"])))
                self.assertTrue(r.streamed)
                self.assertEqual(r.encrypted, v["version"] == cc.STREAMED_ENCRYPTED_VERSION)
                self.assertTrue(cc.is_ref(data))
                self.assertEqual(cc.ref_to_base64url(data), v["base64url"])
                self.assertEqual(r.key("flat"), v["flat_key"])
                marker = str(v["version"]).encode()
                self.assertEqual(cc.ref_from_record(data, [(cc.VALUE_MARKER, marker)]), r)
        self.assertTrue(any(int(v["length"]) > 2 ** 31 - 1 or
                            int(v["uncompressed_length"]) > 2 ** 32
                            for v in VECTORS["streamed_refs"]), "64-bit lengths are covered")
        self.assertTrue(any(v["version"] == 5 for v in VECTORS["streamed_refs"]),
                        "an encrypted streamed ref is covered")

    def test_an_encrypted_streamed_ref_records_an_envelope_longer_than_its_claim(self):
        r = cc.decode_ref(v4(version=5, length=100, raw=40))
        self.assertTrue(r.encrypted and r.streamed)
        self.assertEqual((r.length, r.uncompressed_length), (100, 40))
        with self.assertRaises(cc.MalformedRef) as caught:
            cc.decode_ref(v4(version=5, codec=4, raw=-1))
        self.assertEqual(caught.exception.reason, "BAD_FIELD")

    def test_streamed_refs_get_the_java_checks_in_order(self):
        # The vectors have no fuzzed streamed refs: these are built as RefV4 writes them.
        self.assertEqual(cc.decode_ref(v4(length=2 ** 63 - 1, raw=2 ** 63 - 1)).length,
                         2 ** 63 - 1)
        self.assertEqual(cc.decode_ref(v4(codec=4, raw=0)).uncompressed_length, 0)
        for name, data, reason in [
                ("codec 5", v4(codec=5), "UNKNOWN_CODEC"),
                ("codec 9 wins over a bad tenant", v4(tenant=b"ACME", codec=9), "UNKNOWN_CODEC"),
                ("a bad tenant", v4(tenant=b"ACME"), "BAD_FIELD"),
                ("an empty tenant", v4(tenant=b""), "BAD_FIELD"),
                ("a length of 0", v4(length=0, raw=0), "BAD_FIELD"),
                ("a negative length", v4(length=-1, raw=-1), "BAD_FIELD"),
                ("none with another raw length", v4(raw=6), "BAD_FIELD"),
                ("a negative raw length", v4(codec=4, raw=-1), "BAD_FIELD"),
                ("a byte past the body", v4(body_extra=b"\0"), "BAD_FIELD"),
                ("a version-2 body under version 4",
                 bytes.fromhex(VECTORS["refs"][1]["hex"]), None),
                ("version 6", v4(version=6), "UNKNOWN_VERSION")]:
            with self.subTest(name):
                if reason is None:  # re-frame a v2 body under version 4
                    head = data[:4] + b"\x04" + data[5:-4]
                    data, reason = head + struct.pack(">I", zlib.crc32(head)), "BAD_FIELD"
                with self.assertRaises(cc.MalformedRef) as caught:
                    cc.decode_ref(data)
                self.assertEqual(caught.exception.reason, reason)
                self.assertTrue(cc.is_ref(data), "an intact frame is a ref, readable or not")

    def test_every_non_ref_vector_gets_its_verdict_and_reason(self):
        self.assertGreater(len(VECTORS["non_refs"]), 10)
        for v in VECTORS["non_refs"]:
            with self.subTest(v["name"]):
                data = bytes.fromhex(v["hex"])
                with self.assertRaises(cc.MalformedRef) as caught:
                    cc.decode_ref(data)
                self.assertEqual(caught.exception.reason, v["error"])
                self.assertEqual(caught.exception.needs_newer_reader, v["needs_newer_reader"])
                self.assertEqual(cc.is_ref(data), v["unmarked"] == "ref")
                self.assertEqual(cc.is_ref(data, marked=True), v["marked"] == "ref")
                marked = [("other", b"x"), (cc.VALUE_MARKER, b"1")]
                if v["marked"] == "inline":
                    self.assertIsNone(cc.ref_from_record(data, marked))
                else:
                    with self.assertRaises(cc.MalformedRef):
                        cc.ref_from_record(data, marked)
                if v["unmarked"] == "inline":
                    self.assertIsNone(cc.ref_from_record(data, None))
                    self.assertIsNone(cc.ref_from_record(data, [(cc.KEY_MARKER, b"1")]))

    def test_every_fuzz_vector_gets_the_java_answer(self):
        self.assertGreater(len(VECTORS["fuzz"]), 100)
        for v in VECTORS["fuzz"]:
            with self.subTest(v["hex"]):
                data = bytes.fromhex(v["hex"])
                self.assertEqual(cc.is_ref(data), v["unmarked"] == "ref")
                if v["error"] is not None:
                    with self.assertRaises(cc.MalformedRef) as caught:
                        cc.decode_ref(data)
                    self.assertEqual(caught.exception.reason, v["error"])
                    continue
                r, e = cc.decode_ref(data), v["ref"]
                self.assertEqual(r.encrypted, e["version"] == 3)
                self.assertEqual(
                    (r.version, r.tenant, r.pack_id, r.index, r.offset, r.length, r.checksum,
                     r.codec, r.uncompressed_length),
                    (e["version"], e["tenant"], e["pack_id"], e["index"], int(e["offset"]),
                     e["length"], e["checksum"], e["codec"], e["uncompressed_length"]))

    def test_a_value_marker_does_not_mark_the_key(self):
        inline = b"\x00\xf7\xac\x6b not a ref"
        self.assertIsNone(cc.ref_from_record(inline, [(cc.VALUE_MARKER, b"1")], is_key=True))
        with self.assertRaises(cc.MalformedRef):
            cc.ref_from_record(inline, [(cc.KEY_MARKER, b"1")], is_key=True)
        self.assertIsNone(cc.ref_from_record(None, [(cc.VALUE_MARKER, b"1")]))
        with self.assertRaises(cc.MalformedRef):  # a marker with a null value is a marker
            cc.ref_from_record(inline, [(cc.VALUE_MARKER, None)])

    def test_checksums_match_the_java_ones(self):
        for v in VECTORS["checksums"]:
            data = bytes.fromhex(v["data_hex"])
            self.assertEqual(cc.crc32c(data), v["crc32c"])
            self.assertEqual(zlib.crc32(data), v["crc32"])
        self.assertEqual(cc.crc32c(b"6789", cc.crc32c(b"12345")), cc.crc32c(b"123456789"))

    def test_the_pack_vector_has_the_documented_layout(self):
        pack = bytes.fromhex(PACK["pack_hex"])
        magic, version, count, index_length, pack_length, crc = struct.unpack(
            ">4sBiiqI", pack[:25])
        self.assertEqual(magic, b"AKPK")
        h = PACK["header"]
        self.assertEqual((version, count, index_length, pack_length, crc),
                         (h["version"], h["entry_count"], h["index_length"], h["pack_length"],
                          h["crc32"]))
        self.assertEqual(len(pack), pack_length)
        self.assertEqual(index_length, 17 * count)
        self.assertEqual(zlib.crc32(pack[:21] + pack[25:25 + index_length]), crc)
        for i, c in enumerate(PACK["claims"]):
            offset, length, checksum, codec_id = struct.unpack(
                ">qiIB", pack[25 + 17 * i:25 + 17 * (i + 1)])
            self.assertEqual((offset, length, checksum, cc.CODECS[codec_id]),
                             (c["offset"], c["length"], c["checksum"], c["codec"]))
            stored = pack[offset:offset + length]
            self.assertEqual(cc.crc32c(stored), checksum, "the checksum covers the stored bytes")
            r = cc.decode_ref(bytes.fromhex(c["ref_hex"]))
            self.assertEqual((r.tenant, r.pack_id, r.index, r.offset, r.length, r.checksum,
                              r.codec), (PACK["tenant"], PACK["pack_id"], i, offset, length,
                                         checksum, c["codec"]))
            self.assertEqual(r.uncompressed_length, len(PAYLOAD))
            if c["codec"] == "none":
                self.assertEqual(stored, PAYLOAD)
            if c["codec"] == "gzip":
                self.assertEqual(gzip.decompress(stored), PAYLOAD)
                self.assertNotEqual(cc.crc32c(PAYLOAD), checksum)


class FakeTime:
    """The client's clock and sleep: sleeping advances the clock, nothing waits."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []

    def clock(self):
        return self.now

    def sleep(self, s):
        self.sleeps.append(s)
        self.now += s


class Stub:
    """A scripted gateway on 127.0.0.1: answers each request with the next scripted answer (the
    last one repeats) and records what it was asked."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else b""
                stub.requests.append((self.command, self.path, dict(self.headers), body))
                status, headers, payload = (stub.answers.pop(0) if len(stub.answers) > 1
                                            else stub.answers[0])
                self.send_response(status)
                for k, v in headers.items():
                    if k != "X-Abort-After":
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if "X-Abort-After" in headers:  # as the gateway aborts a claim failing its end
                    self.wfile.write(payload[:int(headers["X-Abort-After"])])
                    self.close_connection = True
                else:
                    self.wfile.write(payload)

            do_GET = do_POST = answer

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def problem(status, reason):
    body = json.dumps({"type": "about:blank", "title": reason, "status": status,
                       "reason": reason, "tenant": "acme"}).encode()
    return status, {"Content-Type": "application/problem+json"}, body


OK = (200, {"ETag": '"%08x"' % cc.decode_ref(PLAIN_REF).checksum}, PAYLOAD)
BUSY = (503, {"Retry-After": "2"}, b"")


class GatewayClientTest(unittest.TestCase):

    def client(self, *answers, token="s3cret"):
        self.stub = Stub(*answers)
        self.addCleanup(self.stub.close)
        self.time = FakeTime()
        return cc.GatewayClient(self.stub.url, token, clock=self.time.clock,
                                sleep=self.time.sleep)

    def test_200_returns_the_verified_claim(self):
        c = self.client(OK)
        self.assertEqual(c.redeem(PLAIN_REF, deadline_s=5), PAYLOAD)
        method, path, headers, _ = self.stub.requests[0]
        self.assertEqual((method, path), ("GET", "/v1/claims/" + cc.ref_to_base64url(PLAIN_REF)))
        self.assertEqual(headers["Authorization"], "Bearer s3cret")
        self.assertEqual(headers["X-Claimcheck-Deadline-Ms"], "5000")
        self.assertNotIn("=", path)

    def test_503_with_retry_after_is_retried_after_that_many_seconds(self):
        c = self.client(BUSY, BUSY, OK)
        self.assertEqual(c.redeem(PLAIN_REF, deadline_s=30), PAYLOAD)
        self.assertEqual(self.time.sleeps, [2.0, 2.0])
        self.assertEqual(len(self.stub.requests), 3)
        self.assertEqual(self.stub.requests[2][2]["X-Claimcheck-Deadline-Ms"], "26000")

    def test_503_until_the_deadline_is_unavailable(self):
        c = self.client(BUSY)
        with self.assertRaises(cc.Unavailable) as caught:
            c.redeem(PLAIN_REF, deadline_s=5)
        self.assertEqual(caught.exception.status, 503)
        self.assertEqual(len(self.stub.requests), 3)  # at 0, 2 and 4 s; 6 s is past the deadline
        self.assertLessEqual(sum(self.time.sleeps), 5)

    def test_a_retry_after_past_the_deadline_answers_at_once(self):
        c = self.client((503, {"Retry-After": "60"}, b""))
        with self.assertRaises(cc.Unavailable):
            c.redeem(PLAIN_REF, deadline_s=5)
        self.assertEqual(self.time.sleeps, [])

    def test_404_is_not_found(self):
        c = self.client(problem(404, "NOT_FOUND"))
        with self.assertRaises(cc.NotFound) as caught:
            c.redeem(PLAIN_REF)
        self.assertEqual(caught.exception.problem["tenant"], "acme")
        self.assertEqual(len(self.stub.requests), 1)

    def test_403_401_and_400_are_refused_without_a_retry(self):
        for status in (403, 401, 400):
            with self.subTest(status):
                c = self.client(problem(status, "REFUSED"))
                with self.assertRaises(cc.Refused) as caught:
                    c.redeem(PLAIN_REF)
                self.assertEqual(caught.exception.status, status)
                self.assertEqual(len(self.stub.requests), 1)

    def test_413_is_too_large(self):
        c = self.client(problem(413, "REFUSED"))
        with self.assertRaises(cc.TooLarge):
            c.redeem(PLAIN_REF)

    def test_a_body_that_fails_its_checksum_twice_is_corrupt(self):
        damaged = bytearray(PAYLOAD)
        damaged[7] ^= 1
        c = self.client((200, {}, bytes(damaged)))
        with self.assertRaises(cc.Corrupt):
            c.redeem(PLAIN_REF)
        self.assertEqual(len(self.stub.requests), 2)

    def test_a_body_that_fails_once_is_fetched_again(self):
        c = self.client((200, {}, PAYLOAD[:-1] + b"?"), OK)
        self.assertEqual(c.redeem(PLAIN_REF), PAYLOAD)

    def test_a_transfer_aborted_mid_body_is_retried_and_never_returned(self):
        c = self.client((200, {"X-Abort-After": "100"}, PAYLOAD), OK)
        self.assertEqual(c.redeem(PLAIN_REF), PAYLOAD)
        self.assertEqual(len(self.stub.requests), 2)
        c = self.client((200, {"X-Abort-After": "100"}, PAYLOAD))
        with self.assertRaises(cc.Unavailable):
            c.redeem(PLAIN_REF, deadline_s=2)

    def test_an_etag_naming_another_checksum_is_corrupt(self):
        c = self.client((200, {"ETag": '"00000000"'}, PAYLOAD))
        with self.assertRaises(cc.Corrupt):
            c.redeem(PLAIN_REF)

    def test_a_compressed_claim_is_checked_by_its_uncompressed_length(self):
        c = self.client((200, {}, PAYLOAD))
        self.assertEqual(c.redeem(GZIP_REF), PAYLOAD)
        c = self.client((200, {}, PAYLOAD + b"!"))
        with self.assertRaises(cc.Corrupt):
            c.redeem(GZIP_REF)

    def test_a_5xx_that_says_corrupt_is_final_and_another_is_retried(self):
        c = self.client(problem(500, "CORRUPT"))
        with self.assertRaises(cc.Corrupt):
            c.redeem(PLAIN_REF)
        self.assertEqual(len(self.stub.requests), 1)
        c = self.client((502, {}, b"bad gateway"), OK)
        self.assertEqual(c.redeem(PLAIN_REF), PAYLOAD)

    def test_a_gateway_that_does_not_answer_is_unavailable(self):
        c = self.client(OK)
        self.stub.close()
        with self.assertRaises(cc.Unavailable):
            c.redeem(PLAIN_REF, deadline_s=1)
        self.assertTrue(self.time.sleeps)

    def test_bytes_that_are_no_ref_are_refused_before_any_request(self):
        c = self.client(OK)
        with self.assertRaises(cc.MalformedRef):
            c.redeem(b"not a ref")
        self.assertEqual(self.stub.requests, [])

    def test_post_checks_in_and_returns_the_raw_ref(self):
        c = self.client((201, {"Location": "/v1/claims/" + cc.ref_to_base64url(PLAIN_REF)},
                         PLAIN_REF))
        self.assertEqual(c.check_in(PAYLOAD), PLAIN_REF)
        method, path, headers, body = self.stub.requests[0]
        self.assertEqual((method, path, body), ("POST", "/v1/claims", PAYLOAD))
        self.assertEqual(headers["Accept"], "application/octet-stream")
        self.assertEqual(headers["Authorization"], "Bearer s3cret")

    def test_post_with_compression_and_a_base64url_answer(self):
        c = self.client(BUSY, (201, {}, cc.ref_to_base64url(GZIP_REF).encode()))
        self.assertEqual(c.check_in(PAYLOAD, compression="gzip"), GZIP_REF)
        self.assertEqual(self.stub.requests[1][1], "/v1/claims?compression=gzip")
        self.assertEqual(self.time.sleeps, [2.0])

    def test_post_answered_with_a_ref_to_other_bytes_is_corrupt(self):
        c = self.client((201, {}, PLAIN_REF))
        with self.assertRaises(cc.Corrupt):
            c.check_in(PAYLOAD[:-1] + b"?")

    def test_post_refused(self):
        c = self.client(problem(403, "REFUSED"))
        with self.assertRaises(cc.Refused):
            c.check_in(PAYLOAD)

    def test_an_encrypted_claim_is_not_checked_against_its_envelopes_checksum(self):
        plain = bytes(range(256)) * 3 + bytes(232)  # the decrypted claim: 1000 bytes
        self.assertEqual(len(plain), ENCRYPTED["uncompressed_length"])
        etag = {"ETag": '"%08x"' % ENCRYPTED["checksum"]}  # the gateway's: the ref's checksum
        c = self.client((200, etag, plain))
        self.assertEqual(c.redeem(ENCRYPTED_REF), plain)
        self.assertEqual(len(self.stub.requests), 1)
        c = self.client((200, etag, plain + b"!"))
        with self.assertRaises(cc.Corrupt):
            c.redeem(ENCRYPTED_REF)

    def test_post_answered_with_an_encrypted_ref_checks_its_uncompressed_length(self):
        c = self.client((201, {}, ENCRYPTED_REF))
        self.assertEqual(c.check_in(bytes(1000)), ENCRYPTED_REF)
        c = self.client((201, {}, ENCRYPTED_REF))
        with self.assertRaises(cc.Corrupt):
            c.check_in(bytes(1137))  # the envelope's length is not the claim's

    def test_a_streamed_claim_is_checked_by_length_and_crc32c(self):
        ref = v4(length=len(PAYLOAD), raw=len(PAYLOAD), checksum=cc.crc32c(PAYLOAD))
        c = self.client((200, {"ETag": '"%08x"' % cc.crc32c(PAYLOAD)}, PAYLOAD))
        self.assertEqual(c.redeem(ref), PAYLOAD)
        c = self.client((200, {}, PAYLOAD[:-1] + b"?"))
        with self.assertRaises(cc.Corrupt):
            c.redeem(ref)
        c = self.client((201, {}, ref))
        self.assertEqual(c.check_in(PAYLOAD), ref)
        c = self.client((201, {}, ref))
        with self.assertRaises(cc.Corrupt):
            c.check_in(PAYLOAD[:-1] + b"?")
        zstd = v4(length=100, codec=4, raw=len(PAYLOAD), checksum=7)
        c = self.client((200, {"ETag": '"00000007"'}, PAYLOAD))
        self.assertEqual(c.redeem(zstd), PAYLOAD)
        c = self.client((200, {"ETag": '"00000007"'}, PAYLOAD[:-1]))
        with self.assertRaises(cc.Corrupt):
            c.redeem(zstd)

    def test_describe_returns_the_gateway_json(self):
        answer = {"tenant": "acme", "pack": PACK["pack_id"], "index": 0, "version": 1}
        c = self.client((200, {"Content-Type": "application/json"}, json.dumps(answer).encode()))
        self.assertEqual(c.describe(PLAIN_REF), answer)
        self.assertEqual(self.stub.requests[0][1], "/v1/refs/" + cc.ref_to_base64url(PLAIN_REF))


if __name__ == "__main__":
    unittest.main()
