/**
 * The OAuth scope each operation kicho calls requires, from the `security` entries of MF's OpenAPI
 * document (test/contract checks this table against it), with the document's own Japanese description of
 * the scope. A 403 names the permission from here; the connection sidebar lists kicho's scopes.
 */
export interface ScopeInfo {
  scope: string;
  /** The document's description of the scope (securitySchemes.OAuth2.flows.authorizationCode.scopes). */
  label: string;
}

export const SCOPE_LABELS: Readonly<Record<string, string>> = {
  'mfc/accounting/offices.read': '事業者情報の取得',
  'mfc/accounting/accounts.read': '勘定科目の参照、補助科目の参照',
  'mfc/accounting/taxes.read': '税の参照',
  'mfc/accounting/trade_partners.read': '取引先の参照',
  'mfc/accounting/connected_account.read': '連携サービスの参照',
  'mfc/accounting/transaction.read': '明細の参照',
  'mfc/accounting/journal.read': '仕訳の参照',
  'mfc/accounting/journal.write': '仕訳の登録、更新、削除',
  'mfc/accounting/report.read': '帳票の参照',
};

/** `METHOD /path` (ids as `{id}`) of every operation the client calls → its scope. */
export const OPERATION_SCOPES: Readonly<Record<string, string>> = {
  'GET /api/v3/offices': 'mfc/accounting/offices.read',
  'GET /api/v3/accounts': 'mfc/accounting/accounts.read',
  'GET /api/v3/taxes': 'mfc/accounting/taxes.read',
  'GET /api/v3/trade_partners': 'mfc/accounting/trade_partners.read',
  // 課税形式 (インボイス区分 does not matter to 免税・簡易課税 offices): the document puts it under offices.read.
  'GET /api/v3/term_settings': 'mfc/accounting/offices.read',
  'GET /api/v3/connected_accounts': 'mfc/accounting/connected_account.read',
  'GET /api/v3/transactions': 'mfc/accounting/transaction.read',
  'POST /api/v3/transactions/journalize': 'mfc/accounting/journal.write',
  'GET /api/v3/journals': 'mfc/accounting/journal.read',
  'POST /api/v3/journals': 'mfc/accounting/journal.write',
  'GET /api/v3/journals/{id}': 'mfc/accounting/journal.read',
  // 重複点検 deletes a duplicate a person chose; 残高照合 reads the balance sheet's trial balance.
  'DELETE /api/v3/journals/{id}': 'mfc/accounting/journal.write',
  'GET /api/v3/reports/trial_balance_bs': 'mfc/accounting/report.read',
};

/** Every scope kicho asks for, in the order the sidebar shows them. */
export const KICHO_SCOPES: readonly string[] = [...new Set(Object.values(OPERATION_SCOPES))];

/** The scope for a request, or null for a path kicho does not call. */
export function scopeFor(method: string, path: string): ScopeInfo | null {
  const template = path.replace(/^(\/api\/v3\/journals\/)[^/?]+$/, '$1{id}');
  const scope = OPERATION_SCOPES[`${method.toUpperCase()} ${template}`];
  return scope ? { scope, label: SCOPE_LABELS[scope] ?? scope } : null;
}
