/**
 * Every Japanese text the MF client (transport.ts, reads.ts, writes.ts, auth.ts) says, in one place: its
 * own (ClientMsg, AuthMsg) and MF's errors in plain Japanese for メモ and ログ (issue 12, defect 8). MF answers in
 * English; the codes and texts below are those MF's OpenAPI document defines. MF's code is kept in
 * brackets so support can still look it up. A 403 says which permission is missing and where it is
 * granted; an authentication failure says to reconnect; only errors about the content say to fix the row
 * and retry.
 */
import type { ScopeInfo } from './scopes';

/** What the client itself says when an exchange failed without an MF error to explain. */
export const ClientMsg = {
  timeout: 'MFの応答がタイムアウトしました。',
  network: 'MFに接続できませんでした。',
  transportRetry: 'しばらく待ってから再実行してください。',
  unexpectedSend: 'MFへの送信中に予期しないエラーが発生しました。',
  unauthorized:
    'MFの認証が通りませんでした。メニュー「記帳 > 接続と設定 > MFに接続」で接続し直してください。',
  refreshFailed:
    'MFのアクセストークンを更新できませんでした。APIキーまたはMFとの連携の設定を確認してください。',
  server: (status: number, code: string) =>
    `MFでエラーが発生しました（HTTP ${status} ${code}）。しばらく待ってから再実行してください。`,
  badAnswer: (status: number) => `MFから読めない応答が返りました（HTTP ${status}）。`,
  noJournalId: (status: number) => `MFの応答から仕訳IDを読めませんでした（HTTP ${status}）。`,
  needDate: 'GET /journals には startDate か endDate が必要です。',
} as const;

/** What obtaining a token says when it fails (auth.ts). */
export const AuthMsg = {
  noKey: 'MFのAPIキーが設定されていません。スクリプトプロパティ MF_API_KEY を設定してください。',
  noOffice: 'MFの事業者コードが設定されていません。スクリプトプロパティ MF_OFFICE_CODE を設定してください。',
  invalidKey: 'MFのAPIキーが無効です。設定し直してください。',
  exchangeRejected: (status: number, code: string) =>
    `MFのAPIキーをアクセストークンに交換できませんでした（HTTP ${status} ${code}）。MF_API_KEY の設定を確認してください。`,
  exchangeBusy: 'MFの認証サーバーが混み合っています。しばらく待ってから再実行してください。',
  exchangeServer: (status: number) =>
    `MFの認証サーバーでエラーが発生しました（HTTP ${status}）。しばらく待ってから再実行してください。`,
  exchangeTransport: (timeout: boolean) =>
    `MFの認証サーバーに接続できませんでした（${timeout ? 'タイムアウト' : '通信エラー'}）。しばらく待ってから再実行してください。`,
  exchangeBadAnswer: 'MFの認証サーバーから読めない応答が返りました。しばらく待ってから再実行してください。',
  oauthNoAccess: 'MFとの連携（OAuth認証）が切れています。MFへの接続を認証し直してください。',
  oauthFailed: 'MFとの連携（OAuth認証）のトークンを取得できませんでした。MFへの接続を認証し直してください。',
  invalidClient:
    'MFがクライアント認証を受け付けませんでした（invalid_client）。メニュー「記帳 > 接続と設定 > MFに接続」で、クライアントIDとシークレット、そして「クライアント認証方式」がMFのアプリポータルでアプリを登録したときの設定（client_secret_basic か client_secret_post）と同じかを確かめてください。',
} as const;

const INVALID_CLIENT =
  'MFがクライアント認証を受け付けませんでした（invalid_client）。クライアントIDとシークレット、そして「クライアント認証方式」が MF のアプリポータルでアプリを登録したときの設定（client_secret_basic か client_secret_post）と同じかを確かめてください。';

/**
 * The OAuth2 library's error text for a token endpoint refusal names MF's error code (invalid_client): what
 * the OAuth callback page (app/auth-callback.ts) says instead, or null to show the library's own text.
 */
export function tokenErrorMessage(text: string): string | null {
  return /\binvalid_client\b/.test(text) ? INVALID_CLIENT : null;
}

export type AuthMode = 'apikey' | 'oauth';

export interface ErrorContext {
  /** How kicho connects: where a missing permission is granted differs. */
  mode: AuthMode;
  /** The permission of the operation that was refused, when known. */
  scope?: ScopeInfo | null;
}

const RECONNECT = 'メニュー「記帳 > 接続と設定 > MFに接続」で接続し直してください。';
const FIX_ROW =
  '台帳の行の内容（勘定科目・補助科目・税区分・取引先・取引日）を直して、操作「再試行」を選んでください。';
const KICHO_BUG =
  'kicho の問い合わせの形が MF と合っていません。このメッセージを添えて kicho の担当者に連絡してください。';
const LATER = 'しばらく待ってから再実行してください。';

/** Texts of the document's JournalError enum that say more than their code. */
const JOURNAL_TEXTS: Readonly<Record<string, string>> = {
  'Given date is outside the accounting period.':
    '取引日が MF の会計期間の外です。MF で事業年度（会計期間）を確かめ、取引日を直してください。',
  'Given date is not matching any accounting periods.':
    '取引日が MF のどの会計期間にも入りません。MF で事業年度（会計期間）を確かめてください。',
  "Accounting period doesn't exist for the fiscal year.":
    'その年度の会計期間が MF にありません。MF で事業年度（会計期間）を設定してください。',
  'The specified account is inactive.':
    '勘定科目が MF で使えない設定になっています。MF で勘定科目を有効にするか、別の勘定科目を選んでください。',
  'Please specify memo of 200 characters or less.': 'メモが 200 文字を超えています。',
  'Please specify creditor and debitor.': '借方と貸方の両方が必要です。',
  'Journal cannot be moved to a different term.': '仕訳を別の年度へ移すことはできません。',
  'The given id does not exist for this office.': '指定した ID が MF のこの事業者にありません。',
};

function where(ctx: ErrorContext): string {
  return ctx.mode === 'apikey'
    ? 'MF のアプリポータルの「APIキー管理」で、この API キーに「会計」と「事業者情報」の製品が付いているかを確かめてください（事業者の管理者が先にアプリ連携の権限を付与している必要があります）。'
    : 'MF のアプリポータルでアプリに権限（スコープ）を付け、メニュー「記帳 > 接続と設定 > MFに接続」の「MFで許可する」からもう一度許可してください（事業者の管理者がアプリ連携の権限を付与している必要があります）。';
}

function permission(ctx: ErrorContext): string {
  if (!ctx.scope) return 'MF の操作に必要な権限がありません。';
  return `MF の「${ctx.scope.label}」の権限（${ctx.scope.scope}）がありません。`;
}

function tagged(text: string, code: string): string {
  return `${text} [${code}]`;
}

/**
 * One Japanese sentence (or two) for MF's error, ending with MF's code in brackets. `message` is MF's own
 * text, used only to pick among the document's JournalError texts; no decision rests on it.
 */
export function explainMfError(status: number, code: string, message: string, ctx: ErrorContext): string {
  if (status === 401) return tagged(`MF の認証が通りませんでした。${RECONNECT}`, code);
  if (status === 403) {
    if (code === 'account_is_disabled')
      return tagged('MF のアカウントが無効になっています。MF の管理者に確かめてください。', code);
    if (code === 'office_is_disabled')
      return tagged('MF の事業者が無効になっています（契約やプランを MF で確かめてください）。', code);
    return tagged(`${permission(ctx)}${where(ctx)}`, code);
  }
  if (status === 409) {
    if (code === 'no_accounting_period_found')
      return tagged('MF の事業者に会計期間がありません。MF で事業年度（会計期間）を設定してください。', code);
    if (code === 'no_office_found')
      return tagged(
        'この事業者は MF クラウド会計に登録されていません。接続先の事業者を確かめてください。',
        code,
      );
    return tagged(`MF の状態のため受け付けられませんでした。${LATER}`, code);
  }
  if (status === 415) return tagged(`MF が送った形式を受け付けませんでした。${KICHO_BUG}`, code);
  if (status === 429) return tagged(`MF へのリクエストが多すぎました。${LATER}`, code);
  if (status >= 500) {
    if (code === 'operation_timed_out')
      return tagged(`MF の処理が時間内に終わりませんでした。${LATER}`, code);
    return tagged(`MF でエラーが起きました（HTTP ${status}）。${LATER}`, code);
  }
  const journal = JOURNAL_TEXTS[message];
  if (journal) return tagged(`${journal}${journal.includes('直して') ? '' : FIX_ROW}`, code);
  switch (code) {
    case 'invalid_request_body_value':
    case 'invalid_request_body_parameter':
      return tagged(`送った内容の一部を MF が受け付けませんでした。${FIX_ROW}`, code);
    case 'missing_required_request_body_key':
      return tagged(`MF に必要な項目が足りませんでした。${FIX_ROW}`, code);
    case 'invalid_query_parameter_value':
    case 'missing_required_query_parameter':
    case 'unsupported_query_parameter':
    case 'redundant_query_parameter':
    case 'invalid_request_path_parameter':
    case 'invalid_input':
    case 'invalid_uri':
    case 'invalid_http_verb':
    case 'invalid_resource_name':
    case 'missing_required_header':
    case 'unsupported_header':
      return tagged(`MF が問い合わせを受け付けませんでした。${KICHO_BUG}`, code);
    default:
      return tagged(`MF が受け付けませんでした（HTTP ${status}）。${FIX_ROW}`, code);
  }
}

/**
 * API-key mode: MF would not open the office of the 事業者コード kicho sent (GET /offices, whose only query
 * parameter is office_code, was refused). What MF answers then is unpublished (sim/mf switch
 * `wrongOfficeCode`), so this is said for 400 invalid_query_parameter_value, 401 for a fresh token, 403 and
 * 409 no_office_found alike. Where MF shows the code: MF support "各サービスの事業者番号の確認方法"
 * (https://biz.moneyforward.com/support/guide/u06.html, as cited by htaken/kadobo
 * docs/runbooks/04_MF連携セットアップ.md); a key's offices: アプリポータル「APIキー管理」の利用可能事業者
 * (kentaroajisaka/mf-api-mcp README: MF said the office "cannot be used" when it was left out).
 */
export function explainOfficeCode(officeCode: string, status: number, code: string): string {
  const permission =
    status === 403
      ? 'キーに「会計」と「事業者情報」の製品が付いているかも確かめてください（MF はどちらの場合も同じ答えを返します）。'
      : '';
  return tagged(
    `MF が事業者コード「${officeCode}」の事業者を開けませんでした。事業者コードが違うか、この API キーでは使えない事業者です。正しい事業者コード（MF の画面では「事業者番号」。「1234-5678」の形）は、MF クラウド会計の画面右上の「？」→「事業者番号」か、管理コンソールの画面右上の事業者名で確かめられます。API キーで使える事業者は、MF のアプリポータルの「APIキー管理」で、そのキーの「利用可能事業者」に入っているかを見てください（一覧はページに分かれています）。${permission}確かめたら、メニュー「記帳 > 接続と設定 > MFに接続」で事業者コードを入れ直してください。`,
    `HTTP ${status} ${code}`,
  );
}

/** Whether the row itself can be fixed: only then does a 失敗 ask for 再試行 after a fix. */
export function isContentError(status: number, code: string): boolean {
  return (
    status === 400 &&
    (code === 'invalid_request_body_value' ||
      code === 'invalid_request_body_parameter' ||
      code === 'missing_required_request_body_key')
  );
}
