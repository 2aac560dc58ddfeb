// The shared wire vectors (docs/wire-vectors.json, written and checked by core's WireVectorsTest).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import * as cc from '../claimcheck.js';
import { v4 } from './streamed.js';

const V = JSON.parse(readFileSync(new URL('../../../docs/wire-vectors.json', import.meta.url), 'utf8'));
const hex = (h) => new Uint8Array(Buffer.from(h, 'hex'));

test('every ref vector decodes to its fields', () => {
  assert.ok(V.refs.length > 5);
  for (const v of V.refs) {
    const data = hex(v.hex);
    const r = cc.decodeRef(data);
    assert.deepEqual(
      [r.version, r.tenant, r.packId, r.index, r.offset, r.length, r.checksum, r.codec, r.uncompressedLength],
      [v.version, v.tenant, v.pack_id, v.index, BigInt(v.offset), v.length, v.checksum, v.codec,
        v.uncompressed_length], v.hex);
    assert.equal(cc.isRef(data), true);
    assert.equal(cc.isRef(Buffer.from(data), true), true);
    assert.equal(cc.refToBase64url(data), v.base64url);
    assert.deepEqual(cc.refFromBase64url(v.base64url), data);
    assert.equal(cc.packKey(r.tenant, r.packId, 'flat'), v.flat_key);
    assert.equal(cc.packKey(r.tenant, r.packId, 'sharded'), v.sharded_key);
    assert.deepEqual(cc.refFromRecord(Buffer.from(data), undefined), r);
    assert.deepEqual(cc.refFromRecord(data, { [cc.VALUE_MARKER]: Buffer.from('2') }), r);
    assert.equal(r.encrypted, v.version === 3, v.hex);
    assert.equal(r.streamed, false, v.hex);
  }
});

test('the vectors cover encrypted refs', () => {
  const encrypted = V.refs.filter((v) => v.version === 3);
  assert.ok(encrypted.length > 0);
  assert.ok(encrypted.some((v) => v.codec === 'none' && v.uncompressed_length !== v.length),
    'an envelope is longer than its claim');
  assert.ok(V.fuzz.some((v) => v.error === null && v.ref.version === 3));
});

test('every streamed ref vector decodes to its fields', () => {
  assert.ok(V.streamed_refs.length >= 2);
  for (const v of V.streamed_refs) {
    const data = hex(v.hex);
    const r = cc.decodeRef(data);
    assert.deepEqual(
      [r.version, r.tenant, r.packId, r.index, r.offset, BigInt(r.length), r.checksum, r.codec,
        BigInt(r.uncompressedLength), r.streamed, r.encrypted],
      [v.version, v.tenant, v.pack_id, 0, 0n, BigInt(v.length), v.checksum, v.codec,
        BigInt(v.uncompressed_length), true, v.version === 5], v.hex);
    assert.equal(typeof r.length, 'number', 'a safe integer is a Number');
    assert.equal(cc.isRef(data), true);
    assert.equal(cc.refToBase64url(data), v.base64url);
    assert.equal(cc.packKey(r.tenant, r.packId, 'flat'), v.flat_key);
    assert.deepEqual(cc.refFromRecord(data, { [cc.VALUE_MARKER]: String(v.version) }), r);
  }
  assert.ok(V.streamed_refs.some((v) => BigInt(v.length) > 2n ** 31n - 1n
    || BigInt(v.uncompressed_length) > 2n ** 32n), '64-bit lengths are covered');
  assert.ok(V.streamed_refs.some((v) => v.version === 5), 'an encrypted streamed ref is covered');
});

test('an encrypted streamed ref records an envelope longer than its claim', () => {
  const r = cc.decodeRef(v4({ version: 5, length: 100, raw: 40 }));
  assert.deepEqual([r.encrypted, r.streamed, r.length, r.uncompressedLength], [true, true, 100, 40]);
  assert.throws(() => cc.decodeRef(v4({ version: 5, codec: 4, raw: -1 })),
    (e) => e instanceof cc.MalformedRef && e.reason === 'BAD_FIELD');
});

test('a streamed length past 2^53 - 1 is a BigInt, never rounded', () => {
  const max = 2n ** 63n - 1n;
  const r = cc.decodeRef(v4({ length: max, raw: max }));
  assert.equal(r.length, max);
  assert.equal(r.uncompressedLength, max);
  const safe = BigInt(Number.MAX_SAFE_INTEGER);
  assert.equal(cc.decodeRef(v4({ length: safe, raw: safe })).length, Number.MAX_SAFE_INTEGER);
  assert.equal(cc.decodeRef(v4({ length: safe + 1n, raw: safe + 1n })).length, safe + 1n);
  assert.equal(cc.decodeRef(v4({ codec: 4, raw: 0 })).uncompressedLength, 0);
});

test('streamed refs get the Java checks in order', () => {
  const reframed = (hexRef, version) => { // a body re-framed under another version byte
    const b = Buffer.from(hexRef, 'hex');
    const head = Buffer.concat([b.subarray(0, 4), Buffer.from([version]), b.subarray(5, b.length - 4)]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(cc.crc32(new Uint8Array(head)));
    return new Uint8Array(Buffer.concat([head, crc]));
  };
  const cases = [
    ['codec 5', v4({ codec: 5 }), 'UNKNOWN_CODEC'],
    ['codec 9 wins over a bad tenant', v4({ tenant: 'ACME', codec: 9 }), 'UNKNOWN_CODEC'],
    ['a bad tenant', v4({ tenant: 'ACME' }), 'BAD_FIELD'],
    ['an empty tenant', v4({ tenant: '' }), 'BAD_FIELD'],
    ['a length of 0', v4({ length: 0, raw: 0 }), 'BAD_FIELD'],
    ['a negative length', v4({ length: -1, raw: -1 }), 'BAD_FIELD'],
    ['none with another raw length', v4({ raw: 6 }), 'BAD_FIELD'],
    ['a negative raw length', v4({ codec: 4, raw: -1 }), 'BAD_FIELD'],
    ['a byte past the body', v4({ extra: [0] }), 'BAD_FIELD'],
    ['a version-2 body under version 4', reframed(V.refs[1].hex, 4), 'BAD_FIELD'],
    ['version 6', v4({ version: 6 }), 'UNKNOWN_VERSION'],
  ];
  for (const [name, data, reason] of cases) {
    assert.throws(() => cc.decodeRef(data), (e) => e instanceof cc.MalformedRef && e.reason === reason, name);
    assert.equal(cc.isRef(data), true, `${name}: an intact frame is a ref, readable or not`);
  }
});

test('every non-ref vector gets its verdict and reason', () => {
  assert.ok(V.non_refs.length > 10);
  for (const v of V.non_refs) {
    const data = hex(v.hex);
    assert.throws(() => cc.decodeRef(data), (e) => {
      assert.ok(e instanceof cc.MalformedRef, v.name);
      assert.equal(e.reason, v.error, v.name);
      assert.equal(e.needsNewerReader, v.needs_newer_reader, v.name);
      return true;
    });
    assert.equal(cc.isRef(data), v.unmarked === 'ref', v.name);
    assert.equal(cc.isRef(data, true), v.marked === 'ref', v.name);
    const marked = { other: 'x', [cc.VALUE_MARKER]: [Buffer.from('1')] };
    if (v.marked === 'inline') {
      assert.equal(cc.refFromRecord(data, marked), null, v.name);
    } else {
      assert.throws(() => cc.refFromRecord(data, marked), cc.MalformedRef, v.name);
    }
    if (v.unmarked === 'inline') {
      assert.equal(cc.refFromRecord(data, {}), null, v.name);
      assert.equal(cc.refFromRecord(data, { [cc.KEY_MARKER]: '1' }), null, v.name);
    }
  }
});

test('every fuzz vector gets the Java answer', () => {
  assert.ok(V.fuzz.length > 100);
  for (const v of V.fuzz) {
    const data = hex(v.hex);
    assert.equal(cc.isRef(data), v.unmarked === 'ref', v.hex);
    if (v.error !== null) {
      assert.throws(() => cc.decodeRef(data), (e) => e instanceof cc.MalformedRef && e.reason === v.error, v.hex);
      continue;
    }
    const r = cc.decodeRef(data);
    const e = v.ref;
    assert.equal(r.encrypted, e.version === 3, v.hex);
    assert.deepEqual(
      [r.version, r.tenant, r.packId, r.index, r.offset, r.length, r.checksum, r.codec, r.uncompressedLength],
      [e.version, e.tenant, e.pack_id, e.index, BigInt(e.offset), e.length, e.checksum, e.codec,
        e.uncompressed_length], v.hex);
  }
});

test('a value marker does not mark the key', () => {
  const inline = Buffer.concat([Buffer.from(cc.MAGIC), Buffer.from(' not a ref')]);
  assert.equal(cc.refFromRecord(inline, { [cc.VALUE_MARKER]: '1' }, true), null);
  assert.throws(() => cc.refFromRecord(inline, { [cc.KEY_MARKER]: '1' }, true), cc.MalformedRef);
  assert.equal(cc.refFromRecord(null, { [cc.VALUE_MARKER]: '1' }), null);
  // a marker with a null value is a marker
  assert.throws(() => cc.refFromRecord(inline, { [cc.VALUE_MARKER]: null }), cc.MalformedRef);
});

test('checksums match the Java ones', () => {
  for (const v of V.checksums) {
    assert.equal(cc.crc32c(hex(v.data_hex)), v.crc32c);
    assert.equal(cc.crc32(hex(v.data_hex)), v.crc32);
  }
  assert.equal(cc.crc32c('6789', cc.crc32c('12345')), cc.crc32c('123456789'));
});

test('the pack vector has the documented layout', () => {
  const P = V.pack;
  const pack = hex(P.pack_hex);
  const payload = hex(P.payload_hex);
  const d = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  assert.equal(Buffer.from(pack.subarray(0, 4)).toString('latin1'), 'AKPK');
  const header = {
    version: pack[4], entry_count: d.getInt32(5), index_length: d.getInt32(9),
    pack_length: Number(d.getBigInt64(13)), crc32: d.getUint32(21),
  };
  assert.deepEqual(header, P.header);
  assert.equal(pack.length, header.pack_length);
  assert.equal(header.index_length, 17 * header.entry_count);
  const covered = Buffer.concat([pack.subarray(0, 21), pack.subarray(25, 25 + header.index_length)]);
  assert.equal(cc.crc32(covered), header.crc32);
  P.claims.forEach((c, i) => {
    const at = 25 + 17 * i;
    const entry = {
      offset: Number(d.getBigInt64(at)), length: d.getInt32(at + 8), checksum: d.getUint32(at + 12),
      codec: cc.CODECS[pack[at + 16]],
    };
    assert.deepEqual(entry, { offset: c.offset, length: c.length, checksum: c.checksum, codec: c.codec });
    const stored = pack.subarray(entry.offset, entry.offset + entry.length);
    assert.equal(cc.crc32c(stored), entry.checksum, 'the checksum covers the stored bytes');
    const r = cc.decodeRef(hex(c.ref_hex));
    assert.deepEqual([r.tenant, r.packId, r.index, r.offset, r.length, r.checksum, r.codec],
      [P.tenant, P.pack_id, i, BigInt(entry.offset), entry.length, entry.checksum, entry.codec]);
    assert.equal(r.uncompressedLength, payload.length);
    if (c.codec === 'none') assert.deepEqual(stored, payload);
    if (c.codec === 'gzip') {
      assert.deepEqual(new Uint8Array(gunzipSync(stored)), payload);
      assert.notEqual(cc.crc32c(payload), entry.checksum);
    }
  });
});
