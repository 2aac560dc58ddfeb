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
const KNOWN_VERSIONS = [1, 2];
const INT64_MAX = (1n << 63n) - 1n;

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

function body(version, b) {
  const bad = (m) => new MalformedRef('BAD_FIELD', `version-${version} ref: ${m}`);
  const extra = version === 2 ? 4 : 0;
  if (b.length < V1_FIXED + 1 + extra) throw bad(`body of ${b.length} bytes is shorter than any body`);
  const t = b[0];
  if (b.length !== V1_FIXED + t + extra) {
    throw bad(`body of ${b.length} bytes does not fit a tenant of ${t}`);
  }
  const tenant = String.fromCharCode(...b.subarray(1, 1 + t)); // latin-1, as Java reads it
  const v = view(b);
  let at = 1 + t;
  const pack = v.getBigUint64(at);
  const index = v.getUint16(at + 8);
  const offset = v.getBigInt64(at + 10);
  const length = v.getInt32(at + 18);
  const checksum = v.getUint32(at + 22);
  const codecId = b[at + 26];
  if (codecId >= CODECS.length) {
    throw new MalformedRef('UNKNOWN_CODEC', `codec id ${codecId} is unknown: upgrade the reader`);
  }
  const codec = CODECS[codecId];
  const problem = tenantProblem(tenant);
  if (problem) throw bad(`invalid tenant: ${problem}`);
  if (offset < 0n) throw bad(`offset ${offset} is negative`);
  if (length < 1) throw bad(`length ${length} is not positive`);
  if (offset > INT64_MAX - BigInt(length)) throw bad('offset + length overflows');
  let raw;
  if (version === 1) {
    raw = codec === 'none' ? length : null;
  } else {
    raw = v.getInt32(b.length - 4);
    if (codec === 'none' && raw !== length) {
      throw bad(`uncompressed length ${raw} differs from the length ${length} of an uncompressed claim`);
    }
    if (raw < 0) throw bad(`uncompressed length ${raw} is negative`);
  }
  return Object.freeze({
    version, tenant, packId: pack.toString(16).padStart(16, '0'), index, offset, length,
    checksum, codec, uncompressedLength: raw,
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
