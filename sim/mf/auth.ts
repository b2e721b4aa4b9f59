// The two ways into the API (mf-api.md §2): an API key exchanged at /auth/exchange for a one-hour token,
// and the OAuth 2.0 authorization-code flow at /authorize + /token with rotating refresh tokens.
// Expiry follows the injected clock so tests can jump past it.

import { createHash } from 'node:crypto';
import { ApiError, errorResponse, jsonResponse, Messages } from './errors';
import type { Random } from './random';
import type { ParsedRequest } from './request';
import type { HttpResponse } from './types';

export type AuthMode = 'apiKey' | 'oauth';

export interface Principal {
  mode: AuthMode;
  officeCode: string;
  /** OAuth tokens carry the scopes granted at /authorize; API-key tokens may do everything. */
  scopes: ReadonlySet<string> | 'all';
}

export const SCOPES = [
  'mfc/accounting/offices.read',
  'mfc/accounting/accounts.read',
  'mfc/accounting/departments.read',
  'mfc/accounting/taxes.read',
  'mfc/accounting/trade_partners.read',
  'mfc/accounting/trade_partners.write',
  'mfc/accounting/journal.read',
  'mfc/accounting/journal.write',
  'mfc/accounting/voucher.write',
  'mfc/accounting/report.read',
  'mfc/accounting/connected_account.read',
  'mfc/accounting/transaction.read',
  'mfc/accounting/transaction.write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** MF's access tokens live about an hour [O S3, S5, S9]; the exchange response says 3600. */
export const ACCESS_TOKEN_SECONDS = 3600;
/** RFC 6749 recommends short-lived codes; ten minutes is the usual ceiling. */
const CODE_LIFETIME_MS = 600_000;
/** The API-key exchange allows 100 calls per minute per key, then 429 with Retry-After [O S4]. */
const EXCHANGE_LIMIT_PER_MINUTE = 100;

interface AccessToken {
  principal: Principal;
  expiresAt: number;
}

interface RefreshGrant {
  clientId: string;
  principal: Principal;
  accessToken: string;
}

interface AuthorizationCode {
  clientId: string;
  redirectUri: string;
  principal: Principal;
  expiresAt: number;
  codeChallenge: string | null;
}

/**
 * How an OAuth app authenticates at the token endpoint, chosen once when it is registered in MF's App
 * Portal (CLIENT_SECRET_BASIC or CLIENT_SECRET_POST; mf-api.md §2.1, §15). The other method is refused.
 */
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface OAuthClient {
  secret: string;
  authMethod: ClientAuthMethod;
}

export interface AuthConfig {
  now: () => number;
  random: Random;
  /** API key → office code. */
  apiKeys: Record<string, string>;
  /** OAuth client_id → its secret and registered client authentication method. */
  oauthClients: Record<string, OAuthClient>;
  /** The office an OAuth user picks on the consent screen (changeable with `consentOffice`). */
  officeCode: string;
}

function oauthError(status: number, error: string, description: string): HttpResponse {
  return jsonResponse(status, { error, error_description: description });
}

export class AuthServer {
  private readonly accessTokens = new Map<string, AccessToken>();
  private readonly refreshGrants = new Map<string, RefreshGrant>();
  private readonly codes = new Map<string, AuthorizationCode>();
  private readonly exchangeTimes = new Map<string, number[]>();

  /** The office the next consent picks. */
  consentOffice: string;

  constructor(private readonly config: AuthConfig) {
    this.consentOffice = config.officeCode;
  }

  reset(): void {
    this.accessTokens.clear();
    this.refreshGrants.clear();
    this.codes.clear();
    this.exchangeTimes.clear();
  }

  /** The principal behind a Bearer token, or a 401 ApiError. */
  authenticate(req: ParsedRequest): Principal {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new ApiError(401, 'no_authentication_information', Messages.noAuthorization);
    }
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const record = token === undefined ? undefined : this.accessTokens.get(token);
    if (!record || this.config.now() >= record.expiresAt) {
      throw new ApiError(401, 'access_token_is_not_active_or_invalid', Messages.tokenInvalid);
    }
    return record.principal;
  }

  /** A token straight from the store, for tests that are not about authentication. */
  issueAccessToken(mode: AuthMode = 'apiKey'): string {
    const officeCode =
      mode === 'apiKey'
        ? (Object.values(this.config.apiKeys)[0] ?? this.config.officeCode)
        : this.config.officeCode;
    return this.newAccessToken({ mode, officeCode, scopes: 'all' });
  }

  /** POST /auth/exchange with `Authorization: Bearer <api key>` → `{access_token, expires_in}`. */
  exchange(req: ParsedRequest): HttpResponse {
    if (req.method !== 'POST') return errorResponse(405, 'method_not_allowed', Messages.methodNotAllowed);
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === '') {
      return errorResponse(401, 'no_authentication_information', Messages.noAuthorization);
    }
    const key = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const officeCode = key === undefined ? undefined : this.config.apiKeys[key];
    if (key === undefined || officeCode === undefined) {
      return errorResponse(401, 'access_token_is_not_active_or_invalid', 'The API key is not valid.');
    }
    const now = this.config.now();
    const recent = (this.exchangeTimes.get(key) ?? []).filter((t) => t > now - 60_000);
    if (recent.length >= EXCHANGE_LIMIT_PER_MINUTE) {
      const retryAfter = Math.max(1, Math.ceil(((recent[0] ?? now) + 60_000 - now) / 1000));
      return errorResponse(429, 'too_many_requests', Messages.tooManyRequests, {
        'Retry-After': String(retryAfter),
      });
    }
    recent.push(now);
    this.exchangeTimes.set(key, recent);
    const accessToken = this.newAccessToken({ mode: 'apiKey', officeCode, scopes: 'all' });
    return jsonResponse(200, { access_token: accessToken, expires_in: ACCESS_TOKEN_SECONDS });
  }

  /** GET /authorize: the consent screen, approved at once for the configured office. */
  authorize(req: ParsedRequest): HttpResponse {
    if (req.method !== 'GET') return errorResponse(405, 'method_not_allowed', Messages.methodNotAllowed);
    const q = req.query;
    const clientId = q.all('client_id')[0];
    const redirectUri = q.all('redirect_uri')[0];
    // Without a known client and a redirect target the server must not redirect (RFC 6749 §4.1.2.1).
    if (clientId === undefined || this.config.oauthClients[clientId] === undefined) {
      return oauthError(400, 'invalid_client', 'Unknown client_id.');
    }
    if (redirectUri === undefined || !/^https?:\/\//.test(redirectUri)) {
      return oauthError(400, 'invalid_request', 'redirect_uri is required.');
    }
    const state = q.all('state')[0];
    const redirect = (params: Record<string, string>): HttpResponse => {
      const query = new URLSearchParams(params);
      if (state !== undefined) query.set('state', state);
      const location = `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query.toString()}`;
      return { status: 302, headers: { Location: location }, body: '' };
    };
    if (q.all('response_type')[0] !== 'code') {
      return redirect({ error: 'unsupported_response_type' });
    }
    const requested = (q.all('scope')[0] ?? '').split(' ').filter((s) => s !== '');
    if (requested.some((scope) => !(SCOPES as readonly string[]).includes(scope))) {
      return redirect({ error: 'invalid_scope' });
    }
    const challenge = q.all('code_challenge')[0] ?? null;
    if (challenge !== null && q.all('code_challenge_method')[0] !== 'S256') {
      return redirect({ error: 'invalid_request', error_description: 'Only S256 is supported.' });
    }
    const code = `fake-mf-code-${this.config.random.hex(16)}`;
    this.codes.set(code, {
      clientId,
      redirectUri,
      principal: {
        mode: 'oauth',
        officeCode: this.consentOffice,
        scopes: new Set(requested.length > 0 ? requested : SCOPES),
      },
      expiresAt: this.config.now() + CODE_LIFETIME_MS,
      codeChallenge: challenge,
    });
    return redirect({ code });
  }

  /** POST /token, form-encoded, client authenticated by HTTP Basic or by body parameters. */
  token(req: ParsedRequest): HttpResponse {
    if (req.method !== 'POST') return errorResponse(405, 'method_not_allowed', Messages.methodNotAllowed);
    const form = new URLSearchParams(req.body);
    const client = this.authenticateClient(req, form);
    if ('error' in client) return client.error;
    const clientId = client.id;
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') return this.redeemCode(clientId, form);
    if (grantType === 'refresh_token') return this.refresh(clientId, form);
    return oauthError(400, 'unsupported_grant_type', `Unsupported grant_type: ${grantType ?? '(none)'}.`);
  }

  /**
   * The client, authenticated the one way its registration allows (RFC 6749 §2.3: a client uses one method
   * per request). The other method, or both at once, is invalid_client.
   */
  private authenticateClient(
    req: ParsedRequest,
    form: URLSearchParams,
  ): { id: string } | { error: HttpResponse } {
    const refused = (description: string) => ({ error: oauthError(401, 'invalid_client', description) });
    const bodySecret = form.get('client_secret') ?? undefined;
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let id = form.get('client_id') ?? undefined;
    let secret = bodySecret;
    if (basic !== undefined) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return refused('Client authentication failed.');
      // RFC 6749 §2.3.1: id and secret are form-encoded before being joined.
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    }
    const client = id === undefined ? undefined : this.config.oauthClients[id];
    if (id === undefined || secret === undefined || !client) return refused('Client authentication failed.');
    const used: ClientAuthMethod = basic !== undefined ? 'client_secret_basic' : 'client_secret_post';
    if (basic !== undefined && bodySecret !== undefined) {
      return refused('The client used more than one authentication method.');
    }
    if (used !== client.authMethod) {
      return refused(`The client is registered for ${client.authMethod}, but used ${used}.`);
    }
    if (client.secret !== secret) return refused('Client authentication failed.');
    return { id };
  }

  private redeemCode(clientId: string, form: URLSearchParams): HttpResponse {
    const code = form.get('code');
    if (code === null || form.get('redirect_uri') === null) {
      return oauthError(400, 'invalid_request', 'code and redirect_uri are required.');
    }
    const grant = this.codes.get(code);
    // A code works once, for the client and redirect_uri it was issued to.
    this.codes.delete(code);
    if (
      !grant ||
      grant.clientId !== clientId ||
      grant.redirectUri !== form.get('redirect_uri') ||
      this.config.now() >= grant.expiresAt
    ) {
      return oauthError(400, 'invalid_grant', 'The authorization code is invalid or expired.');
    }
    if (grant.codeChallenge !== null) {
      const verifier = form.get('code_verifier') ?? '';
      const computed = createHash('sha256').update(verifier).digest('base64url');
      if (computed !== grant.codeChallenge)
        return oauthError(400, 'invalid_grant', 'PKCE verification failed.');
    }
    return this.issuePair(clientId, grant.principal);
  }

  private refresh(clientId: string, form: URLSearchParams): HttpResponse {
    const refreshToken = form.get('refresh_token');
    const grant = refreshToken === null ? undefined : this.refreshGrants.get(refreshToken);
    if (refreshToken === null || !grant || grant.clientId !== clientId) {
      return oauthError(400, 'invalid_grant', 'The refresh token is invalid.');
    }
    // Each refresh invalidates the old pair [O S9]: two processes sharing one refresh token collide.
    this.refreshGrants.delete(refreshToken);
    this.accessTokens.delete(grant.accessToken);
    return this.issuePair(clientId, grant.principal);
  }

  private issuePair(clientId: string, principal: Principal): HttpResponse {
    const accessToken = this.newAccessToken(principal);
    const refreshToken = `fake-mf-rt-${this.config.random.hex(16)}`;
    this.refreshGrants.set(refreshToken, { clientId, principal, accessToken });
    const scope = principal.scopes === 'all' ? SCOPES.join(' ') : [...principal.scopes].join(' ');
    return jsonResponse(200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refreshToken,
      scope,
    });
  }

  private newAccessToken(principal: Principal): string {
    const token = `fake-mf-at-${this.config.random.hex(16)}`;
    this.accessTokens.set(token, { principal, expiresAt: this.config.now() + ACCESS_TOKEN_SECONDS * 1000 });
    return token;
  }
}
