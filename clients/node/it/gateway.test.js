// Integration test against a running gateway (not under test/, so `node --test test/` skips it).
// The gateway module's CrossLanguageIT runs `node --test it/gateway.test.js` with GATEWAY_URL, GATEWAY_TOKEN and
// CLAIMCHECK_MANIFEST (see clients/python/it_gateway.py for the manifest's format).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as cc from '../claimcheck.js';

const url = process.env.GATEWAY_URL;
const token = process.env.GATEWAY_TOKEN;
const records = JSON.parse(readFileSync(process.env.CLAIMCHECK_MANIFEST, 'utf8')).records;
const client = new cc.GatewayClient(url, token);

test('redeems what the Java serializer wrote, byte for byte', async () => {
  assert.ok(records.length > 0);
  for (const r of records) {
    const value = new Uint8Array(Buffer.from(r.value, 'base64'));
    const headers = Object.fromEntries(
      r.headers.map(([n, v]) => [n, v === null ? null : Buffer.from(v, 'base64')]));
    assert.ok(cc.refFromRecord(value, headers), 'the serializer checked this value in');
    const expected = new Uint8Array(readFileSync(r.expected_file));
    const got = await client.redeem(value, { deadlineMs: 60_000 });
    assert.equal(got.length, expected.length);
    assert.deepEqual(Buffer.from(got), Buffer.from(expected));
  }
});

test('checks in, redeems and describes', async () => {
  const payload = new Uint8Array(randomBytes(70_000));
  const ref = await client.checkIn(payload, { deadlineMs: 60_000 });
  assert.deepEqual(Buffer.from(await client.redeem(ref, { deadlineMs: 60_000 })), Buffer.from(payload));
  assert.equal((await client.describe(ref, { deadlineMs: 60_000 })).length, payload.length);
  const text = new TextEncoder().encode('zstd '.repeat(10_000));
  const z = await client.checkIn(text, { compression: 'zstd', deadlineMs: 60_000 });
  assert.equal(cc.decodeRef(z).codec, 'zstd');
  assert.deepEqual(Buffer.from(await client.redeem(z, { deadlineMs: 60_000 })), Buffer.from(text));
});

test('a bad token is refused', async () => {
  const bad = new cc.GatewayClient(url, 'not-a-token');
  const value = new Uint8Array(Buffer.from(records[0].value, 'base64'));
  await assert.rejects(bad.redeem(value, { deadlineMs: 10_000 }), cc.Refused);
});
