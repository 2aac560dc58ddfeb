// The claim gateway's client over the global fetch (docs/gateway.md). Thread-safe in the Node
// sense: one client may serve any number of concurrent calls; it keeps no per-request state.

import { CODECS, MalformedRef, crc32c, decodeRef, isRef, refFromBase64url, refToBase64url }
  from './refs.js';

/** A redeem or check-in that did not succeed: status is the last HTTP status (or null). */
export class ClaimCheckError extends Error {
  constructor(message, status = null, problem = null) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.problem = problem;
  }
}
/** 404: every store answered and none holds the claim (final). */
export class NotFound extends ClaimCheckError {}
/** 400, 401, 403 (or another 4xx): a malformed ref, a bad token, a tenant not allowed (final). */
export class Refused extends ClaimCheckError {}
/** 413: past the gateway's read or write limit (final). */
export class TooLarge extends ClaimCheckError {}
/** No answer within the deadline (503s, a gateway down, broken transfers): retriable. */
export class Unavailable extends ClaimCheckError {}
/** The claim does not verify: the gateway said CORRUPT, or its body failed twice (final). */
export class Corrupt extends ClaimCheckError {}

const RETRIABLE = [408, 425, 429, 503];
const ETAG = /^"([0-9a-fA-F]{8})"$/;

class Retry extends Error {
  constructor(message, status, waitMs) {
    super(message);
    this.status = status;
    this.waitMs = waitMs;
  }
}

/**
 * A client of the claim gateway. baseUrl is http[s]://host:port, token a bearer token (or null).
 * Every call takes deadlineMs: 503 + Retry-After, broken transfers and other retriable answers
 * are retried until it passes, then Unavailable is thrown. options.fetch replaces the global
 * fetch (for a custom TLS dispatcher); options.clock (ms) and options.sleep are for tests.
 */
export class GatewayClient {
  constructor(baseUrl, token, options = {}) {
    this.base = baseUrl.replace(/\/+$/, '');
    this.token = token ?? null;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.clock = options.clock ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /**
   * The claim's (uncompressed) bytes as a Uint8Array, verified as far as the ref allows: an
   * uncompressed claim by length and CRC32C; a compressed or encrypted (version 3) one by the
   * uncompressed length its ref records (its CRC32C covers the stored bytes, compressed or the
   * envelope, which the gateway checks before inflating or decrypting). A streamed claim
   * (version 4) is checked the same way. A body that does not verify is fetched once more; a second
   * mismatch throws Corrupt. Bytes that are no ref throw MalformedRef before any request.
   */
  async redeem(refBytes, { deadlineMs = 30_000 } = {}) {
    let ref = null;
    try {
      ref = decodeRef(refBytes);
    } catch (e) {
      if (!(e instanceof MalformedRef) || !e.needsNewerReader) throw e;
    }
    const mismatches = [];
    return this.#call('GET', `/v1/claims/${refToBase64url(refBytes)}`, null,
      { Accept: 'application/octet-stream' }, deadlineMs, (status, headers, body) => {
        if (status !== 200) return null;
        const problem = ref && mismatch(ref, headers, body);
        if (!problem) return body;
        mismatches.push(problem);
        if (mismatches.length >= 2) {
          throw new Corrupt(`claim ${ref.tenant}/${ref.packId}#${ref.index}: ${problem} (read twice)`,
            status);
        }
        throw new Retry(problem, status, 0);
      });
  }

  /** Checks payload in; resolves to the raw ref bytes once a store durably holds the claim. */
  async checkIn(payload, { compression = null, deadlineMs = 30_000 } = {}) {
    const data = payload instanceof Uint8Array ? payload : new TextEncoder().encode(payload);
    if (data.length === 0) throw new RangeError('an empty payload is never checked in');
    let path = '/v1/claims';
    if (compression !== null) {
      if (!CODECS.includes(compression)) throw new RangeError(`compression must be one of ${CODECS}`);
      path += `?compression=${compression}`;
    }
    return this.#call('POST', path, data,
      { Accept: 'application/octet-stream', 'Content-Type': 'application/octet-stream' },
      deadlineMs, (status, headers, body) => {
        if (status !== 200 && status !== 201) return null;
        const raw = isRef(body) ? body : maybeBase64url(body);
        let ref;
        try {
          ref = decodeRef(raw);
        } catch (e) {
          if (e instanceof MalformedRef && e.needsNewerReader) return raw;
          throw new Corrupt(`the gateway answered ${status} without a readable ref: ${e.message}`, status);
        }
        const expected = servedAsStored(ref) ? ref.length : ref.uncompressedLength;
        if (expected !== null && expected !== data.length) {
          throw new Corrupt(`the gateway's ref names ${expected} bytes, ${data.length} were sent`, status);
        }
        if (servedAsStored(ref) && ref.checksum !== crc32c(data)) {
          throw new Corrupt("the gateway's ref names another CRC32C than the payload's", status);
        }
        return raw;
      });
  }

  /** What the gateway reads in a ref (GET /v1/refs/{ref}), parsed from its JSON. */
  async describe(refBytes, { deadlineMs = 30_000 } = {}) {
    return this.#call('GET', `/v1/refs/${refToBase64url(refBytes)}`, null,
      { Accept: 'application/json' }, deadlineMs,
      (status, headers, body) => (status === 200 ? JSON.parse(new TextDecoder().decode(body)) : null));
  }

  async #call(method, path, body, headers, deadlineMs, onAnswer) {
    const deadline = this.clock() + deadlineMs;
    let last = 'no attempt made';
    let status = null;
    for (let tries = 1; ; tries++) {
      const remaining = deadline - this.clock();
      if (remaining <= 0) {
        throw new Unavailable(`${method} ${path}: no answer within the deadline: ${last}`, status);
      }
      let waitMs = null;
      try {
        const answer = await this.#send(method, path, body, headers, remaining);
        status = answer.status;
        const result = onAnswer(answer.status, answer.headers, answer.body);
        if (result !== null) return result;
        raiseFinal(method, path, answer);
        last = `HTTP ${answer.status}`;
        waitMs = retryAfterMs(answer.headers.get('retry-after'));
      } catch (e) {
        if (e instanceof Retry) {
          last = e.message;
          waitMs = e.waitMs;
        } else if (e instanceof ClaimCheckError || !isTransient(e)) {
          throw e;
        } else {
          last = `${e.name}: ${e.cause?.code ?? e.message}`;
        }
      }
      if (waitMs === null) waitMs = Math.min(1000, 50 * 2 ** (tries - 1));
      if (this.clock() + waitMs >= deadline) {
        throw new Unavailable(`${method} ${path}: ${last}; the deadline passes before a retry`, status);
      }
      if (waitMs > 0) await this.sleep(waitMs);
    }
  }

  async #send(method, path, body, headers, timeoutMs) {
    const h = { ...headers, 'X-Claimcheck-Deadline-Ms': String(Math.max(1, Math.floor(timeoutMs))) };
    if (this.token !== null) h.Authorization = `Bearer ${this.token}`;
    const res = await this.fetch(this.base + path, {
      method, headers: h, body, redirect: 'follow', signal: AbortSignal.timeout(Math.ceil(timeoutMs)),
    });
    return { status: res.status, headers: res.headers, body: new Uint8Array(await res.arrayBuffer()) };
  }
}

/** fetch's failures that a retry may cure: network errors, broken transfers, timeouts. */
function isTransient(e) {
  return e instanceof TypeError || e?.name === 'TimeoutError' || e?.name === 'AbortError';
}

function raiseFinal(method, path, { status, headers, body }) {
  const problem = parseProblem(headers, body);
  const detail = problem ? `: ${problem.detail ?? problem.title}` : '';
  const what = `${method} ${path}: HTTP ${status}${detail}`;
  if (status === 404) throw new NotFound(what, status, problem);
  if (status === 413) throw new TooLarge(what, status, problem);
  if (RETRIABLE.includes(status)) return;
  if (status >= 400 && status < 500) throw new Refused(what, status, problem);
  if (status >= 500) {
    if (problem && saysCorrupt(problem)) throw new Corrupt(what, status, problem);
    return; // a proxy's 502/504 or a crash: not certain, so retriable
  }
  throw new Refused(`${what} (unexpected)`, status, problem);
}

function saysCorrupt(p) {
  return String(p.reason ?? '').toUpperCase() === 'CORRUPT'
    || String(p.type ?? '').toLowerCase().replace(/\/+$/, '').endsWith('corrupt');
}

function parseProblem(headers, body) {
  const type = (headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/problem+json' && type !== 'application/json') return null;
  try {
    const p = JSON.parse(new TextDecoder().decode(body));
    return p !== null && typeof p === 'object' && !Array.isArray(p) ? p : null;
  } catch {
    return null;
  }
}

/**
 * Whether the gateway serves the stored bytes themselves, so the ref's length and CRC32C describe
 * the body: codec none and not encrypted (a version-3 ref's describe the envelope).
 */
const servedAsStored = (ref) => ref.codec === 'none' && !ref.encrypted;

function mismatch(ref, headers, body) {
  const etag = ETAG.exec((headers.get('etag') ?? '').trim());
  if (etag && parseInt(etag[1], 16) !== ref.checksum) {
    return `the ETag names checksum ${etag[1]}, the ref ${ref.checksum.toString(16).padStart(8, '0')}`;
  }
  if (servedAsStored(ref)) {
    if (body.length !== ref.length) return `${body.length} bytes returned, the ref names ${ref.length}`;
    if (crc32c(body) !== ref.checksum) return 'CRC32C mismatch';
  } else if (ref.uncompressedLength !== null && body.length !== ref.uncompressedLength) {
    return `${body.length} bytes returned, the ref names ${ref.uncompressedLength} uncompressed`;
  }
  return null;
}

function retryAfterMs(value) {
  if (value === null || value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const when = Date.parse(v);
  return Number.isNaN(when) ? null : Math.max(0, when - Date.now());
}

function maybeBase64url(body) {
  const text = new TextDecoder().decode(body).trim();
  return /^[A-Za-z0-9_-]+$/.test(text) ? refFromBase64url(text) : body;
}
