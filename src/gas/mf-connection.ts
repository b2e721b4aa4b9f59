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

export const NOT_CONNECTED =
  'MFに接続されていません。スクリプトプロパティに MF_API_KEY と MF_OFFICE_CODE（APIキー方式）、または MF_CLIENT_ID と MF_CLIENT_SECRET（OAuth方式）を設定してください。';

function authProvider(): AuthProvider {
  const http = urlFetchPort();
  const clock = scriptClock();
  const apiKey = property(PROPERTY.apiKey);
  const officeCode = property(PROPERTY.officeCode);
  if (apiKey && officeCode) {
    return new ApiKeyAuth({
      authBaseUrl: property(PROPERTY.authBaseUrl) ?? DEFAULT_AUTH_BASE_URL,
      apiKey,
      officeCode,
      http,
      clock,
      cache: scriptStore(),
    });
  }
  if (property(PROPERTY.clientId) && property(PROPERTY.clientSecret)) return new OAuthAuth(mfOAuthService());
  throw new MfAuthError(NOT_CONNECTED, { status: null, code: 'not_connected' });
}

export function mfClient(): MfClient {
  const clock = scriptClock();
  return new MfClient({
    apiBaseUrl: property(PROPERTY.apiBaseUrl) ?? DEFAULT_API_BASE_URL,
    http: urlFetchPort(),
    clock,
    auth: authProvider(),
    limiter: new RateLimiter(clock, MF_MIN_INTERVAL_MS),
  });
}
