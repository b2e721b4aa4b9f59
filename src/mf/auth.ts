import {
  type ClockPort,
  HttpNotSentError,
  type HttpPort,
  type HttpResponse,
  HttpTransportError,
  type KeyValuePort,
} from '../core/ports';
import { MfAuthError } from './errors';
// Every Japanese text said here is AuthMsg in messages.ts.
import { AuthMsg } from './messages';
import { retryAfterMs } from './rate-limit';

/**
 * Where the MF client gets its bearer token. Two modes (DESIGN §7): an API key exchanged for a one-hour
 * token (officeCode set, sent as `office_code` on every call), or the Apps Script OAuth2 library.
 */
export interface AuthProvider {
  /** A token to send now; throws MfAuthError (Japanese message, no secret) when none can be had. */
  accessToken(): string;
  /** Forgets the current token so the next accessToken() does not reuse it. */
  invalidate(): void;
  /** API-key mode: the office every call must name. OAuth: null (the token is tied to one office). */
  readonly officeCode: string | null;
  /**
   * Obtains a fresh credential after MF answered 401. True when one is in place; false, or MfAuthError
   * with a message saying what to do, when not.
   */
  refresh(): boolean;
}

/** Property holding the exchanged token, shared by every execution of the script. */
export const DEFAULT_TOKEN_CACHE_KEY = 'MF_TOKEN_CACHE';
/** Stop using a token this long before MF says it expires, so a call never starts on a dying token. */
export const TOKEN_EXPIRY_MARGIN_MS = 60_000;
/** The exchange answers expires_in 3600 [O S4]; assumed when the field is missing. */
const DEFAULT_EXPIRES_IN_S = 3600;
/** The exchange allows 100 calls a minute per key and then answers 429 with Retry-After [O S4]. */
const EXCHANGE_RATE_RETRIES = 2;

interface CachedToken {
  token: string;
  /** Epoch ms after which the token must not be used (MF's expiry minus the margin). */
  usableUntil: number;
  officeCode: string;
  /** Fingerprint of the API key the token came from, so a changed key never reuses an old token. */
  keyId: string;
}

/**
 * FNV-1a (32 bit) of the key: tells keys apart in the cache without storing the key or anything from
 * which it could be recovered.
 */
function keyFingerprint(key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

function parseCached(text: string | null): CachedToken | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<CachedToken> | null;
    if (
      value &&
      typeof value.token === 'string' &&
      typeof value.usableUntil === 'number' &&
      typeof value.officeCode === 'string' &&
      typeof value.keyId === 'string'
    ) {
      return value as CachedToken;
    }
  } catch {
    // A corrupt entry is simply not used; the next exchange overwrites it.
  }
  return null;
}

export interface ApiKeyAuthOptions {
  /** e.g. https://api.biz.moneyforward.com */
  authBaseUrl: string;
  apiKey: string;
  officeCode: string;
  http: HttpPort;
  clock: ClockPort;
  /** Shared across executions (script or user properties) so that they reuse one token. */
  cache: KeyValuePort;
  cacheKey?: string;
}

/** The token endpoint refused the client itself: the id, the secret or the authentication method is wrong. */
function isInvalidClient(error: unknown): boolean {
  const text = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return /\binvalid_client\b/.test(text);
}

function errorCode(res: HttpResponse): string {
  try {
    const body = JSON.parse(res.body) as { errors?: { code?: unknown }[]; error?: unknown };
    const code = body?.errors?.[0]?.code ?? body?.error;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,80}$/.test(code)) return code;
  } catch {
    // Not JSON: fall through to the status.
  }
  return `http_${res.status}`;
}

/**
 * API-key mode (mf-api.md §2.2): `POST {authBaseUrl}/auth/exchange` with `Authorization: Bearer <key>`
 * gives `{access_token, expires_in}`. The token is cached in `cache` until a minute before it expires so
 * that all executions share it instead of each spending an exchange.
 */
export class ApiKeyAuth implements AuthProvider {
  readonly officeCode: string;
  private readonly authBaseUrl: string;
  private readonly apiKey: string;
  private readonly http: HttpPort;
  private readonly clock: ClockPort;
  private readonly cache: KeyValuePort;
  private readonly cacheKey: string;
  private readonly keyId: string;
  private current: CachedToken | null = null;

  constructor(opts: ApiKeyAuthOptions) {
    this.authBaseUrl = opts.authBaseUrl.replace(/\/+$/, '');
    this.apiKey = (opts.apiKey ?? '').trim();
    this.officeCode = (opts.officeCode ?? '').trim();
    this.http = opts.http;
    this.clock = opts.clock;
    this.cache = opts.cache;
    this.cacheKey = opts.cacheKey ?? DEFAULT_TOKEN_CACHE_KEY;
    this.keyId = keyFingerprint(this.apiKey);
  }

  accessToken(): string {
    if (this.current && this.usable(this.current)) return this.current.token;
    const cached = this.readCache();
    if (cached) {
      this.current = cached;
      return cached.token;
    }
    return this.exchange().token;
  }

  invalidate(): void {
    const dropped = this.current;
    this.current = null;
    // Only drop the shared entry if it still holds our token: another execution may already have put a
    // newer one there, which is good for everybody.
    const cached = parseCached(this.cache.get(this.cacheKey));
    if (cached && (!dropped || cached.token === dropped.token)) this.cache.delete(this.cacheKey);
  }

  refresh(): boolean {
    const stale = this.current?.token ?? null;
    this.invalidate();
    const cached = this.readCache();
    if (cached && cached.token !== stale) {
      this.current = cached;
      return true;
    }
    this.exchange();
    return true;
  }

  private usable(entry: CachedToken): boolean {
    return (
      entry.officeCode === this.officeCode &&
      entry.keyId === this.keyId &&
      this.clock.now() < entry.usableUntil
    );
  }

  private readCache(): CachedToken | null {
    const cached = parseCached(this.cache.get(this.cacheKey));
    return cached && this.usable(cached) ? cached : null;
  }

  private exchange(): CachedToken {
    if (this.apiKey === '') throw new MfAuthError(AuthMsg.noKey, { status: null, code: 'missing_api_key' });
    if (this.officeCode === '') {
      throw new MfAuthError(AuthMsg.noOffice, { status: null, code: 'missing_office_code' });
    }
    let res: HttpResponse;
    for (let attempt = 0; ; attempt++) {
      try {
        res = this.http.send({
          method: 'post',
          url: `${this.authBaseUrl}/auth/exchange`,
          headers: { Authorization: `Bearer ${this.apiKey}`, Accept: 'application/json' },
        });
      } catch (error) {
        // Refused by Apps Script before sending: its message is our own Japanese and quotes no key.
        if (error instanceof HttpNotSentError) throw error;
        if (error instanceof HttpTransportError) {
          throw new MfAuthError(AuthMsg.exchangeTransport(error.reason === 'timeout'), {
            status: null,
            code: error.reason,
          });
        }
        // Whatever else the port threw may quote the request; never let it carry the key outward.
        throw new MfAuthError(AuthMsg.exchangeTransport(false), { status: null, code: 'network' });
      }
      if (res.status === 429 && attempt < EXCHANGE_RATE_RETRIES) {
        this.clock.sleep(retryAfterMs(res.headers, this.clock.now()) ?? 1000 * 2 ** attempt);
        continue;
      }
      break;
    }
    if (res.status >= 200 && res.status < 300) {
      let body: { access_token?: unknown; expires_in?: unknown } | null = null;
      try {
        body = JSON.parse(res.body);
      } catch {
        body = null;
      }
      const token = body?.access_token;
      if (typeof token !== 'string' || token === '') {
        throw new MfAuthError(AuthMsg.exchangeBadAnswer, { status: res.status, code: 'invalid_response' });
      }
      const expiresIn =
        typeof body?.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : DEFAULT_EXPIRES_IN_S;
      const entry: CachedToken = {
        token,
        usableUntil: this.clock.now() + expiresIn * 1000 - TOKEN_EXPIRY_MARGIN_MS,
        officeCode: this.officeCode,
        keyId: this.keyId,
      };
      this.current = entry;
      this.cache.set(this.cacheKey, JSON.stringify(entry));
      return entry;
    }
    const code = errorCode(res);
    if (res.status === 401 || res.status === 403) {
      throw new MfAuthError(AuthMsg.invalidKey, { status: res.status, code });
    }
    if (res.status === 429) throw new MfAuthError(AuthMsg.exchangeBusy, { status: 429, code });
    if (res.status >= 500)
      throw new MfAuthError(AuthMsg.exchangeServer(res.status), { status: res.status, code });
    throw new MfAuthError(AuthMsg.exchangeRejected(res.status, code), { status: res.status, code });
  }
}

/**
 * The part of the Apps Script OAuth2 library's service object (apps-script-oauth2) that kicho uses.
 * Structural, so src/mf needs no Apps Script global.
 */
export interface OAuthServiceLike {
  getAccessToken(): string;
  hasAccess(): boolean;
  refresh(): void;
  /** The error of the last automatic refresh in this execution, if any. */
  getLastError?(): unknown;
}

/**
 * OAuth mode: the library stores and refreshes tokens (in user properties). MF rotates the refresh token
 * on every refresh (mf-api.md §2.1), which the library handles by saving the new pair.
 */
export class OAuthAuth implements AuthProvider {
  readonly officeCode = null;

  constructor(private readonly service: OAuthServiceLike) {}

  accessToken(): string {
    let access = false;
    try {
      // hasAccess() refreshes an expired token itself and may throw while doing so.
      access = this.service.hasAccess();
    } catch (error) {
      if (isInvalidClient(error))
        throw new MfAuthError(AuthMsg.invalidClient, { status: 401, code: 'invalid_client' });
      throw new MfAuthError(AuthMsg.oauthFailed, { status: null, code: 'oauth_refresh_failed' });
    }
    if (!access) {
      // The library keeps the refresh's failure instead of throwing it: a refused client says so.
      if (isInvalidClient(this.service.getLastError?.()))
        throw new MfAuthError(AuthMsg.invalidClient, { status: 401, code: 'invalid_client' });
      throw new MfAuthError(AuthMsg.oauthNoAccess, { status: null, code: 'oauth_no_access' });
    }
    let token: string;
    try {
      token = this.service.getAccessToken();
    } catch {
      throw new MfAuthError(AuthMsg.oauthFailed, { status: null, code: 'oauth_no_token' });
    }
    if (!token) throw new MfAuthError(AuthMsg.oauthNoAccess, { status: null, code: 'oauth_no_access' });
    return token;
  }

  /** The library keeps no per-call state to drop; a refresh() replaces the stored token. */
  invalidate(): void {}

  refresh(): boolean {
    try {
      this.service.refresh();
      return this.service.hasAccess();
    } catch (error) {
      // The library's own error text may quote the token endpoint's answer; report ours instead.
      if (isInvalidClient(error))
        throw new MfAuthError(AuthMsg.invalidClient, { status: 401, code: 'invalid_client' });
      throw new MfAuthError(AuthMsg.oauthFailed, { status: 401, code: 'oauth_refresh_failed' });
    }
  }
}
