/**
 * MF OAuth through the OAuth2 library for Apps Script (manifest dependency, userSymbol OAuth2).
 * Tokens live in the user's properties: each person connects with their own MF account.
 *
 * MF's App Portal makes each app choose how it authenticates at the token endpoint when it is registered
 * (client_secret_basic or client_secret_post, mf-api.md §2.1, §15), and refuses the other. The library
 * always puts client_id and client_secret in the token request's body (Service_.fetchToken_); for
 * client_secret_basic kicho sends the pair in an HTTP Basic header through the library's token headers
 * and takes the secret out of the body with its payload handler, so only one method is used (RFC 6749 §2.3).
 */
import { KICHO_SCOPES } from '../mf/scopes';
import { DEFAULT_AUTH_BASE_URL, PROPERTY, property } from './properties';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post'];

/** The method saved with the client (MF_CLIENT_AUTH_METHOD); the library's own default when unset. */
export function clientAuthMethod(): ClientAuthMethod {
  const saved = property(PROPERTY.clientAuthMethod);
  return saved === 'client_secret_basic' ? 'client_secret_basic' : 'client_secret_post';
}

/** RFC 6749 §2.3.1: the id and the secret are form-encoded before they are joined and base64-encoded. */
function formEncode(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}

export function basicAuthorization(clientId: string, clientSecret: string): string {
  return `Basic ${Utilities.base64Encode(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`;
}

export function mfOAuthService(): GoogleAppsScriptOAuth2.OAuth2Service {
  const authBase = (property(PROPERTY.authBaseUrl) ?? DEFAULT_AUTH_BASE_URL).replace(/\/+$/, '');
  const clientId = property(PROPERTY.clientId) ?? '';
  const clientSecret = property(PROPERTY.clientSecret) ?? '';
  const service = OAuth2.createService('mf')
    .setAuthorizationBaseUrl(`${authBase}/authorize`)
    .setTokenUrl(`${authBase}/token`)
    .setClientId(clientId)
    .setClientSecret(clientSecret)
    .setCallbackFunction('authCallback')
    .setPropertyStore(PropertiesService.getUserProperties())
    .setCache(CacheService.getUserCache())
    .setLock(LockService.getUserLock())
    .setScope(KICHO_SCOPES.join(' '));
  if (clientAuthMethod() === 'client_secret_basic') {
    service.setTokenHeaders({ Authorization: basicAuthorization(clientId, clientSecret) });
    service.setTokenPayloadHandler((payload) => {
      const { client_secret: _secret, ...body } = payload;
      return body;
    });
  }
  return service;
}
