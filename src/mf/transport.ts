/**
 * One HTTP exchange with MF Cloud Accounting API v3 (mf-api.md): the Bearer header and office_code, the
 * spacing of calls, the retries a read may take (429, one 401 after a refresh), the one-office guard
 * before anything is sent, and MF's error read and scrubbed of credentials. What is asked (reads.ts) and
 * what a write's answer means (writes.ts) live elsewhere. Every Japanese text said here: messages.ts.
 */
import {
  type ClockPort,
  HttpNotSentError,
  type HttpPort,
  type HttpRequest,
  type HttpResponse,
  HttpTransportError,
} from '../core/ports';
import { redactSecrets } from '../core/redact';
import type { AuthProvider } from './auth';
import { MfApiError, MfAuthError, MfOfficeCodeError, MfOfficeMismatchError } from './errors';
import { ClientMsg, explainMfError, explainOfficeCode } from './messages';
import { QueryBuilder, withQuery } from './query';
import { MAX_RETRY_AFTER_MS, RateLimiter, retryAfterMs } from './rate-limit';
import { scopeFor } from './scopes';

export const API_PREFIX = '/api/v3';

/** GETs retried after 429 before giving up; each waits Retry-After or a doubling backoff. */
const DEFAULT_RATE_LIMIT_RETRIES = 3;
const BACKOFF_BASE_MS = 1000;

export interface TransportOptions {
  /** e.g. https://api-accounting.moneyforward.com (without /api/v3). */
  apiBaseUrl: string;
  http: HttpPort;
  clock: ClockPort;
  auth: AuthProvider;
  /** Share one limiter between every client of an execution; by default each client spaces its own calls. */
  limiter?: RateLimiter;
  /** How many times a GET answered 429 is sent again (default 3). */
  rateLimitRetries?: number;
  /** The one-office guard (DESIGN §5), run once before the first request; it throws to stop every call. */
  officeCheck?: () => void;
}

export interface MfErrorInfo {
  code: string;
  message: string;
}

/** Longest piece of a non-JSON body quoted in an error (it may be an HTML error page). */
const MAX_QUOTED_BODY = 200;

/** MF's first `{errors:[{code, message}]}` entry; a non-JSON body falls back to `http_<status>` and its text. */
export function parseMfError(res: HttpResponse): MfErrorInfo {
  try {
    const body = JSON.parse(res.body) as { errors?: { code?: unknown; message?: unknown }[] } | null;
    const first = body?.errors?.[0];
    if (first && (typeof first.code === 'string' || typeof first.message === 'string')) {
      return {
        code: typeof first.code === 'string' && first.code !== '' ? first.code : `http_${res.status}`,
        message: typeof first.message === 'string' ? first.message : '',
      };
    }
  } catch {
    // Not JSON (a proxy page, an empty body): quote a little of the text below.
  }
  const text = (res.body ?? '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return {
    code: `http_${res.status}`,
    message: text.length > MAX_QUOTED_BODY ? `${text.slice(0, MAX_QUOTED_BODY)}…` : text,
  };
}

export function clampInt(value: number | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An answer arrived: the caller classifies it. */
export interface Sent {
  res: HttpResponse;
}

/** No answer to classify: nothing was sent (unauthorized), or it may have left and its fate is unknown. */
export type NoAnswer = { kind: 'unauthorized'; message: string } | { kind: 'unknown'; reason: string };

export class MfTransport {
  private readonly baseUrl: string;
  private readonly http: HttpPort;
  readonly clock: ClockPort;
  private readonly auth: AuthProvider;
  private readonly limiter: RateLimiter;
  private readonly rateLimitRetries: number;
  private readonly officeCheck: (() => void) | undefined;
  private officeChecked = false;
  private checkingOffice = false;
  /** The token of the last request, scrubbed from any text quoted out of a response. */
  private lastToken: string | null = null;

  constructor(opts: TransportOptions) {
    this.baseUrl = opts.apiBaseUrl.replace(/\/+$/, '');
    this.http = opts.http;
    this.clock = opts.clock;
    this.auth = opts.auth;
    this.limiter = opts.limiter ?? new RateLimiter(opts.clock);
    this.rateLimitRetries = clampInt(opts.rateLimitRetries, 0, 10, DEFAULT_RATE_LIMIT_RETRIES);
    this.officeCheck = opts.officeCheck;
  }

  /** How this client authenticates: where a refused permission is granted differs. */
  get mode(): 'apikey' | 'oauth' {
    return this.auth.officeCode ? 'apikey' : 'oauth';
  }

  // Reads

  /** A GET with the retries that are safe for a read; any other failure throws MfApiError. */
  get(path: string, query: QueryBuilder): HttpResponse {
    let refreshed = false;
    let rateRetries = 0;
    for (;;) {
      const token = this.auth.accessToken();
      let res: HttpResponse;
      try {
        res = this.sendWith(token, 'get', path, query);
      } catch (error) {
        if (error instanceof HttpTransportError) {
          const lead = error.reason === 'timeout' ? ClientMsg.timeout : ClientMsg.network;
          throw new MfApiError(`${lead}${ClientMsg.transportRetry}`, { status: null, code: error.reason });
        }
        throw error;
      }
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status === 401 && !refreshed) {
        refreshed = true;
        const failure = this.tryRefresh();
        if (failure !== null) throw new MfAuthError(failure, { status: 401, code: this.errorInfo(res).code });
        continue;
      }
      if (res.status === 429 && rateRetries < this.rateLimitRetries) {
        const wait = retryAfterMs(res.headers, this.clock.now()) ?? BACKOFF_BASE_MS * 2 ** rateRetries;
        rateRetries++;
        this.clock.sleep(Math.min(wait, MAX_RETRY_AFTER_MS));
        continue;
      }
      throw this.errorFor(res, path, refreshed);
    }
  }

  /** get() whose answer must be a JSON object. */
  getObject(path: string, query: QueryBuilder): Record<string, unknown> {
    const res = this.get(path, query);
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      throw this.badAnswer(res.status);
    }
    if (!isObject(body)) throw this.badAnswer(res.status);
    return body;
  }

  badAnswer(status: number): MfApiError {
    return new MfApiError(ClientMsg.badAnswer(status), { status, code: 'invalid_response' });
  }

  /**
   * API-key mode: GET /offices refused in a way only the office_code explains (it is the one parameter
   * sent): 400 invalid_query_parameter_value, 403 other than a disabled account or office, 409
   * no_office_found, or 401 for a token fetched just before. MF's own answer is unpublished; each is said
   * as a wrong 事業者コード (messages.ts explainOfficeCode). Null for anything else.
   */
  officeCodeRefusal(error: unknown): MfOfficeCodeError | null {
    const code = this.auth.officeCode;
    if (!code || !(error instanceof MfApiError) || error.status === null) return null;
    const { status } = error;
    const refused =
      (status === 400 && error.code === 'invalid_query_parameter_value') ||
      (status === 403 && error.code !== 'account_is_disabled' && error.code !== 'office_is_disabled') ||
      (status === 409 && error.code === 'no_office_found') ||
      (status === 401 && error instanceof MfAuthError && error.freshToken);
    if (!refused) return null;
    return new MfOfficeCodeError(explainOfficeCode(code, status, error.code), code, {
      status,
      code: error.code,
    });
  }

  /** MF's answer in Japanese, with its code in brackets (messages.ts); MF's own text stays in `detail`. */
  private errorFor(res: HttpResponse, path: string, freshToken = false): MfApiError {
    const { status } = res;
    const { code, message } = this.errorInfo(res);
    const opts = { status, code, detail: message || null };
    const text = explainMfError(status, code, message, {
      mode: this.mode,
      scope: scopeFor('get', `${API_PREFIX}${path.replace(/\?.*$/, '')}`),
    });
    if (status === 401) return new MfAuthError(text, { ...opts, freshToken });
    return new MfApiError(text, opts);
  }

  // Writes

  /**
   * One attempt of a write, never repeated here; whatever prevents knowing the answer becomes a
   * NoAnswer instead of an exception.
   */
  trySend(
    method: HttpRequest['method'],
    path: string,
    query: QueryBuilder,
    payload?: string,
  ): Sent | NoAnswer {
    let token: string;
    try {
      // The one-office guard before anything is sent: a create must never reach another office.
      this.runOfficeCheck();
      token = this.auth.accessToken();
    } catch (error) {
      // Nothing was sent: the run stops and the rows go back to 送信待ち (DESIGN §5 step 4).
      if (error instanceof MfAuthError || error instanceof MfOfficeMismatchError)
        return { kind: 'unauthorized', message: error.message };
      throw error;
    }
    try {
      return { res: this.sendWith(token, method, path, query, payload) };
    } catch (error) {
      if (error instanceof HttpTransportError) {
        return {
          kind: 'unknown',
          reason: error.reason === 'timeout' ? ClientMsg.timeout : ClientMsg.network,
        };
      }
      // Apps Script refused it before sending: the caller stops and sends it again later.
      if (error instanceof HttpNotSentError) throw error;
      // The port failed in a way it should not; the request may still have left.
      return { kind: 'unknown', reason: ClientMsg.unexpectedSend };
    }
  }

  /** null when a fresh credential is in place, else the Japanese message to report. */
  tryRefresh(): string | null {
    try {
      return this.auth.refresh() ? null : ClientMsg.refreshFailed;
    } catch (error) {
      return error instanceof MfAuthError ? error.message : ClientMsg.refreshFailed;
    }
  }

  /** MF's error with anything credential-like scrubbed: its text ends up in メモ and ログ. */
  errorInfo(res: HttpResponse): MfErrorInfo {
    const info = parseMfError(res);
    return {
      code: redactSecrets(info.code, [this.lastToken]),
      message: redactSecrets(info.message, [this.lastToken]),
    };
  }

  // The exchange itself

  /** The one-office guard, before the first request (its own office() call passes straight through). */
  runOfficeCheck(): void {
    if (!this.officeCheck || this.officeChecked || this.checkingOffice) return;
    this.checkingOffice = true;
    try {
      this.officeCheck();
      this.officeChecked = true;
    } finally {
      this.checkingOffice = false;
    }
  }

  private sendWith(
    token: string,
    method: HttpRequest['method'],
    path: string,
    query: QueryBuilder,
    payload?: string,
  ): HttpResponse {
    this.runOfficeCheck();
    this.lastToken = token;
    const fullQuery = new QueryBuilder();
    const text = query.toString();
    // API-key tokens must name the office on every call; OAuth ignores it (mf-api.md §2.2).
    if (this.auth.officeCode) fullQuery.set('office_code', this.auth.officeCode);
    const url = withQuery(withQuery(`${this.baseUrl}${API_PREFIX}${path}`, text), fullQuery);
    const request: HttpRequest = {
      method,
      url,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    };
    if (payload !== undefined) {
      request.headers['Content-Type'] = 'application/json';
      request.contentType = 'application/json';
      request.payload = payload;
    }
    this.limiter.acquire();
    return this.http.send(request);
  }
}
