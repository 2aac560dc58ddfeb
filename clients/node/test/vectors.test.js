// The shared wire vectors (docs/wire-vectors.json, written and checked by core's WireVectorsTest).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import * as cc from '../claimcheck.js';

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
