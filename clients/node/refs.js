// Refs: detect and decode the claim-check ref a Kafka record carries (docs/wire-format.md).
// Pure functions, no state.

export const MAGIC = Uint8Array.of(0x00, 0xf7, 0xac, 0x6b);
/** The header marking a record whose value is a ref (its value: the ref version, one digit). */
export const VALUE_MARKER = 'ankusa.claimcheck.value';
/** The header marking a record whose key is a ref. */
export const KEY_MARKER = 'ankusa.claimcheck.key';
/** Codec ids as written in refs and packs, named as Kafka's compression.type names them. */
export const CODECS = Object.freeze(['none', 'gzip', 'snappy', 'lz4', 'zstd']);

const FRAME_HEAD = 6; // magic, version, body length
const FRAME_TAIL = 4; // CRC32 of everything before it
const MIN_LENGTH = FRAME_HEAD + FRAME_TAIL;
const MAX_LENGTH = FRAME_HEAD + 255 + FRAME_TAIL;
const V1_FIXED = 1 + 8 + 2 + 8 + 4 + 4 + 1; // the body's bytes besides the tenant
const V4_FIXED = 1 + 8 + 8 + 4 + 1 + 8; // a streamed claim's body besides the tenant
/** The ref version of an encrypted claim: version 2's body; the stored bytes are an envelope. */
export const ENCRYPTED_VERSION = 3;
/** The ref version of a streamed claim: the whole object is its stored bytes, 64-bit lengths. */
export const STREAMED_VERSION = 4;
/** The ref version of an encrypted streamed claim: version 4's body; the object is an envelope. */
export const STREAMED_ENCRYPTED_VERSION = 5;
const KNOWN_VERSIONS = [1, 2, ENCRYPTED_VERSION, STREAMED_VERSION, STREAMED_ENCRYPTED_VERSION];
const INT64_MAX = (1n << 63n) - 1n;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A 64-bit length as a Number when exact (up to 2^53 - 1, 8 PiB), else as a BigInt: never rounded. */
const exact = (big) => (big <= SAFE && big >= -SAFE ? Number(big) : big);

/** Bytes that are not a ref this module can read; reason is one of RefCodec's Reason names. */
export class MalformedRef extends Error {
  constructor(reason, message) {
    super(`${reason}: ${message}`);
    this.name = 'MalformedRef';
    this.reason = reason;
  }

  /** A newer reader would read it (unknown version or codec): never skip the record. */
  get needsNewerReader() {
    return this.reason === 'UNKNOWN_VERSION' || this.reason === 'UNKNOWN_CODEC';
  }
}

function table(poly) {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}
const CRC32_TABLE = table(0xedb88320);
const CRC32C_TABLE = table(0x82f63b78);

function crc(t, data, start) {
  let c = (start ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = t[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The CRC32 (IEEE) of data, as an unsigned number; frames refs and pack headers. */
export const crc32 = (data, start = 0) => crc(CRC32_TABLE, bytes(data), start);
/** The CRC32C (Castagnoli) of data, as an unsigned number; the checksum of a claim. */
export const crc32c = (data, start = 0) => crc(CRC32C_TABLE, bytes(data), start);

function bytes(v) {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return new TextEncoder().encode(v);
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  throw new TypeError('expected bytes (Uint8Array or Buffer)');
}

const startsWithMagic = (b) => b.length >= 4 && MAGIC.every((m, i) => b[i] === m);
const view = (b) => new DataView(b.buffer, b.byteOffset, b.byteLength);

function intactFrame(b) {
  return b.length >= MIN_LENGTH && b.length <= MAX_LENGTH && startsWithMagic(b)
    && b.length === FRAME_HEAD + b[5] + FRAME_TAIL
    && view(b).getUint32(b.length - 4) === crc32(b.subarray(0, b.length - 4));
}

/**
 * Whether a record field carries a ref; marked: its record has the field's marker header.
 * Unmarked, only an intact frame (magic, declared length, CRC32) is a ref. Marked, a field that
 * starts with the magic is a ref (decodeRef refuses a damaged one); a marked field that does not
 * start with the magic is inline (a stale marker, as Kafka Streams leaves).
 */
export function isRef(value, marked = false) {
  if (value === null || value === undefined) return false;
  const b = bytes(value);
  return marked ? startsWithMagic(b) : intactFrame(b);
}

/** Decodes a ref; throws MalformedRef with the reason the Java library gives. */
export function decodeRef(data) {
  const b = bytes(data);
  if (b.length >= 4 && !startsWithMagic(b)) {
    throw new MalformedRef('BAD_MAGIC', 'bytes do not start with the ref magic');
  }
  if (b.length < MIN_LENGTH) {
    throw new MalformedRef('TRUNCATED', `${b.length} bytes, shorter than any ref`);
  }
  const declared = FRAME_HEAD + b[5] + FRAME_TAIL;
  if (b.length < declared) {
    throw new MalformedRef('TRUNCATED', `${b.length} bytes, but the ref declares ${declared}`);
  }
  if (b.length > declared) {
    throw new MalformedRef('TRAILING_BYTES', `${b.length} bytes, but the ref declares ${declared}`);
  }
  if (view(b).getUint32(b.length - 4) !== crc32(b.subarray(0, b.length - 4))) {
    throw new MalformedRef('BAD_CRC', 'CRC32 mismatch: the ref is damaged');
  }
  const version = b[4];
  if (!KNOWN_VERSIONS.includes(version)) {
    throw new MalformedRef('UNKNOWN_VERSION', `ref version ${version} is unknown: upgrade the reader`);
  }
  return body(version, b.subarray(FRAME_HEAD, b.length - FRAME_TAIL));
}

/** Reads a body as RefV1 / RefV2 (v2, v3) / RefV4 (v4, v5) do: size, codec, then the fields. */
function body(version, b) {
  const bad = (m) => new MalformedRef('BAD_FIELD', `version-${version} ref: ${m}`);
  const streamed = version === STREAMED_VERSION || version === STREAMED_ENCRYPTED_VERSION;
  const encrypted = version === ENCRYPTED_VERSION || version === STREAMED_ENCRYPTED_VERSION;
  const fixed = streamed ? V4_FIXED : V1_FIXED;
  const extra = version === 1 || streamed ? 0 : 4;
  if (b.length < fixed + 1 + extra) throw bad(`body of ${b.length} bytes is shorter than any body`);
  const t = b[0];
  if (b.length !== fixed + t + extra) {
    throw bad(`body of ${b.length} bytes does not fit a tenant of ${t}`);
  }
  const tenant = String.fromCharCode(...b.subarray(1, 1 + t)); // latin-1, as Java reads it
  const v = view(b);
  const at = 1 + t;
  const pack = v.getBigUint64(at);
  let index, offset, length, checksum, codecId, raw;
  if (streamed) {
    [index, offset] = [0, 0n];
    length = v.getBigInt64(at + 8);
    checksum = v.getUint32(at + 16);
    codecId = b[at + 20];
    raw = v.getBigInt64(at + 21);
  } else {
    index = v.getUint16(at + 8);
    offset = v.getBigInt64(at + 10);
    length = BigInt(v.getInt32(at + 18));
    checksum = v.getUint32(at + 22);
    codecId = b[at + 26];
    raw = extra ? BigInt(v.getInt32(b.length - 4)) : null;
  }
  if (codecId >= CODECS.length) {
    throw new MalformedRef('UNKNOWN_CODEC', `codec id ${codecId} is unknown: upgrade the reader`);
  }
  const codec = CODECS[codecId];
  const problem = tenantProblem(tenant);
  if (problem) throw bad(`invalid tenant: ${problem}`);
  if (offset < 0n) throw bad(`offset ${offset} is negative`);
  if (length < 1n) throw bad(`length ${length} is not positive`);
  if (offset > INT64_MAX - length) throw bad('offset + length overflows');
  if (version === 1) {
    raw = codec === 'none' ? length : null;
  } else if (codec === 'none' && !encrypted && raw !== length) {
    // an envelope's length is not its claim's: versions 3 and 5 record both, at any codec
    throw bad(`uncompressed length ${raw} differs from the length ${length} of an uncompressed claim`);
  } else if (raw < 0n) {
    throw bad(`uncompressed length ${raw} is negative`);
  }
  return Object.freeze({
    version, tenant, packId: pack.toString(16).padStart(16, '0'), index, offset,
    length: exact(length), checksum, codec, uncompressedLength: raw === null ? null : exact(raw),
    encrypted, streamed,
  });
}

function tenantProblem(t) {
  if (!/^[a-z0-9._-]{1,40}$/.test(t)) return 'not 1..40 characters of [a-z0-9._-]';
  if (t[0] === '.' || t[0] === '-' || t.includes('..')) {
    return "starts with '.' or '-', or contains '..'";
  }
  return null;
}

/**
 * The ref a record's value (or key) carries, or null when it is inline. headers as kafkajs gives
 * them: an object of name → Buffer | string | array of them (or undefined). Throws MalformedRef
 * when the field carries a ref that does not decode.
 */
export function refFromRecord(value, headers, isKey = false) {
  const marker = isKey ? KEY_MARKER : VALUE_MARKER;
  const marked = headers != null && Object.hasOwn(headers, marker); // present, whatever its value
  return isRef(value, marked) ? decodeRef(value) : null;
}

/** The ref as the gateway's paths carry it: base64url without padding. */
export const refToBase64url = (refBytes) => Buffer.from(bytes(refBytes)).toString('base64url');
/** The ref bytes of a base64url string. */
export const refFromBase64url = (text) => new Uint8Array(Buffer.from(text, 'base64url'));

/** A pack's key: flat <tenant>/<pack id>, or sharded <tenant>/<first 2 hex>/<pack id>. */
export function packKey(tenant, packId, layout = 'flat') {
  if (layout === 'flat') return `${tenant}/${packId}`;
  if (layout === 'sharded') return `${tenant}/${packId.slice(0, 2)}/${packId}`;
  throw new RangeError(`layout must be flat or sharded, not ${layout}`);
}
