"""Ankusa claim check for Python: decode refs, redeem and check in claims through the gateway.

Standard library only (Python 3.9+). The wire format is docs/wire-format.md; the HTTP API is
docs/gateway.md. Every function here is thread-safe; a GatewayClient may be shared by threads.
"""

from __future__ import annotations

import base64
import binascii
import email.utils
import http.client
import json
import re
import struct
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

__all__ = [
    "MAGIC", "CODECS", "ENCRYPTED_VERSION", "STREAMED_VERSION", "VALUE_MARKER", "KEY_MARKER", "Ref", "MalformedRef", "is_ref",
    "decode_ref", "ref_from_record", "ref_to_base64url", "ref_from_base64url", "crc32c",
    "pack_key", "GatewayClient", "ClaimCheckError", "NotFound", "Refused", "TooLarge",
    "Unavailable", "Corrupt",
]

MAGIC = b"\x00\xf7\xac\x6b"
"""The 4 bytes every ref starts with."""

VALUE_MARKER = "ankusa.claimcheck.value"
"""The header marking a record whose value is a ref (its value: the ref version, one digit)."""

KEY_MARKER = "ankusa.claimcheck.key"
"""The header marking a record whose key is a ref."""

CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
"""Codec ids as written in refs and packs, named as Kafka's compression.type names them."""

_FRAME_HEAD = 6  # magic, version, body length
_FRAME_TAIL = 4  # CRC32 of everything before it
_MIN_LENGTH = _FRAME_HEAD + _FRAME_TAIL
_MAX_LENGTH = _FRAME_HEAD + 255 + _FRAME_TAIL
_V1_FIXED = 1 + 8 + 2 + 8 + 4 + 4 + 1  # the body's bytes besides the tenant
_V4_FIXED = 1 + 8 + 8 + 4 + 1 + 8  # a streamed claim's body besides the tenant
_TENANT_MAX = 40
_TENANT_CHARS = re.compile(r"[a-z0-9._-]+\Z")
ENCRYPTED_VERSION = 3
"""The ref version of an encrypted claim: version 2's body; the stored bytes are an envelope."""
STREAMED_VERSION = 4
"""The ref version of a streamed claim: the whole object is its stored bytes, 64-bit lengths."""
STREAMED_ENCRYPTED_VERSION = 5
"""The ref version of an encrypted streamed claim: version 4's body; the object is an envelope."""
_KNOWN_VERSIONS = (1, 2, ENCRYPTED_VERSION, STREAMED_VERSION, STREAMED_ENCRYPTED_VERSION)
_STREAMED_VERSIONS = (STREAMED_VERSION, STREAMED_ENCRYPTED_VERSION)
_ENCRYPTED_VERSIONS = (ENCRYPTED_VERSION, STREAMED_ENCRYPTED_VERSION)


class MalformedRef(ValueError):
    """The bytes are not a ref this module can read; reason is one of RefCodec's Reason names:
    BAD_MAGIC, TRUNCATED, TRAILING_BYTES, BAD_CRC, UNKNOWN_VERSION, UNKNOWN_CODEC, BAD_FIELD."""

    def __init__(self, reason: str, message: str):
        super().__init__(reason + ": " + message)
        self.reason = reason

    @property
    def needs_newer_reader(self) -> bool:
        """A newer reader would read it (an unknown version or codec): retry after an upgrade,
        never skip the record."""
        return self.reason in ("UNKNOWN_VERSION", "UNKNOWN_CODEC")


@dataclass(frozen=True)
class Ref:
    """A decoded ref: the claim's tenant, pack and index, and where and how its stored bytes lie.

    checksum is the CRC32C of the *stored* bytes (compressed when codec is not "none"; the
    encrypted envelope's for a version-3 or -5 ref) and length their count; uncompressed_length
    is None for a version-1 ref of a compressed claim. A version-4 or -5 (streamed) ref's index
    and offset are 0 and its lengths may pass 2 GiB.
    """

    version: int
    tenant: str
    pack_id: str
    index: int
    offset: int
    length: int
    checksum: int
    codec: str
    uncompressed_length: Optional[int]

    @property
    def encrypted(self) -> bool:
        """Whether the stored bytes are an encrypted envelope (version 3 or 5): the gateway
        decrypts; length and checksum are the envelope's, not the served claim's."""
        return self.version in _ENCRYPTED_VERSIONS

    @property
    def streamed(self) -> bool:
        """Whether this is a streamed claim (version 4 or 5): its object holds its stored bytes
        alone."""
        return self.version in _STREAMED_VERSIONS

    def key(self, layout: str = "flat") -> str:
        """The pack's object key in a store (relative to the store's prefix)."""
        return pack_key(self.tenant, self.pack_id, layout)


def crc32c(data: bytes, crc: int = 0) -> int:
    """The CRC32C (Castagnoli) of data, continuing from crc; pure Python (a few MB/s)."""
    table = _CRC32C_TABLE
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _crc32c_table() -> List[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C_TABLE = _crc32c_table()


def _intact_frame(value: bytes) -> bool:
    return (_MIN_LENGTH <= len(value) <= _MAX_LENGTH
            and value[:4] == MAGIC
            and len(value) == _FRAME_HEAD + value[5] + _FRAME_TAIL
            and struct.unpack(">I", value[-4:])[0] == zlib.crc32(value[:-4]))


def is_ref(value: Optional[bytes], marked: bool = False) -> bool:
    """Whether a record field carries a ref; marked: its record has the field's marker header.

    Unmarked, only an intact ref frame (magic, declared length, CRC32) is a ref. Marked, a field
    that starts with the magic is a ref (decode_ref then refuses a damaged one); a marked field
    that does not start with the magic is inline (a stale marker, as Kafka Streams leaves).
    """
    if value is None:
        return False
    value = bytes(value)
    if marked:
        return value[:4] == MAGIC
    return _intact_frame(value)


def decode_ref(data: bytes) -> Ref:
    """Decodes a ref; raises MalformedRef with the same reason the Java library gives."""
    data = bytes(data)
    if len(data) >= 4 and data[:4] != MAGIC:
        raise MalformedRef("BAD_MAGIC", "bytes do not start with the ref magic")
    if len(data) < _MIN_LENGTH:
        raise MalformedRef("TRUNCATED", "%d bytes, shorter than any ref" % len(data))
    declared = _FRAME_HEAD + data[5] + _FRAME_TAIL
    if len(data) < declared:
        raise MalformedRef("TRUNCATED", "%d bytes, but the ref declares %d" % (len(data), declared))
    if len(data) > declared:
        raise MalformedRef("TRAILING_BYTES",
                           "%d bytes, but the ref declares %d" % (len(data), declared))
    if struct.unpack(">I", data[-4:])[0] != zlib.crc32(data[:-4]):
        raise MalformedRef("BAD_CRC", "CRC32 mismatch: the ref is damaged")
    version = data[4]
    if version not in _KNOWN_VERSIONS:
        raise MalformedRef("UNKNOWN_VERSION", "ref version %d is unknown: upgrade the reader"
                           % version)
    return _body(version, data[_FRAME_HEAD:-_FRAME_TAIL])


def _body(version: int, body: bytes) -> Ref:
    """Reads a body as RefV1 / RefV2 (v2, v3) / RefV4 (v4, v5) do: size, codec, then the fields."""
    fixed, extra = (_V4_FIXED, 0) if version in _STREAMED_VERSIONS else (
        _V1_FIXED, 0 if version == 1 else 4)
    if len(body) < fixed + 1 + extra:
        raise _bad(version, "body of %d bytes is shorter than any body" % len(body))
    t = body[0]
    if len(body) != fixed + t + extra:
        raise _bad(version, "body of %d bytes does not fit a tenant of %d" % (len(body), t))
    tenant = body[1:1 + t].decode("latin-1")
    if version in _STREAMED_VERSIONS:
        pack, length, checksum, codec_id, raw = struct.unpack(">QqIBq", body[1 + t:])
        index, offset = 0, 0
    else:
        pack, index, offset, length, checksum, codec_id = struct.unpack(
            ">QHqiIB", body[1 + t:1 + t + 27])
        raw = struct.unpack(">i", body[-4:])[0] if extra else None
    if codec_id not in CODECS:
        raise MalformedRef("UNKNOWN_CODEC", "codec id %d is unknown: upgrade the reader"
                           % codec_id)
    codec = CODECS[codec_id]
    problem = _tenant_problem(tenant)
    if problem:
        raise _bad(version, "invalid tenant: " + problem)
    if offset < 0:
        raise _bad(version, "offset %d is negative" % offset)
    if length < 1:
        raise _bad(version, "length %d is not positive" % length)
    if offset > 2 ** 63 - 1 - length:
        raise _bad(version, "offset + length overflows")
    if version == 1:
        raw = length if codec == "none" else None
    elif codec == "none" and version not in _ENCRYPTED_VERSIONS and raw != length:
        # an envelope's length is not its claim's: versions 3 and 5 record both, at any codec
        raise _bad(version, "uncompressed length %d differs from the length %d of an"
                            " uncompressed claim" % (raw, length))
    elif raw < 0:
        raise _bad(version, "uncompressed length %d is negative" % raw)
    return Ref(version, tenant, "%016x" % pack, index, offset, length, checksum, codec, raw)


def _tenant_problem(t: str) -> Optional[str]:
    if not t or len(t) > _TENANT_MAX or not _TENANT_CHARS.match(t):
        return "not 1..40 characters of [a-z0-9._-]"
    if t[0] in ".-" or ".." in t:
        return "starts with '.' or '-', or contains '..'"
    return None


def _bad(version: int, message: str) -> MalformedRef:
    return MalformedRef("BAD_FIELD", "version-%d ref: %s" % (version, message))


Headers = Optional[Sequence[Tuple[str, Optional[bytes]]]]


def ref_from_record(value: Optional[bytes], headers: Headers, is_key: bool = False
                    ) -> Optional[Ref]:
    """The ref a record's value (or key) carries, or None when it is inline.

    headers as confluent-kafka gives them: a list of (name, bytes) tuples, or None. Raises
    MalformedRef when the field carries a ref that does not decode (needs_newer_reader tells an
    old reader from a damaged ref).
    """
    marker = KEY_MARKER if is_key else VALUE_MARKER
    marked = any(name == marker for name, _ in (headers or ()))
    if not is_ref(value, marked):
        return None
    return decode_ref(value)


def ref_to_base64url(ref_bytes: bytes) -> str:
    """The ref as the gateway's paths carry it: base64url without padding."""
    return base64.urlsafe_b64encode(bytes(ref_bytes)).rstrip(b"=").decode("ascii")


def ref_from_base64url(text: str) -> bytes:
    """The ref bytes of a base64url string (padding optional)."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def pack_key(tenant: str, pack_id: str, layout: str = "flat") -> str:
    """A pack's key: flat <tenant>/<pack id>, or sharded <tenant>/<first 2 hex>/<pack id>."""
    if layout == "flat":
        return "%s/%s" % (tenant, pack_id)
    if layout == "sharded":
        return "%s/%s/%s" % (tenant, pack_id[:2], pack_id)
    raise ValueError("layout must be flat or sharded, not %r" % (layout,))


# ---------------------------------------------------------------------------------------------
# The gateway client.

class ClaimCheckError(Exception):
    """A redeem or check-in that did not succeed; status is the last HTTP status (or None) and
    problem the RFC 9457 body as a dict (or None)."""

    def __init__(self, message: str, status: Optional[int] = None,
                 problem: Optional[dict] = None):
        super().__init__(message)
        self.status = status
        self.problem = problem


class NotFound(ClaimCheckError):
    """404: every store answered and none holds the claim (final)."""


class Refused(ClaimCheckError):
    """400, 401, 403 (or another 4xx): a malformed ref, no or a bad token, a tenant the token
    may not use (final until the request changes)."""


class TooLarge(ClaimCheckError):
    """413: past the gateway's read or write limit (final)."""


class Unavailable(ClaimCheckError):
    """No answer within the deadline (503s, a gateway down, broken transfers): retriable."""


class Corrupt(ClaimCheckError):
    """The claim's bytes do not verify: the gateway said CORRUPT, or the body it returned twice
    does not match the ref (final)."""


_ETAG = re.compile(r'\A"([0-9a-fA-F]{8})"\Z')
_RETRIABLE = (408, 425, 429, 503)


class _Retry(Exception):
    def __init__(self, message: str, status: Optional[int], wait: Optional[float]):
        super().__init__(message)
        self.status = status
        self.wait = wait


class GatewayClient:
    """A client of the claim gateway over urllib; thread-safe (it keeps no per-request state).

    base_url is http[s]://host:port; token a bearer token of the tenant (or None). Every call
    takes a deadline in seconds: 503 + Retry-After, broken transfers and other retriable answers
    are retried until it passes, then Unavailable is raised. clock and sleep are for tests.
    """

    def __init__(self, base_url: str, token: Optional[str], ssl_context=None, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self._base = base_url.rstrip("/")
        self._token = token
        handlers = [urllib.request.HTTPSHandler(context=ssl_context)] if ssl_context else []
        self._opener = urllib.request.build_opener(*handlers)
        self._clock = clock
        self._sleep = sleep

    def redeem(self, ref_bytes: bytes, deadline_s: float = 30) -> bytes:
        """The claim's (uncompressed) bytes, verified against the ref as far as it allows.

        An uncompressed claim is checked by length and CRC32C; a compressed or encrypted one
        (version 3) by the uncompressed length its ref records (the ref's CRC32C covers the
        stored bytes, compressed or the envelope, which the gateway verified before inflating or
        decrypting them). A streamed claim (version 4) is checked the same way. A body that does not
        verify is fetched once more; a second mismatch raises Corrupt. Raises MalformedRef before
        any request for bytes that are no ref; a ref of a newer version than this module reads
        is sent as it is, and its answer is checked only by the gateway.
        """
        try:
            ref = decode_ref(ref_bytes)
        except MalformedRef as e:
            if not e.needs_newer_reader:
                raise
            ref = None
        path = "/v1/claims/" + ref_to_base64url(ref_bytes)
        mismatches = []

        def attempt(status, headers, body):
            if status != 200:
                return None
            problem = None if ref is None else _mismatch(ref, headers, body)
            if problem is None:
                return body
            mismatches.append(problem)
            if len(mismatches) >= 2:
                raise Corrupt("claim %s/%s#%d: %s (read twice)"
                              % (ref.tenant, ref.pack_id, ref.index, problem), status)
            raise _Retry(problem, status, 0.0)

        return self._call("GET", path, None, {"Accept": "application/octet-stream"},
                          deadline_s, attempt)

    def check_in(self, payload: bytes, compression: Optional[str] = None,
                 deadline_s: float = 30) -> bytes:
        """Checks payload in and returns the raw ref bytes, once a store durably holds it."""
        payload = bytes(payload)
        if not payload:
            raise ValueError("an empty payload is never checked in")
        path = "/v1/claims"
        if compression is not None:
            if compression not in CODECS.values():
                raise ValueError("compression must be one of %s" % sorted(CODECS.values()))
            path += "?" + urllib.parse.urlencode({"compression": compression})

        def attempt(status, headers, body):
            if status not in (200, 201):
                return None
            raw = body if is_ref(body) else _maybe_base64url(body)
            try:
                ref = decode_ref(raw)
            except MalformedRef as e:
                if e.needs_newer_reader:
                    return raw  # a newer gateway's ref: this module cannot check it
                raise Corrupt("the gateway answered %d without a readable ref: %s"
                              % (status, e), status) from e
            expected = ref.length if _served_as_stored(ref) else ref.uncompressed_length
            if expected is not None and expected != len(payload):
                raise Corrupt("the gateway's ref names %d bytes, %d were sent"
                              % (expected, len(payload)), status)
            if _served_as_stored(ref) and ref.checksum != crc32c(payload):
                raise Corrupt("the gateway's ref names another CRC32C than the payload's", status)
            return raw

        return self._call("POST", path, payload,
                          {"Accept": "application/octet-stream",
                           "Content-Type": "application/octet-stream"}, deadline_s, attempt)

    def describe(self, ref_bytes: bytes, deadline_s: float = 30) -> dict:
        """What the gateway reads in a ref (GET /v1/refs/{ref}), as a dict."""
        path = "/v1/refs/" + ref_to_base64url(ref_bytes)

        def attempt(status, headers, body):
            return json.loads(body.decode("utf-8")) if status == 200 else None

        return self._call("GET", path, None, {"Accept": "application/json"}, deadline_s, attempt)

    # -- the retry loop ---------------------------------------------------------------------

    def _call(self, method, path, body, headers, deadline_s, on_answer):
        deadline = self._clock() + deadline_s
        tries = 0
        last = "no attempt made"
        status = None
        while True:
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise Unavailable("%s %s: no answer within the deadline: %s"
                                  % (method, _safe(path), last), status)
            tries += 1
            try:
                status, answer_headers, answer = self._send(method, path, body, headers, remaining)
                result = on_answer(status, answer_headers, answer)
                if result is not None:
                    return result
                _raise_final(method, path, status, answer_headers, answer)
                wait = None  # a retriable status
                last = "HTTP %d" % status
                ra = answer_headers.get("Retry-After")
                if ra is not None:
                    wait = _retry_after(ra)
            except _Retry as r:
                last, status, wait = str(r), r.status or status, r.wait
            except (urllib.error.URLError, http.client.HTTPException, OSError) as e:
                last, wait = "%s: %s" % (type(e).__name__, e), None
            if wait is None:
                wait = min(1.0, 0.05 * 2 ** (tries - 1))
            if self._clock() + wait >= deadline:
                raise Unavailable("%s %s: %s; the deadline passes before a retry"
                                  % (method, _safe(path), last), status)
            if wait > 0:
                self._sleep(wait)

    def _send(self, method, path, body, headers, timeout):
        h = dict(headers)
        if self._token is not None:
            h["Authorization"] = "Bearer " + self._token
        h["X-Claimcheck-Deadline-Ms"] = str(max(1, int(timeout * 1000)))
        req = urllib.request.Request(self._base + path, data=body, method=method, headers=h)
        try:
            with self._opener.open(req, timeout=timeout) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            try:
                return e.code, e.headers, e.read()
            finally:
                e.close()


def _raise_final(method, path, status, headers, body):
    """Raises the final error status names; returns for a retriable one."""
    problem = _problem(headers, body)
    what = "%s %s: HTTP %d%s" % (method, _safe(path), status,
                                 (": " + str(problem.get("detail") or problem.get("title")))
                                 if problem else "")
    if status == 404:
        raise NotFound(what, status, problem)
    if status == 413:
        raise TooLarge(what, status, problem)
    if status in _RETRIABLE:
        return
    if 400 <= status < 500:
        raise Refused(what, status, problem)
    if status >= 500:
        if problem and _says_corrupt(problem):
            raise Corrupt(what, status, problem)
        return  # a proxy's 502/504 or a crash: not certain, so retriable
    raise Refused(what + " (unexpected)", status, problem)


def _says_corrupt(problem: dict) -> bool:
    reason = str(problem.get("reason", "")).upper()
    kind = str(problem.get("type", "")).lower()
    return reason == "CORRUPT" or kind.rstrip("/").endswith("corrupt")


def _problem(headers, body) -> Optional[dict]:
    ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if ctype not in ("application/problem+json", "application/json"):
        return None
    try:
        p = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return p if isinstance(p, dict) else None


def _served_as_stored(ref: Ref) -> bool:
    """Whether the gateway serves the stored bytes themselves, so the ref's length and CRC32C
    describe the body: codec none and not encrypted (a version-3 ref's describe the envelope)."""
    return ref.codec == "none" and not ref.encrypted


def _mismatch(ref: Ref, headers, body: bytes) -> Optional[str]:
    """Why body is not ref's claim, or None when it verifies as far as the ref allows."""
    etag = _ETAG.match((headers.get("ETag") or "").strip())
    if etag and int(etag.group(1), 16) != ref.checksum:
        return "the ETag names checksum %s, the ref %08x" % (etag.group(1), ref.checksum)
    if _served_as_stored(ref):
        if len(body) != ref.length:
            return "%d bytes returned, the ref names %d" % (len(body), ref.length)
        if crc32c(body) != ref.checksum:
            return "CRC32C mismatch"
    elif ref.uncompressed_length is not None and len(body) != ref.uncompressed_length:
        return "%d bytes returned, the ref names %d uncompressed" % (
            len(body), ref.uncompressed_length)
    return None


def _retry_after(value: str) -> Optional[float]:
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _maybe_base64url(body: bytes) -> bytes:
    try:
        return ref_from_base64url(body.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError, binascii.Error):
        return body


def _safe(path: str) -> str:
    """The path for messages: a ref is no secret, but keep messages one short line."""
    return path if len(path) <= 200 else path[:200] + "..."
