/**
 * A fake of the OAuth2 library for Apps Script (googleworkspace/apps-script-oauth2, v43), written
 * on top of the guest's own UrlFetchApp/Properties/Lock/ScriptApp so token traffic goes through
 * the emulator exactly as the real library's would. Subset: authorization code grant, refresh,
 * reset, redirect URI, storage in a property store.
 *
 * The token request is built as the library's Service_.fetchToken_ builds it (src/Service.js, read at
 * commit 051d78b; the library is not on the npm registry and its code is not vendored here): the payload
 * always carries client_id and client_secret; headers are `Accept` plus setTokenHeaders; the payload
 * handler (setTokenPayloadHandler) runs last; the payload object goes to UrlFetchApp as a form. Its error
 * text is 'Error retrieving token: ' + error, message, error_description, error_uri joined by ', '.
 */
import { GasException } from './channel';

interface Props {
  getProperty(key: string): string | null;
  setProperty(key: string, value: string): unknown;
  deleteProperty(key: string): unknown;
}
interface LockLike {
  waitLock(ms: number): void;
  releaseLock(): void;
}
interface Token {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  granted_time: number;
  [k: string]: unknown;
}
interface Deps {
  fetch(
    url: string,
    options: Record<string, unknown>,
  ): { getResponseCode(): number; getContentText(): string };
  scriptId(): string;
  stateToken(method: string, args: Record<string, string>, timeout: number): string;
  base64(text: string): string;
}

/** Refresh a little early, as the library does (EXPIRATION_BUFFER_SECONDS_). */
const EXPIRATION_BUFFER_SECONDS = 60;

function redirectUri(scriptId: string): string {
  return `https://script.google.com/macros/d/${encodeURIComponent(scriptId)}/usercallback`;
}

function query(params: Record<string, string>): string {
  return Object.keys(params)
    .map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(params[k])}`)
    .join('&');
}

class Service {
  private authBase = '';
  private tokenUrl = '';
  private clientId = '';
  private clientSecret = '';
  private callback = 'authCallback';
  private store: Props | null = null;
  private lock: LockLike | null = null;
  private scope = '';
  private params: Record<string, string> = {};
  private tokenHeaders: Record<string, string> | null = null;
  private tokenPayloadHandler: ((payload: Record<string, string>) => Record<string, string>) | null = null;
  private lastError: unknown = null;

  constructor(
    private readonly name: string,
    private readonly deps: Deps,
  ) {}

  setAuthorizationBaseUrl(url: string) {
    this.authBase = url;
    return this;
  }
  setTokenUrl(url: string) {
    this.tokenUrl = url;
    return this;
  }
  setClientId(id: string) {
    this.clientId = id;
    return this;
  }
  setClientSecret(secret: string) {
    this.clientSecret = secret;
    return this;
  }
  setCallbackFunction(name: string) {
    this.callback = name;
    return this;
  }
  setPropertyStore(store: Props) {
    this.store = store;
    return this;
  }
  setCache(_cache: unknown) {
    return this;
  }
  setLock(lock: LockLike) {
    this.lock = lock;
    return this;
  }
  setScope(scope: string | string[], separator = ' ') {
    this.scope = Array.isArray(scope) ? scope.join(separator) : scope;
    return this;
  }
  setParam(name: string, value: string) {
    this.params[name] = value;
    return this;
  }
  setTokenHeaders(headers: Record<string, string>) {
    this.tokenHeaders = headers;
    return this;
  }
  setTokenPayloadHandler(handler: (payload: Record<string, string>) => Record<string, string>) {
    this.tokenPayloadHandler = handler;
    return this;
  }
  setTokenFormat(_format: string) {
    return this;
  }
  setGrantType(_grantType: string) {
    return this;
  }
  generateCodeVerifier() {
    return this;
  }

  private key(): string {
    return `oauth2.${this.name}`;
  }
  private props(): Props {
    if (!this.store) throw new GasException('Property store is required.', 'Error');
    return this.store;
  }
  getRedirectUri(): string {
    return redirectUri(this.deps.scriptId());
  }
  getToken(): Token | null {
    const raw = this.props().getProperty(this.key());
    return raw ? (JSON.parse(raw) as Token) : null;
  }
  private saveToken(token: Token): void {
    this.props().setProperty(this.key(), JSON.stringify(token));
  }
  getAuthorizationUrl(extra?: Record<string, string>): string {
    const state = this.deps.stateToken(this.callback, { serviceName: this.name, ...(extra ?? {}) }, 3600);
    const p: Record<string, string> = {
      client_id: this.clientId,
      response_type: 'code',
      redirect_uri: this.getRedirectUri(),
      state,
      ...this.params,
    };
    if (this.scope) p.scope = this.scope;
    return `${this.authBase}${this.authBase.includes('?') ? '&' : '?'}${query(p)}`;
  }
  private requestToken(given: Record<string, string>): Token {
    const headers: Record<string, string> = { Accept: 'application/json', ...(this.tokenHeaders ?? {}) };
    const payload = this.tokenPayloadHandler ? this.tokenPayloadHandler(given) : given;
    const response = this.deps.fetch(this.tokenUrl, {
      method: 'post',
      headers,
      payload,
      muteHttpExceptions: true,
    });
    const text = response.getContentText();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new GasException(`Token response not valid JSON: ${String(e)}`, 'Error');
    }
    const code = response.getResponseCode();
    if (code < 200 || code >= 300 || body.error) {
      const reason =
        [body.error, body.message, body.error_description, body.error_uri]
          .filter(Boolean)
          .map((part) => (typeof part === 'string' ? part : JSON.stringify(part)))
          .join(', ') || `${code}: ${JSON.stringify(body)}`;
      throw new GasException(`Error retrieving token: ${reason}`, 'Error');
    }
    return { ...(body as Token), granted_time: Math.floor(Date.now() / 1000) };
  }
  handleCallback(request: { parameter: Record<string, string> }): boolean {
    const p = request.parameter ?? {};
    if (p.error) {
      this.lastError = p.error;
      if (p.error === 'access_denied') return false;
      throw new GasException(`Error authorizing token: ${p.error}`, 'Error');
    }
    if (!p.code) throw new GasException('Missing required parameter: code', 'Error');
    this.saveToken(
      this.requestToken({
        code: p.code,
        client_id: this.clientId,
        client_secret: this.clientSecret,
        redirect_uri: this.getRedirectUri(),
        grant_type: 'authorization_code',
      }),
    );
    return true;
  }
  private expired(token: Token): boolean {
    if (!token.expires_in) return false;
    return Date.now() / 1000 >= token.granted_time + token.expires_in - EXPIRATION_BUFFER_SECONDS;
  }
  hasAccess(): boolean {
    const token = this.getToken();
    if (token && !this.expired(token)) return true;
    if (!token?.refresh_token) return false;
    try {
      this.refresh();
      return true;
    } catch (e) {
      this.lastError = e;
      return false;
    }
  }
  refresh(): void {
    const run = () => {
      const token = this.getToken();
      if (!token?.refresh_token) throw new GasException('Offline access is required.', 'Error');
      const fresh = this.requestToken({
        refresh_token: token.refresh_token,
        client_id: this.clientId,
        client_secret: this.clientSecret,
        grant_type: 'refresh_token',
      });
      if (!fresh.refresh_token) fresh.refresh_token = token.refresh_token;
      this.saveToken(fresh);
    };
    if (!this.lock) {
      run();
      return;
    }
    this.lock.waitLock(120_000);
    try {
      run();
    } finally {
      this.lock.releaseLock();
    }
  }
  getAccessToken(): string {
    if (!this.hasAccess()) throw new GasException('Access not granted or expired.', 'Error');
    return (this.getToken() as Token).access_token;
  }
  getLastError(): unknown {
    return this.lastError;
  }
  reset(): void {
    this.props().deleteProperty(this.key());
  }
  getStorage() {
    return {
      getValue: (k: string) => {
        const raw = this.props().getProperty(`${this.key()}.${k}`);
        return raw === null ? null : JSON.parse(raw);
      },
      setValue: (k: string, v: unknown) => this.props().setProperty(`${this.key()}.${k}`, JSON.stringify(v)),
      removeValue: (k: string) => this.props().deleteProperty(`${this.key()}.${k}`),
    };
  }
}

export function makeOAuth2(deps: Deps) {
  return {
    createService: (name: string) => new Service(name, deps),
    getRedirectUri: (scriptId?: string) => redirectUri(scriptId ?? deps.scriptId()),
    TOKEN_FORMAT: { JSON: 'application/json', FORM_URL_ENCODED: 'application/x-www-form-urlencoded' },
  };
}
