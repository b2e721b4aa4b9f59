/**
 * Connecting kicho to MF (menu 「MFに接続」 / 「接続を解除」) and the server side of the connection
 * sidebar (google.script.run targets). Keys and secrets go to script properties only — shared by the
 * editors and the trigger owner — and are never echoed back to the page, a sheet or ログ.
 */
import { decideOffice, describeOffice, OFFICE_MSG, type OfficeRef } from '../core/office';
import { redactSecrets } from '../core/redact';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import {
  apiKeyAuth,
  connectedOffice,
  connectionMode,
  copiedConnection,
  ledgerOffice,
  mfClient,
  oauthAuth,
  recordLedgerOffice,
} from '../gas/mf-connection';
import { CLIENT_AUTH_METHODS, type ClientAuthMethod, clientAuthMethod, mfOAuthService } from '../gas/oauth';
import { scriptId } from '../gas/platform';
import { PROPERTY, property, scriptProperties, userProperties } from '../gas/properties';
import { currentUserEmail } from '../gas/session';
import { DEFAULT_TOKEN_CACHE_KEY } from '../mf/auth';
import { MfOfficeCodeError } from '../mf/errors';
import { KICHO_SCOPES, SCOPE_LABELS } from '../mf/scopes';
import { ownerMismatch } from '../services/oauth-owner';
import { appendRunLog } from '../services/run-log';

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
  /** OAuth: how the app was registered in MF's App Portal. */
  clientAuthMethod: ClientAuthMethod;
  /** The office this 台帳 belongs to (KICHO_OFFICE), described; empty before the first connection. */
  ledgerOffice: string;
  /** Connected to another office than the 台帳's: what to tell, and whether it may be moved here now. */
  officeMismatch: { message: string; canMove: boolean; confirm: string; code: string } | null;
  /** The OAuth scopes kicho needs (the document's security entries of every operation it calls). */
  scopes: { scope: string; label: string }[];
  message: string;
  /** OAuth: the trigger owner is not the account that connected MF (what to do), or ''. */
  ownerWarning: string;
}

export interface ConnectResult {
  ok: boolean;
  message: string;
  office?: string;
  /** The key belongs to another office than the 台帳's: ask this, then call again with confirmMove. */
  confirm?: string;
}

/** How the move of the 台帳 to `connected` looks from where it stands (null: no move needed). */
function mismatchOf(connected: OfficeRef): ConnectionStatus['officeMismatch'] {
  const recorded = ledgerOffice();
  const decision = decideOffice(recorded, connected);
  if (decision.kind !== 'mismatch') return null;
  return {
    message: decision.ledger.released
      ? OFFICE_MSG.confirmMove(decision.ledger, connected)
      : OFFICE_MSG.disconnectFirst(decision.ledger, connected),
    canMove: decision.ledger.released === true,
    confirm: OFFICE_MSG.confirmMove(decision.ledger, connected),
    code: connected.code,
  };
}

function redirectUri(): string {
  return `https://script.google.com/macros/d/${scriptId()}/usercallback`;
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
    clientAuthMethod: clientAuthMethod(),
    ledgerOffice: describeLedgerOffice(),
    officeMismatch: null,
    scopes: KICHO_SCOPES.map((scope) => ({ scope, label: SCOPE_LABELS[scope] ?? scope })),
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
    // Unguarded: the sidebar must show the connected office even when it is not the 台帳's.
    const auth =
      mode === 'apikey' ? apiKeyAuth(property(PROPERTY.apiKey) ?? '', status.officeCode) : undefined;
    const office = (auth ? mfClient(auth) : mfClientUnguarded()).office();
    status.office = office.name;
    status.officeCode = office.code || status.officeCode;
    status.officeMismatch = mismatchOf({ code: status.officeCode, name: office.name });
    const recorded = ledgerOffice();
    const copied = recorded && copiedConnection(recorded) ? OFFICE_MSG.copied(recorded) : '';
    status.connected = status.officeMismatch === null && !copied;
    status.message =
      copied ||
      (status.officeMismatch ? status.officeMismatch.message : `「${office.name}」に接続しています。`);
  } catch (e) {
    status.message = `接続を確かめられませんでした: ${errorText(e)}`;
  }
  return status;
}

function describeLedgerOffice(): string {
  const recorded = ledgerOffice();
  return recorded ? describeOffice(recorded) : '';
}

/** OAuth mode without the one-office guard (the sidebar and the move read the connected office). */
function mfClientUnguarded() {
  return mfClient(oauthAuth());
}

/**
 * API-key mode: checked against MF (token exchange and the office) before anything is saved. A key of
 * another office than the 台帳's is saved only after 接続を解除 and a confirmation naming both offices
 * (`confirmMove`), and the move is logged (DESIGN §5 one-office guard).
 */
export function connectWithApiKey(
  apiKey: unknown,
  officeCode: unknown,
  confirmMove?: unknown,
): ConnectResult {
  const key = String(apiKey ?? '').trim();
  // 全角 digits and hyphen as people type them are the same code (MF shows it as 1234-5678).
  const code = String(officeCode ?? '')
    .normalize('NFKC')
    .trim();
  if (key === '' || code === '') {
    return { ok: false, message: 'APIキーと事業者コードの両方を入力してください。' };
  }
  let office: OfficeRef;
  try {
    const found = mfClient(apiKeyAuth(key, code)).office();
    office = { code: found.code || code, name: found.name };
  } catch (e) {
    // A refused 事業者コード already says where to find the right one.
    const check = e instanceof MfOfficeCodeError ? '' : ' キーと事業者コードを確かめてください。';
    return {
      ok: false,
      message: `MFで確認できなかったため保存していません: ${errorText(e, [key])}${check}`,
    };
  }
  const moved = placeLedger(office, confirmMove === true);
  if (!moved.ok) return moved;
  const props = scriptProperties();
  props.setProperties({ [PROPERTY.apiKey]: key, [PROPERTY.officeCode]: code });
  props.deleteProperty(DEFAULT_TOKEN_CACHE_KEY);
  appendRunLog({
    action: 'MF接続',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: [`APIキー方式で「${office.name}」に接続`, moved.message].filter(Boolean).join(' '),
  });
  return {
    ok: true,
    message: [`「${office.name}」に接続しました。`, moved.message].filter(Boolean).join(' '),
    office: office.name,
  };
}

/**
 * Where the 台帳 stands with a connection to `office`: first connection → recorded; same office → kept;
 * another office → refused unless released by 接続を解除 and confirmed, then moved (and said so).
 */
function placeLedger(office: OfficeRef, confirmed: boolean): ConnectResult {
  const recorded = ledgerOffice();
  if (recorded && copiedConnection(recorded)) return { ok: false, message: OFFICE_MSG.copied(recorded) };
  if (!recorded) {
    recordLedgerOffice({ code: office.code, name: office.name });
    return { ok: true, message: OFFICE_MSG.recorded(office) };
  }
  if (recorded.code === office.code) {
    recordLedgerOffice({ code: office.code, name: office.name || recorded.name });
    return { ok: true, message: '' };
  }
  if (!recorded.released) return { ok: false, message: OFFICE_MSG.disconnectFirst(recorded, office) };
  if (!confirmed) {
    return {
      ok: false,
      message: OFFICE_MSG.confirmMove(recorded, office),
      confirm: OFFICE_MSG.confirmMove(recorded, office),
    };
  }
  recordLedgerOffice({ code: office.code, name: office.name });
  appendRunLog({
    action: '台帳の事業者の変更',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: `${currentUserEmail() || '実行した人'} が確認: ${OFFICE_MSG.moved(recorded, office)}`,
  });
  return { ok: true, message: OFFICE_MSG.moved(recorded, office) };
}

/**
 * OAuth mode, after consenting for another office than the 台帳's: moves the 台帳 to the connected office,
 * only when it was released by 接続を解除 and the sidebar's confirmation named both offices (`code` is the
 * office the person confirmed; a different connected office changes nothing).
 */
export function moveLedgerOffice(code: unknown): ConnectResult {
  if (connectionMode() !== 'oauth')
    return { ok: false, message: 'OAuth方式で接続しているときだけ使えます。' };
  let office: OfficeRef;
  try {
    office = connectedOffice(mfClientUnguarded());
  } catch (e) {
    return { ok: false, message: `接続を確かめられませんでした: ${errorText(e)}` };
  }
  if (office.code !== String(code ?? '')) {
    return {
      ok: false,
      message: '確認した事業者と、今MFで接続している事業者が違います。状態を更新してください。',
    };
  }
  return placeLedger(office, true);
}

/**
 * OAuth mode: saves the client id and secret and the client authentication method the app was registered
 * with in MF's App Portal (client_secret_basic or client_secret_post), then gives the consent link.
 */
export function saveOAuthClient(
  clientId: unknown,
  clientSecret: unknown,
  authMethod?: unknown,
): ConnectResult & { authorizationUrl?: string } {
  const id = String(clientId ?? '').trim();
  const secret = String(clientSecret ?? '').trim();
  if (id === '' || secret === '')
    return { ok: false, message: 'クライアントIDとクライアントシークレットの両方を入力してください。' };
  const method = String(authMethod ?? 'client_secret_post') as ClientAuthMethod;
  if (!CLIENT_AUTH_METHODS.includes(method)) {
    return {
      ok: false,
      message: 'クライアント認証方式は client_secret_basic か client_secret_post を選んでください。',
    };
  }
  const props = scriptProperties();
  props.setProperties({
    [PROPERTY.clientId]: id,
    [PROPERTY.clientSecret]: secret,
    [PROPERTY.clientAuthMethod]: method,
  });
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
  const props = scriptProperties();
  for (const name of [
    PROPERTY.apiKey,
    PROPERTY.officeCode,
    PROPERTY.clientId,
    PROPERTY.clientSecret,
    PROPERTY.clientAuthMethod,
    DEFAULT_TOKEN_CACHE_KEY,
  ]) {
    props.deleteProperty(name);
  }
  // The 台帳 still belongs to its office; the next connection to another one may move it, confirmed.
  const recorded = ledgerOffice();
  if (recorded) recordLedgerOffice({ ...recorded, released: true });
  const user = userProperties();
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
  const html = htmlTemplate('connect').evaluate().setTitle('MFに接続');
  spreadsheetUi().showSidebar(html);
}

/** Menu 「接続を解除」: asks first, since posting stops until someone connects again. */
export function confirmDisconnect(): void {
  const ui = spreadsheetUi();
  const answer = ui.alert(
    '接続を解除',
    'MFのAPIキー・トークンを削除します。もう一度接続するまで、取込・登録・照合は止まります。よろしいですか？',
    ui.ButtonSet.OK_CANCEL,
  );
  if (answer !== ui.Button.OK) return;
  ui.alert('接続を解除', disconnectMf().message, ui.ButtonSet.OK);
}
