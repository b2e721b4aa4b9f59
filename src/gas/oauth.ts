/**
 * MF OAuth through the OAuth2 library for Apps Script (manifest dependency, userSymbol OAuth2).
 * Tokens live in the user's properties: each person connects with their own MF account.
 */
import { DEFAULT_AUTH_BASE_URL, PROPERTY, property } from './properties';

const SCOPES = [
  'mfc/accounting/offices.read',
  'mfc/accounting/accounts.read',
  'mfc/accounting/taxes.read',
  'mfc/accounting/trade_partners.read',
  'mfc/accounting/connected_account.read',
  'mfc/accounting/transaction.read',
  'mfc/accounting/journal.read',
  'mfc/accounting/journal.write',
];

export function mfOAuthService(): GoogleAppsScriptOAuth2.OAuth2Service {
  const authBase = (property(PROPERTY.authBaseUrl) ?? DEFAULT_AUTH_BASE_URL).replace(/\/+$/, '');
  return OAuth2.createService('mf')
    .setAuthorizationBaseUrl(`${authBase}/authorize`)
    .setTokenUrl(`${authBase}/token`)
    .setClientId(property(PROPERTY.clientId) ?? '')
    .setClientSecret(property(PROPERTY.clientSecret) ?? '')
    .setCallbackFunction('authCallback')
    .setPropertyStore(PropertiesService.getUserProperties())
    .setCache(CacheService.getUserCache())
    .setLock(LockService.getUserLock())
    .setScope(SCOPES.join(' '));
}
