/**
 * Builds the MF client from the properties (DESIGN §7): API-key mode when MF_API_KEY and
 * MF_OFFICE_CODE are set, else OAuth mode when MF_CLIENT_ID and MF_CLIENT_SECRET are.
 */

import { MF_MIN_INTERVAL_MS } from '../core/budget';
import { ApiKeyAuth, type AuthProvider, OAuthAuth } from '../mf/auth';
import { MfClient } from '../mf/client';
import { MfAuthError } from '../mf/errors';
import { RateLimiter } from '../mf/rate-limit';
import { scriptClock } from './clock';
import { urlFetchPort } from './http';
import { mfOAuthService } from './oauth';
import { DEFAULT_API_BASE_URL, DEFAULT_AUTH_BASE_URL, PROPERTY, property, scriptStore } from './properties';

export const NOT_CONNECTED = 'MFに接続されていません。メニュー「記帳 > MFに接続」から接続してください。';

/** API-key auth for a key and office code (from properties, or typed in the connection dialog). */
export function apiKeyAuth(apiKey: string, officeCode: string): AuthProvider {
  return new ApiKeyAuth({
    authBaseUrl: property(PROPERTY.authBaseUrl) ?? DEFAULT_AUTH_BASE_URL,
    apiKey,
    officeCode,
    http: urlFetchPort(),
    clock: scriptClock(),
    cache: scriptStore(),
  });
}

/** Which way kicho connects to MF, from the properties. */
export function connectionMode(): 'apikey' | 'oauth' | 'none' {
  if (property(PROPERTY.apiKey) && property(PROPERTY.officeCode)) return 'apikey';
  if (property(PROPERTY.clientId) && property(PROPERTY.clientSecret)) return 'oauth';
  return 'none';
}

function authProvider(): AuthProvider {
  const mode = connectionMode();
  if (mode === 'apikey')
    return apiKeyAuth(property(PROPERTY.apiKey) ?? '', property(PROPERTY.officeCode) ?? '');
  if (mode === 'oauth') return new OAuthAuth(mfOAuthService());
  throw new MfAuthError(NOT_CONNECTED, { status: null, code: 'not_connected' });
}

export function mfClient(auth: AuthProvider = authProvider()): MfClient {
  const clock = scriptClock();
  return new MfClient({
    apiBaseUrl: property(PROPERTY.apiBaseUrl) ?? DEFAULT_API_BASE_URL,
    http: urlFetchPort(),
    clock,
    auth,
    limiter: new RateLimiter(clock, MF_MIN_INTERVAL_MS),
  });
}
