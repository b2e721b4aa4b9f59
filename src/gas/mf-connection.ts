/**
 * Builds the MF client from the properties (DESIGN §7): API-key mode when MF_API_KEY and
 * MF_OFFICE_CODE are set, else OAuth mode when MF_CLIENT_ID and MF_CLIENT_SECRET are.
 */

import { MF_MIN_INTERVAL_MS } from '../core/budget';
import {
  decideOffice,
  isCopiedConnection,
  type LedgerOffice,
  OFFICE_MSG,
  type OfficeRef,
  parseLedgerOffice,
} from '../core/office';
import { HttpNotSentError, type HttpPort, type HttpRequest } from '../core/ports';
import { ApiKeyAuth, type AuthProvider, OAuthAuth } from '../mf/auth';
import { MfClient } from '../mf/client';
import { MfAuthError, MfOfficeCodeError, MfOfficeMismatchError } from '../mf/errors';
import { RateLimiter } from '../mf/rate-limit';
import { scriptClock } from './clock';
import { urlFetchPort } from './http';
import { mfOAuthService } from './oauth';
import { DEFAULT_API_BASE_URL, DEFAULT_AUTH_BASE_URL, PROPERTY, property, scriptStore } from './properties';

export const NOT_CONNECTED =
  'MFに接続されていません。メニュー「記帳 > 接続と設定 > MFに接続」から接続してください。';

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

/** OAuth-mode auth over the library (tokens in user properties). */
export function oauthAuth(): AuthProvider {
  return new OAuthAuth(mfOAuthService());
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

/** What an observed client reports of each exchange (本番前チェック counts what was sent, and when). */
export interface SentRequest {
  method: HttpRequest['method'];
  /** Path without the query, e.g. /api/v3/transactions/journalize. */
  path: string;
  status: number | null;
  /** When the answer (or the failure) came (ms). */
  at: number;
}

function newClient(
  auth: AuthProvider,
  officeCheck?: (client: MfClient) => void,
  observe?: (sent: SentRequest) => void,
): MfClient {
  const clock = scriptClock();
  const port = urlFetchPort();
  const http: HttpPort = observe
    ? {
        send(request) {
          const path = request.url.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/\?.*$/, '');
          try {
            const res = port.send(request);
            observe({ method: request.method, path, status: res.status, at: Date.now() });
            return res;
          } catch (e) {
            // Refused before sending (HttpNotSentError) counts as nothing sent; anything else may have left.
            if (!(e instanceof HttpNotSentError))
              observe({ method: request.method, path, status: null, at: Date.now() });
            throw e;
          }
        },
      }
    : port;
  return new MfClient({
    apiBaseUrl: property(PROPERTY.apiBaseUrl) ?? DEFAULT_API_BASE_URL,
    http,
    clock,
    auth,
    limiter: new RateLimiter(clock, MF_MIN_INTERVAL_MS),
    officeCheck,
  });
}

/**
 * One client per execution (module state lives for one execution in Apps Script): at most one GET
 * /offices per execution for the guard and every accounting-period split, one rate limiter, and a
 * per_page fallback remembered for the run.
 */
let executionClient: MfClient | null = null;

/**
 * The client of this execution, guarded by the one-office check (DESIGN §5): before its first request it
 * compares the connected office with KICHO_OFFICE and refuses every call when they differ. With `auth`
 * (a key being tried in the connection sidebar), an unguarded client of its own.
 */
export function mfClient(auth?: AuthProvider): MfClient {
  if (auth) return newClient(auth);
  if (!executionClient) executionClient = newClient(authProvider(), guardOffice);
  return executionClient;
}

/**
 * A guarded client of its own whose every request is reported to `observe` (本番前チェック's posting check
 * shows exactly what was sent). Not the execution's shared client.
 */
export function observedMfClient(observe: (sent: SentRequest) => void): MfClient {
  return newClient(authProvider(), guardOffice, observe);
}

/** The connected office: API-key mode names it by code (no call); OAuth asks MF once. */
export function connectedOffice(client: MfClient): OfficeRef {
  const code = property(PROPERTY.officeCode);
  if (connectionMode() === 'apikey' && code) return { code, name: '' };
  const office = client.office();
  return { code: office.code, name: office.name };
}

function guardOffice(client: MfClient): void {
  const recorded = ledgerOffice();
  // Checked before any MF call: a copy must not even read its original's books.
  if (recorded && copiedConnection(recorded)) throw new MfOfficeMismatchError(OFFICE_MSG.copied(recorded));
  const decision = decideOffice(recorded, connectedOffice(client));
  if (decision.kind === 'mismatch') throw new MfOfficeMismatchError(decision.message);
  // Only this 台帳's own office is asked about (another office's is never read, not even its name).
  if (connectionMode() === 'apikey') probeOfficeCode(client);
  if (!decision.record) {
    // Recorded by an older version without its script id: this script is the one that connected.
    if (recorded && !recorded.scriptId) recordLedgerOffice(recorded);
    return;
  }
  // Recording for the first time with only a code (API-key mode): learn the name once, so messages can
  // name the office; the same office() answer then serves this execution's period splits.
  const record = decision.record.name ? decision.record : { ...decision.record, name: client.office().name };
  recordLedgerOffice(record);
}

/**
 * API-key mode names the office by its code alone. MF is asked once (GET /offices, which the period splits
 * use anyway) whether the key opens it, so a wrong 事業者コード is said as such before any other call fails
 * in a way that names nothing (issue 25). Any other failure is left to the run's own calls.
 */
function probeOfficeCode(client: MfClient): void {
  try {
    client.office();
  } catch (e) {
    if (e instanceof MfOfficeCodeError) throw e;
  }
}

/**
 * Why a run must not touch MF (the connected office is not this 台帳's, or MF would not open the office of
 * the 事業者コード), or null. Null too when the office cannot be checked now (not connected, MF unreachable):
 * the run's own MF calls then fail and say so.
 */
export function officeRefusal(client?: MfClient): string | null {
  try {
    (client ?? mfClient()).assertOffice();
    return null;
  } catch (e) {
    return e instanceof MfOfficeMismatchError || e instanceof MfOfficeCodeError ? e.message : null;
  }
}

/** Script property KICHO_OFFICE: the office this 台帳 belongs to. */
export function ledgerOffice(): LedgerOffice | null {
  return parseLedgerOffice(PropertiesService.getScriptProperties().getProperty(PROPERTY.ledgerOffice));
}

/** Every record names the script that made it, so that a copied spreadsheet can tell (isCopiedConnection). */
export function recordLedgerOffice(office: LedgerOffice): void {
  const record: LedgerOffice = { ...office, scriptId: ScriptApp.getScriptId() };
  PropertiesService.getScriptProperties().setProperty(PROPERTY.ledgerOffice, JSON.stringify(record));
}

/** This spreadsheet carries a connection made by another script (it is a copy): nothing may reach MF. */
export function copiedConnection(recorded: LedgerOffice | null = ledgerOffice()): boolean {
  return isCopiedConnection(recorded, ScriptApp.getScriptId());
}
