/**
 * Settings that are not on a sheet (DESIGN §7): user properties first, then script properties.
 * Secrets live only here; nothing in this module writes them anywhere else.
 */
import type { KeyValuePort } from '../core/ports';

export const PROPERTY = {
  apiBaseUrl: 'MF_API_BASE_URL',
  authBaseUrl: 'MF_AUTH_BASE_URL',
  apiKey: 'MF_API_KEY',
  officeCode: 'MF_OFFICE_CODE',
  clientId: 'MF_CLIENT_ID',
  clientSecret: 'MF_CLIENT_SECRET',
  /** How the OAuth app was registered in MF's App Portal: client_secret_basic or client_secret_post. */
  clientAuthMethod: 'MF_CLIENT_AUTH_METHOD',
  aiApiKey: 'AI_API_KEY',
  aiModel: 'AI_MODEL',
  aiBaseUrl: 'AI_BASE_URL',
  /** The office's own アプリケーションID for the NTA's 公表システム Web-API (issue 27): a secret (KEY). */
  ntaApiKey: 'NTA_API_KEY',
  /** The MF office this 台帳 belongs to (DESIGN §5, §7), as JSON {code, name, released?}. */
  ledgerOffice: 'KICHO_OFFICE',
} as const;

export const DEFAULT_API_BASE_URL = 'https://api-accounting.moneyforward.com';
export const DEFAULT_AUTH_BASE_URL = 'https://api.biz.moneyforward.com';

/** The script's properties: shared by every execution and account. */
export function scriptProperties(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getScriptProperties();
}

/** The properties of the account running this execution. */
export function userProperties(): GoogleAppsScript.Properties.Properties {
  return PropertiesService.getUserProperties();
}

export function property(name: string): string | null {
  const user = PropertiesService.getUserProperties().getProperty(name);
  if (user !== null && user !== '') return user;
  const script = PropertiesService.getScriptProperties().getProperty(name);
  return script === '' ? null : script;
}

/** Script properties as a small key-value store (shared by every execution and account). */
export function scriptStore(): KeyValuePort {
  const props = PropertiesService.getScriptProperties();
  return {
    get: (k) => props.getProperty(k),
    set: (k, v) => {
      props.setProperty(k, v);
    },
    delete: (k) => {
      props.deleteProperty(k);
    },
  };
}

/** Property names whose values are secrets, or hold them (token caches, the OAuth2 library's store). */
const SECRET_NAME = /KEY|SECRET|TOKEN|oauth2/i;
/** Not secrets although their names say KEY: which setting, not the credential. */
const NOT_SECRET = new Set([
  'MF_OFFICE_CODE',
  'AI_MODEL',
  'AI_BASE_URL',
  'MF_API_BASE_URL',
  'MF_AUTH_BASE_URL',
]);

/**
 * Fields of a stored JSON value that hold a credential. The rest (officeCode, scope, expiry …) are not
 * secrets, and redacting them would blank the very words a message needs (the office, the permission).
 */
const SECRET_FIELD =
  /^(token|access_?token|refresh_?token|id_?token|client_?secret|api_?key|secret|password|code_?verifier)$/i;

function stringsIn(value: string): string[] {
  try {
    const parsed: unknown = JSON.parse(value);
    const out: string[] = [];
    const walk = (v: unknown, field: string | null) => {
      if (typeof v === 'string') {
        if (field === null || SECRET_FIELD.test(field)) out.push(v);
      } else if (Array.isArray(v)) for (const x of v) walk(x, field);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
    };
    walk(parsed, null);
    // A JSON value with no credential field in it holds no secret; a plain string is the secret itself.
    return typeof parsed === 'object' && parsed !== null ? out : [value];
  } catch (_e) {
    return [value];
  }
}

/**
 * Every secret kicho holds (API keys, client secrets, tokens, the webhook secret), for the redaction of
 * ログ lines and run errors (DESIGN §9.5): two reads, and never written anywhere.
 */
export function knownSecrets(): string[] {
  const out: string[] = [];
  for (const props of [PropertiesService.getScriptProperties(), PropertiesService.getUserProperties()]) {
    for (const [name, value] of Object.entries(props.getProperties())) {
      if (!SECRET_NAME.test(name) || NOT_SECRET.has(name) || typeof value !== 'string') continue;
      for (const s of stringsIn(value)) if (s.length >= 8) out.push(s);
    }
  }
  return out;
}
