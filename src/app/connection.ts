/**
 * Connecting kicho to MF (menu 「MFに接続」 / 「接続を解除」) and the server side of the connection
 * sidebar (google.script.run targets). Keys and secrets go to script properties only — shared by the
 * editors and the trigger owner — and are never echoed back to the page, a sheet or ログ.
 */
import { redactSecrets } from '../core/redact';
import { apiKeyAuth, connectionMode, mfClient } from '../gas/mf-connection';
import { mfOAuthService } from '../gas/oauth';
import { PROPERTY, property } from '../gas/properties';
import { DEFAULT_TOKEN_CACHE_KEY } from '../mf/auth';
import { ownerMismatch } from './oauth-owner';
import { appendRunLog } from './run-log';

export interface ConnectionStatus {
  mode: 'apikey' | 'oauth' | 'none';
  connected: boolean;
  /** 事業者名 and code when MF answered. */
  office: string;
  officeCode: string;
  /** What to register in MF's app portal for OAuth. */
  redirectUri: string;
  /** OAuth client id and secret are saved (the secret itself is never returned). */
  oauthClientSaved: boolean;
  /** OAuth: the consent link while not yet authorised. */
  authorizationUrl: string;
  message: string;
  /** OAuth: the trigger owner is not the account that connected MF (what to do), or ''. */
  ownerWarning: string;
}

export interface ConnectResult {
  ok: boolean;
  message: string;
  office?: string;
}

function redirectUri(): string {
  return `https://script.google.com/macros/d/${ScriptApp.getScriptId()}/usercallback`;
}

function errorText(e: unknown, known: string[] = []): string {
  return redactSecrets(e instanceof Error ? e.message : String(e), known);
}

/** Shown in the sidebar when it opens (and after each change). */
export function connectionStatus(): ConnectionStatus {
  const mode = connectionMode();
  const status: ConnectionStatus = {
    mode,
    connected: false,
    office: '',
    officeCode: property(PROPERTY.officeCode) ?? '',
    redirectUri: redirectUri(),
    oauthClientSaved: !!(property(PROPERTY.clientId) && property(PROPERTY.clientSecret)),
    authorizationUrl: '',
    message: '',
    ownerWarning: ownerMismatch() ?? '',
  };
  if (mode === 'none') {
    status.message = 'まだMFに接続されていません。APIキー方式かOAuth方式のどちらかで接続してください。';
    return status;
  }
  if (mode === 'oauth' && !mfOAuthService().hasAccess()) {
    status.authorizationUrl = mfOAuthService().getAuthorizationUrl();
    status.message = 'MFでの許可がまだです。「MFで許可する」を開いて、事業者を選んで許可してください。';
    return status;
  }
  try {
    const office = mfClient().office();
    status.connected = true;
    status.office = office.name;
    status.officeCode = office.code || status.officeCode;
    status.message = `「${office.name}」に接続しています。`;
  } catch (e) {
    status.message = `接続を確かめられませんでした: ${errorText(e)}`;
  }
  return status;
}

/** API-key mode: checked against MF (token exchange and the office) before anything is saved. */
export function connectWithApiKey(apiKey: unknown, officeCode: unknown): ConnectResult {
  const key = String(apiKey ?? '').trim();
  const code = String(officeCode ?? '').trim();
  if (key === '' || code === '') {
    return { ok: false, message: 'APIキーと事業者コードの両方を入力してください。' };
  }
  let officeName: string;
  try {
    officeName = mfClient(apiKeyAuth(key, code)).office().name;
  } catch (e) {
    return {
      ok: false,
      message: `MFで確認できなかったため保存していません: ${errorText(e, [key])} キーと事業者コードを確かめてください。`,
    };
  }
  const props = PropertiesService.getScriptProperties();
  props.setProperties({ [PROPERTY.apiKey]: key, [PROPERTY.officeCode]: code });
  props.deleteProperty(DEFAULT_TOKEN_CACHE_KEY);
  appendRunLog({
    action: 'MF接続',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: `APIキー方式で「${officeName}」に接続`,
  });
  return { ok: true, message: `「${officeName}」に接続しました。`, office: officeName };
}

/** OAuth mode: saves the client id and secret, then gives the consent link to open. */
export function saveOAuthClient(
  clientId: unknown,
  clientSecret: unknown,
): ConnectResult & { authorizationUrl?: string } {
  const id = String(clientId ?? '').trim();
  const secret = String(clientSecret ?? '').trim();
  if (id === '' || secret === '')
    return { ok: false, message: 'クライアントIDとクライアントシークレットの両方を入力してください。' };
  const props = PropertiesService.getScriptProperties();
  props.setProperties({ [PROPERTY.clientId]: id, [PROPERTY.clientSecret]: secret });
  // API-key mode wins when both are set: switching to OAuth removes the key.
  props.deleteProperty(PROPERTY.apiKey);
  props.deleteProperty(PROPERTY.officeCode);
  props.deleteProperty(DEFAULT_TOKEN_CACHE_KEY);
  const service = mfOAuthService();
  service.reset();
  return {
    ok: true,
    message: '保存しました。「MFで許可する」を開き、事業者を選んで許可してください。',
    authorizationUrl: service.getAuthorizationUrl(),
  };
}

/** Removes every key, secret and token kicho holds for MF. */
export function disconnectMf(): ConnectResult {
  try {
    mfOAuthService().reset();
  } catch (_e) {
    // No OAuth client saved: nothing to reset.
  }
  const props = PropertiesService.getScriptProperties();
  for (const name of [
    PROPERTY.apiKey,
    PROPERTY.officeCode,
    PROPERTY.clientId,
    PROPERTY.clientSecret,
    DEFAULT_TOKEN_CACHE_KEY,
  ]) {
    props.deleteProperty(name);
  }
  const user = PropertiesService.getUserProperties();
  for (const name of [PROPERTY.apiKey, PROPERTY.officeCode, PROPERTY.clientId, PROPERTY.clientSecret]) {
    user.deleteProperty(name);
  }
  appendRunLog({
    action: '接続の解除',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: 'MFのキーとトークンを削除',
  });
  return { ok: true, message: 'MFとの接続を解除しました（キーとトークンを削除しました）。' };
}

/** Menu 「MFに接続」: the connection sidebar. */
export function openConnection(): void {
  const html = HtmlService.createTemplateFromFile('connect').evaluate().setTitle('MFに接続');
  SpreadsheetApp.getUi().showSidebar(html);
}

/** Menu 「接続を解除」: asks first, since posting stops until someone connects again. */
export function confirmDisconnect(): void {
  const ui = SpreadsheetApp.getUi();
  const answer = ui.alert(
    '接続を解除',
    'MFのAPIキー・トークンを削除します。もう一度接続するまで、取込・登録・照合は止まります。よろしいですか？',
    ui.ButtonSet.OK_CANCEL,
  );
  if (answer !== ui.Button.OK) return;
  ui.alert('接続を解除', disconnectMf().message, ui.ButtonSet.OK);
}
