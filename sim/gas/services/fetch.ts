/**
 * UrlFetchApp on the world side: builds the HTTP request as Apps Script would, routes it, and turns
 * failures into Apps Script's exceptions (reference/gas-platform.md §3.3).
 */

import type { HttpRequest, HttpResponse } from '../../mf/types';
import { GAS_MESSAGES, GasError } from '../errors';
import { base64EncodeBytes, encodeString, fromSignedBytes } from '../lib/bytes';
import { isLoopbackHost, syncHttpRequest } from '../lib/sync-http';
import { method, type ServiceContext, type ServiceTable } from './method';

/** Apps Script gives up on a request after about 60 s (not configurable). */
export const FETCH_DEADLINE_MS = 60_000;

export interface FetchParams {
  url: string;
  method?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** A string, signed bytes ({ bytes }), or form fields. */
  payload?: string | { bytes: number[] } | Record<string, unknown>;
  muteHttpExceptions?: boolean;
  followRedirects?: boolean;
  validateHttpsCertificates?: boolean;
  escaping?: boolean;
}

export interface FetchReply {
  status: number;
  headers: Record<string, string | string[]>;
  /** Body as base64; the guest decodes text itself (UTF-8) or asks for another charset. */
  body: string;
}

function formEncode(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

function buildRequest(p: FetchParams): HttpRequest & { bodyBytes?: Uint8Array } {
  const methodName = (p.method ?? 'get').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.headers ?? {})) headers[k] = String(v);
  let body: string | undefined;
  let bodyBytes: Uint8Array | undefined;
  if (p.payload !== undefined && p.payload !== null && methodName !== 'GET' && methodName !== 'DELETE') {
    if (typeof p.payload === 'string') body = p.payload;
    else if ('bytes' in p.payload && Array.isArray(p.payload.bytes))
      bodyBytes = fromSignedBytes(p.payload.bytes);
    else body = formEncode(p.payload);
    headers['Content-Type'] = p.contentType ?? 'application/x-www-form-urlencoded';
  }
  if (bodyBytes) body = Buffer.from(bodyBytes).toString('utf8');
  return { method: methodName, url: p.url, headers, body, bodyBytes };
}

/** V8 Apps Script names only scheme and host in the HTTP error message. */
function origin(url: string): string {
  const m = /^([a-z]+:\/\/[^/?#]+)/i.exec(url);
  return m ? m[1] : url;
}

function truncatedBody(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}

function fetchOne(ctx: ServiceContext, p: FetchParams): FetchReply {
  const { world, exec } = ctx;
  if (exec.kind === 'simple') {
    throw new GasError(
      'You do not have permission to call UrlFetchApp.fetch. Required permissions: https://www.googleapis.com/auth/script.external_request',
    );
  }
  if (typeof p.url !== 'string' || !/^https?:\/\//i.test(p.url))
    throw new GasError(`Invalid argument: ${p.url}`);
  const req = buildRequest(p);
  const host = new URL(req.url).hostname;
  // Refusals before anything leaves: the day's calls are spent, or the bandwidth throttle is on.
  const now = world.clock.now();
  if (world.quotas.left(exec.user, 'urlfetch', now) <= 0) throw new GasError(GAS_MESSAGES.urlfetchQuota);
  if (world.fetch.bandwidthExceeded > 0) {
    world.fetch.bandwidthExceeded -= 1;
    throw new GasError(GAS_MESSAGES.bandwidth(req.url));
  }
  world.quotas.use(exec.user, 'urlfetch', 1, now);
  const record = {
    exec: exec.id,
    method: req.method,
    url: req.url,
    headers: req.headers,
    body: req.body,
    heldScriptLock: world.locks.holder('script') === exec.id,
  };
  world.fetch.log.push(record);
  const handler = world.fetch.handlerFor(host);
  let res: HttpResponse;
  if (handler) {
    world.clock.advance(world.latency.urlFetch);
    res = handler({ method: req.method, url: req.url, headers: req.headers, body: req.body });
  } else if (world.fetch.allowLoopback && isLoopbackHost(host)) {
    const out = syncHttpRequest({
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: req.bodyBytes ?? req.body,
      timeoutMs: FETCH_DEADLINE_MS,
    });
    world.clock.advance(world.latency.urlFetch);
    if ('error' in out) {
      Object.assign(record, { error: out.error });
      if (out.error === 'timeout') throw timeout(ctx, req.url);
      throw new GasError(`${out.error === 'dns' ? 'DNS error' : 'Address unavailable'}: ${req.url}`);
    }
    const fault = out.headers['x-fake-mf-fault'];
    const text = Buffer.from(out.body).toString('utf8');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(out.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    res = {
      status: out.status,
      headers,
      body: text,
      fault: fault === 'timeout' || fault === 'unreachable' ? fault : undefined,
    };
  } else {
    world.clock.advance(world.latency.urlFetch);
    Object.assign(record, { error: 'dns' });
    throw new GasError(`DNS error: ${req.url}`);
  }
  if (res.fault === 'timeout') {
    Object.assign(record, { error: 'timeout' });
    throw timeout(ctx, req.url);
  }
  if (res.fault === 'unreachable') {
    Object.assign(record, { error: 'unreachable' });
    throw new GasError(`Address unavailable: ${req.url}`);
  }
  Object.assign(record, { status: res.status });
  if (res.status >= 400 && !p.muteHttpExceptions) {
    throw new GasError(
      `Request failed for ${origin(req.url)} returned code ${res.status}. Truncated server response: ${truncatedBody(res.body)} (use muteHttpExceptions option to examine full response)`,
    );
  }
  return {
    status: res.status,
    headers: res.headers,
    body: base64EncodeBytes(encodeString(res.body, 'UTF-8')),
  };
}

/** A timed-out request spent the whole deadline; its server-side outcome is unknown. */
function timeout(ctx: ServiceContext, url: string): GasError {
  ctx.world.clock.advance(FETCH_DEADLINE_MS - ctx.world.latency.urlFetch);
  return new GasError(`Timeout: ${url}`);
}

export const FETCH_SERVICE: ServiceTable = {
  fetch: method('fetch', (ctx, p: FetchParams) => fetchOne(ctx, p)),
  /** One failing request makes the whole call throw (reference/gas-platform.md §3.4). */
  fetchAll: method('fetch', (ctx, list: FetchParams[]) => {
    ctx.exec.counters.urlFetches += Math.max(0, list.length - 1);
    return list.map((p) => fetchOne(ctx, p));
  }),
  /** What would be sent, without sending (UrlFetchApp.getRequest). */
  getRequest: method('free', (_ctx, p: FetchParams) => {
    const req = buildRequest(p);
    return { url: req.url, method: req.method.toLowerCase(), headers: req.headers, payload: req.body ?? '' };
  }),
};
