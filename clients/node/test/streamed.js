// A version-4 (streamed) ref as core's RefV4 writes it, for tests (the vectors fuzz none).
import * as cc from '../claimcheck.js';

export function v4({ tenant = 'acme', length = 5n, codec = 0, raw = 5n, extra = [], version = 4,
  checksum = 0x1234 } = {}) {
  const t = Buffer.from(tenant, 'latin1');
  const body = Buffer.alloc(1 + t.length + 29);
  body[0] = t.length;
  t.copy(body, 1);
  let at = 1 + t.length;
  body.writeBigUInt64BE(0x0123456789abcdefn, at);
  body.writeBigInt64BE(BigInt(length), at + 8);
  body.writeUInt32BE(checksum, at + 16);
  body[at + 20] = codec;
  body.writeBigInt64BE(BigInt(raw), at + 21);
  const full = Buffer.concat([body, Buffer.from(extra)]);
  const head = Buffer.concat([Buffer.from(cc.MAGIC), Buffer.from([version, full.length]), full]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(cc.crc32(new Uint8Array(head)));
  return new Uint8Array(Buffer.concat([head, crc]));
}
