// The gateway client against a scripted node:http server on 127.0.0.1, on a fake clock.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import * as cc from '../claimcheck.js';
import { v4 } from './streamed.js';

const V = JSON.parse(readFileSync(new URL('../../../docs/wire-vectors.json', import.meta.url), 'utf8'));
const hex = (h) => new Uint8Array(Buffer.from(h, 'hex'));
const PAYLOAD = hex(V.pack.payload_hex);
const PLAIN_REF = hex(V.pack.claims[0].ref_hex); // codec none: the CRC32C of PAYLOAD
const GZIP_REF = hex(V.pack.claims[1].ref_hex); // version 2: the uncompressed length is known
const etag = `"${cc.decodeRef(PLAIN_REF).checksum.toString(16).padStart(8, '0')}"`;
const OK = [200, { ETag: etag }, PAYLOAD];
const ENCRYPTED = V.refs.find((v) => v.version === 3 && v.codec === 'none');
const ENCRYPTED_REF = hex(ENCRYPTED.hex); // its length and CRC32C: the envelope's
const hex8 = (n) => `"${n.toString(16).padStart(8, '0')}"`;
const BUSY = [503, { 'Retry-After': '2' }, ''];

const problem = (status, reason) => [status, { 'Content-Type': 'application/problem+json' },
  JSON.stringify({ type: 'about:blank', title: reason, status, reason, tenant: 'acme' })];

const servers = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((r) => {
  s.closeAllConnections();
  s.close(r);
}))));

/** A stub answering with the scripted answers in order (the last repeats); and a fake clock. */
async function client(...answers) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      requests.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      const [status, { 'X-Abort-After': abortAfter, ...headers }, body] =
        answers.length > 1 ? answers.shift() : answers[0];
      res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
      if (abortAfter === undefined) {
        res.end(body);
      } else { // as the gateway aborts a claim that fails its check at the end
        res.write(Buffer.from(body).subarray(0, Number(abortAfter)), () => res.destroy());
      }
    });
  });
  servers.push(server);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const time = { now: 1_000_000, sleeps: [] };
  const c = new cc.GatewayClient(`http://127.0.0.1:${server.address().port}`, 's3cret', {
    clock: () => time.now,
    sleep: async (ms) => { time.sleeps.push(ms); time.now += ms; },
  });
  return { c, requests, time, server };
}

test('200 returns the verified claim', async () => {
  const { c, requests } = await client(OK);
  assert.deepEqual(await c.redeem(PLAIN_REF, { deadlineMs: 5000 }), PAYLOAD);
  assert.equal(requests[0].method, 'GET');
  assert.equal(requests[0].path, `/v1/claims/${cc.refToBase64url(PLAIN_REF)}`);
  assert.equal(requests[0].headers.authorization, 'Bearer s3cret');
  assert.equal(requests[0].headers['x-claimcheck-deadline-ms'], '5000');
});

test('503 with Retry-After is retried after that many seconds', async () => {
  const { c, requests, time } = await client(BUSY, BUSY, OK);
  assert.deepEqual(await c.redeem(PLAIN_REF), PAYLOAD);
  assert.deepEqual(time.sleeps, [2000, 2000]);
  assert.equal(requests.length, 3);
  assert.equal(requests[2].headers['x-claimcheck-deadline-ms'], '26000');
});

test('503 until the deadline is Unavailable', async () => {
  const { c, requests, time } = await client(BUSY);
  await assert.rejects(c.redeem(PLAIN_REF, { deadlineMs: 5000 }),
    (e) => e instanceof cc.Unavailable && e.status === 503);
  assert.equal(requests.length, 3); // at 0, 2 and 4 s; 6 s is past the deadline
  assert.ok(time.sleeps.reduce((a, b) => a + b, 0) <= 5000);
});

test('a Retry-After past the deadline answers at once', async () => {
  const { c, time } = await client([503, { 'Retry-After': '60' }, '']);
  await assert.rejects(c.redeem(PLAIN_REF, { deadlineMs: 5000 }), cc.Unavailable);
  assert.deepEqual(time.sleeps, []);
});

test('404 is NotFound', async () => {
  const { c, requests } = await client(problem(404, 'NOT_FOUND'));
  await assert.rejects(c.redeem(PLAIN_REF), (e) => e instanceof cc.NotFound && e.problem.tenant === 'acme');
  assert.equal(requests.length, 1);
});

test('403, 401 and 400 are Refused without a retry', async () => {
  for (const status of [403, 401, 400]) {
    const { c, requests } = await client(problem(status, 'REFUSED'));
    await assert.rejects(c.redeem(PLAIN_REF), (e) => e instanceof cc.Refused && e.status === status);
    assert.equal(requests.length, 1);
  }
});

test('413 is TooLarge', async () => {
  const { c } = await client(problem(413, 'REFUSED'));
  await assert.rejects(c.redeem(PLAIN_REF), cc.TooLarge);
});

test('a body that fails its checksum twice is Corrupt', async () => {
  const damaged = Uint8Array.from(PAYLOAD);
  damaged[7] ^= 1;
  const { c, requests } = await client([200, {}, damaged]);
  await assert.rejects(c.redeem(PLAIN_REF), cc.Corrupt);
  assert.equal(requests.length, 2);
});

test('a body that fails once is fetched again', async () => {
  const { c } = await client([200, {}, PAYLOAD.subarray(1)], OK);
  assert.deepEqual(await c.redeem(PLAIN_REF), PAYLOAD);
});

test('a transfer aborted mid-body is retried and never returned', async () => {
  const one = await client([200, { 'X-Abort-After': '100' }, PAYLOAD], OK);
  assert.deepEqual(await one.c.redeem(PLAIN_REF), PAYLOAD);
  assert.equal(one.requests.length, 2);
  const two = await client([200, { 'X-Abort-After': '100' }, PAYLOAD]);
  await assert.rejects(two.c.redeem(PLAIN_REF, { deadlineMs: 2000 }), cc.Unavailable);
});

test('an ETag naming another checksum is Corrupt', async () => {
  const { c } = await client([200, { ETag: '"00000000"' }, PAYLOAD]);
  await assert.rejects(c.redeem(PLAIN_REF), cc.Corrupt);
});

test('a compressed claim is checked by its uncompressed length', async () => {
  assert.deepEqual(await (await client([200, {}, PAYLOAD])).c.redeem(GZIP_REF), PAYLOAD);
  const { c } = await client([200, {}, Buffer.concat([PAYLOAD, Buffer.from('!')])]);
  await assert.rejects(c.redeem(GZIP_REF), cc.Corrupt);
});

test('a 5xx that says CORRUPT is final, another is retried', async () => {
  const one = await client(problem(500, 'CORRUPT'));
  await assert.rejects(one.c.redeem(PLAIN_REF), cc.Corrupt);
  assert.equal(one.requests.length, 1);
  const two = await client([502, {}, 'bad gateway'], OK);
  assert.deepEqual(await two.c.redeem(PLAIN_REF), PAYLOAD);
});

test('a gateway that does not answer is Unavailable', async () => {
  const { c, time, server } = await client(OK);
  await new Promise((r) => server.close(r));
  await assert.rejects(c.redeem(PLAIN_REF, { deadlineMs: 1000 }), cc.Unavailable);
  assert.ok(time.sleeps.length > 0);
});

test('bytes that are no ref are refused before any request', async () => {
  const { c, requests } = await client(OK);
  await assert.rejects(c.redeem(Buffer.from('not a ref')), cc.MalformedRef);
  assert.equal(requests.length, 0);
});

test('POST checks in and returns the raw ref', async () => {
  const { c, requests } = await client([201, { Location: `/v1/claims/${cc.refToBase64url(PLAIN_REF)}` }, PLAIN_REF]);
  assert.deepEqual(await c.checkIn(PAYLOAD), PLAIN_REF);
  assert.equal(requests[0].method, 'POST');
  assert.equal(requests[0].path, '/v1/claims');
  assert.deepEqual(new Uint8Array(requests[0].body), PAYLOAD);
  assert.equal(requests[0].headers.accept, 'application/octet-stream');
  assert.equal(requests[0].headers.authorization, 'Bearer s3cret');
});

test('POST with compression and a base64url answer', async () => {
  const { c, requests, time } = await client(BUSY, [201, {}, cc.refToBase64url(GZIP_REF)]);
  assert.deepEqual(await c.checkIn(PAYLOAD, { compression: 'gzip' }), GZIP_REF);
  assert.equal(requests[1].path, '/v1/claims?compression=gzip');
  assert.deepEqual(time.sleeps, [2000]);
});

test('POST answered with a ref to other bytes is Corrupt', async () => {
  const { c } = await client([201, {}, PLAIN_REF]);
  const other = Uint8Array.from(PAYLOAD);
  other[0] ^= 1;
  await assert.rejects(c.checkIn(other), cc.Corrupt);
});

test('POST refused', async () => {
  const { c } = await client(problem(403, 'REFUSED'));
  await assert.rejects(c.checkIn(PAYLOAD), cc.Refused);
});

test('describe returns the gateway JSON', async () => {
  const answer = { tenant: 'acme', pack: V.pack.pack_id, index: 0, version: 1 };
  const { c, requests } = await client([200, { 'Content-Type': 'application/json' }, JSON.stringify(answer)]);
  assert.deepEqual(await c.describe(PLAIN_REF), answer);
  assert.equal(requests[0].path, `/v1/refs/${cc.refToBase64url(PLAIN_REF)}`);
});

test('an encrypted claim is not checked against its envelope\'s checksum', async () => {
  const plain = new Uint8Array(ENCRYPTED.uncompressed_length).map((_, i) => i);
  const tag = { ETag: hex8(ENCRYPTED.checksum) }; // the gateway's: the ref's checksum
  const one = await client([200, tag, plain]);
  assert.deepEqual(await one.c.redeem(ENCRYPTED_REF), plain);
  assert.equal(one.requests.length, 1);
  const two = await client([200, tag, Buffer.concat([plain, Buffer.from('!')])]);
  await assert.rejects(two.c.redeem(ENCRYPTED_REF), cc.Corrupt);
});

test('POST answered with an encrypted ref checks its uncompressed length', async () => {
  const one = await client([201, {}, ENCRYPTED_REF]);
  assert.deepEqual(await one.c.checkIn(new Uint8Array(1000)), ENCRYPTED_REF);
  const two = await client([201, {}, ENCRYPTED_REF]);
  await assert.rejects(two.c.checkIn(new Uint8Array(1137)), cc.Corrupt); // the envelope's length
});

test('a streamed claim is checked by length and CRC32C', async () => {
  const n = PAYLOAD.length;
  const ref = v4({ length: n, raw: n, checksum: cc.crc32c(PAYLOAD) });
  assert.deepEqual(await (await client([200, { ETag: hex8(cc.crc32c(PAYLOAD)) }, PAYLOAD])).c.redeem(ref), PAYLOAD);
  const damaged = Buffer.from(PAYLOAD);
  damaged[7] ^= 1;
  await assert.rejects((await client([200, {}, damaged])).c.redeem(ref), cc.Corrupt);
  assert.deepEqual(await (await client([201, {}, ref])).c.checkIn(PAYLOAD), ref);
  await assert.rejects((await client([201, {}, ref])).c.checkIn(damaged), cc.Corrupt);
  const zstd = v4({ length: 100, codec: 4, raw: n, checksum: 7 });
  assert.deepEqual(await (await client([200, { ETag: '"00000007"' }, PAYLOAD])).c.redeem(zstd), PAYLOAD);
  await assert.rejects((await client([200, {}, PAYLOAD.subarray(1)])).c.redeem(zstd), cc.Corrupt);
});
