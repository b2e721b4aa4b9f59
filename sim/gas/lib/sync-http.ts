// A synchronous HTTP client. UrlFetchApp.fetch blocks the script, and the emulator runs guest code
// synchronously, yet the fake MF API is a real HTTP server on 127.0.0.1. One long-lived worker thread
// does the async node:http work while the calling thread sleeps in Atomics.wait, then collects the
// result with receiveMessageOnPort (no event-loop turn needed on the caller's side).

import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

export interface SyncHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
  /** Whole-exchange deadline (connect, send, receive). Default 60 s, UrlFetchApp's observed deadline. */
  timeoutMs?: number;
  /** UrlFetchApp's validateHttpsCertificates; false accepts self-signed certificates. Default true. */
  validateHttpsCertificates?: boolean;
  /** Bodies above this fail with 'other' (UrlFetchApp's response cap is 50 MB). */
  maxResponseBytes?: number;
  /**
   * Any host, not only loopback. Only the maintainer's live contract run (test/contract/live.ts, never in
   * CI) sets it; the emulator never does.
   */
  remoteAllowed?: boolean;
}

export interface SyncHttpResponse {
  status: number;
  /** Lowercase names as Node reports them; repeated headers are joined with ", " except set-cookie. */
  headers: Record<string, string | string[]>;
  body: Uint8Array;
}

export interface SyncHttpError {
  error: 'timeout' | 'refused' | 'dns' | 'other';
  message: string;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RESPONSE = 50 * 1024 * 1024;
// Extra time the caller waits beyond the worker's own deadline before giving up on the worker itself.
const WORKER_GRACE_MS = 5_000;

/** Hosts the emulator may reach: loopback only, so a simulation can never touch the real network. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return m?.slice(1).every((p) => Number(p) <= 255) ?? false;
}

// Plain JavaScript (CommonJS), evaluated in the worker, so no TypeScript loader is needed there.
const WORKER_SOURCE = `
'use strict';
const { workerData } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const { port, shared } = workerData;
const flag = new Int32Array(shared);

function finish(id, result, transfer) {
  try {
    port.postMessage({ id, result }, transfer || []);
  } catch (e) {
    port.postMessage({ id, result: { error: 'other', message: 'Could not pass the response back: ' + e.message } });
  }
  // Publish after posting, so the caller finds the message as soon as it wakes.
  Atomics.store(flag, 0, id);
  Atomics.notify(flag, 0);
}

function classify(err, timedOut) {
  if (timedOut) return 'timeout';
  const code = err && err.code;
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') return 'dns';
  if (code === 'ETIMEDOUT') return 'timeout';
  return 'other';
}

// localhost is answered here rather than by the resolver: no DNS traffic, and both families are tried.
function lookupLocalhost(_host, options, cb) {
  if (options && options.all) cb(null, [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
  else cb(null, '127.0.0.1', 4);
}

function run(msg) {
  const { id, method, url, headers, body, timeoutMs, validateHttpsCertificates, maxResponseBytes } = msg;
  let settled = false;
  let timedOut = false;
  let timer;
  let req;
  const settle = (result, transfer) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    finish(id, result, transfer);
  };
  try {
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : http;
    const options = {
      method,
      headers,
      agent: false,
      autoSelectFamily: true,
      rejectUnauthorized: validateHttpsCertificates !== false,
    };
    if (u.hostname === 'localhost') options.lookup = lookupLocalhost;
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
    if (payload !== undefined && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) {
      options.headers = Object.assign({}, headers, { 'Content-Length': String(payload.length) });
    }
    timer = setTimeout(() => {
      timedOut = true;
      if (req) req.destroy(new Error('Request timed out after ' + timeoutMs + ' ms'));
      settle({ error: 'timeout', message: 'Request timed out after ' + timeoutMs + ' ms' });
    }, timeoutMs);
    req = lib.request(u, options, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (c) => {
        size += c.length;
        if (size > maxResponseBytes) {
          req.destroy();
          settle({ error: 'other', message: 'Response exceeds ' + maxResponseBytes + ' bytes' });
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => {
        const out = new Uint8Array(size);
        let o = 0;
        for (const c of chunks) {
          out.set(c, o);
          o += c.length;
        }
        const hdrs = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) hdrs[k] = v;
        settle({ status: res.statusCode || 0, headers: hdrs, body: out }, [out.buffer]);
      });
      res.on('error', (err) => settle({ error: classify(err, timedOut), message: String(err && err.message) }));
    });
    req.on('error', (err) => settle({ error: classify(err, timedOut), message: String(err && err.message) }));
    if (payload !== undefined) req.end(payload);
    else req.end();
  } catch (err) {
    settle({ error: 'other', message: String(err && err.message) });
  }
}

port.on('message', run);
`;

interface State {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
  dead: boolean;
}

let state: State | undefined;
let nextId = 0;

function ensureWorker(): State {
  if (state && !state.dead) return state;
  const shared = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { port: port2, shared },
    transferList: [port2],
    // The worker is plain JS: skip the parent's loaders (tsx) and test-runner flags.
    execArgv: [],
  });
  // Never keep the process alive just for the client.
  worker.unref();
  port1.unref();
  const s: State = { worker, port: port1, flag: new Int32Array(shared), dead: false };
  worker.on('exit', () => {
    s.dead = true;
  });
  worker.on('error', () => {
    s.dead = true;
  });
  state = s;
  return s;
}

function targetError(url: string, remoteAllowed = false): SyncHttpError | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { error: 'other', message: `Invalid URL: ${url}` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { error: 'other', message: `Unsupported protocol: ${u.protocol}` };
  }
  if (!remoteAllowed && !isLoopbackHost(u.hostname)) {
    return {
      error: 'dns',
      message: `Not a loopback host (the emulator never leaves this machine): ${u.hostname}`,
    };
  }
  return undefined;
}

/**
 * Performs one HTTP(S) request to a loopback host and blocks until it completes. Anything else yields
 * `{ error: 'dns' }` without network traffic. No redirects are followed and no content decoding is done:
 * the caller models UrlFetchApp's followRedirects and sees the raw bytes.
 */
export function syncHttpRequest(req: SyncHttpRequest): SyncHttpResponse | SyncHttpError {
  const bad = targetError(req.url, req.remoteAllowed === true);
  if (bad) return bad;
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const s = ensureWorker();
  nextId = nextId >= 0x7fffffff ? 1 : nextId + 1;
  const id = nextId;
  s.port.postMessage({
    id,
    method: req.method.toUpperCase(),
    url: req.url,
    headers: { ...req.headers },
    body: req.body,
    timeoutMs,
    validateHttpsCertificates: req.validateHttpsCertificates ?? true,
    maxResponseBytes: req.maxResponseBytes ?? DEFAULT_MAX_RESPONSE,
  });
  const deadline = Date.now() + timeoutMs + WORKER_GRACE_MS;
  for (;;) {
    const seen = Atomics.load(s.flag, 0);
    if (seen === id) break;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      // The worker is stuck (or gone): start afresh next time rather than wait on it again.
      void s.worker.terminate();
      s.dead = true;
      return { error: 'timeout', message: `No answer from the HTTP worker within ${timeoutMs} ms` };
    }
    Atomics.wait(s.flag, 0, seen, remaining);
  }
  // Earlier requests that the caller gave up on may have left their answers queued: skip them.
  for (;;) {
    const got = receiveMessageOnPort(s.port);
    if (!got) return { error: 'other', message: 'The HTTP worker signalled without an answer' };
    const msg = got.message as { id: number; result: SyncHttpResponse | SyncHttpError };
    if (msg.id === id) return msg.result;
  }
}

/** Stops the worker (it is unref'd, so this is only needed for a tidy shutdown or between tests). */
export async function closeSyncHttp(): Promise<void> {
  const s = state;
  state = undefined;
  if (!s) return;
  s.dead = true;
  s.port.close();
  await s.worker.terminate();
}
