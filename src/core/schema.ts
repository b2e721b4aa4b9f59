/**
 * Sheet names and headers: contracts with users and tests (DESIGN §3).
 * Columns are always located by header text, never by position.
 */

export const SHEET = {
  ledger: '台帳',
  rules: 'ルール',
  ruleCandidates: 'ルール候補',
  settings: '設定',
  sources: '取込元',
  masters: 'マスタ',
  review: '要確認',
  dryRun: 'ドライラン',
  log: 'ログ',
  receivables: '売掛金',
  selfTest: '自己診断',
  duplicates: '重複点検',
  balances: '残高照合',
  invoicePartners: '取引先インボイス',
} as const;

export type SheetName = (typeof SHEET)[keyof typeof SHEET];

export const LEDGER_HEADERS = [
  'キー',
  '状態',
  '取引日',
  '入出金',
  '金額',
  '摘要',
  '口座',
  '勘定科目',
  '補助科目',
  '税区分',
  '取引先',
  // Issue 27: whether the seller is a registered invoice issuer (適格 / 非適格 / 対象外 / 未判定).
  'インボイス',
  '操作',
  '判定元',
  '判定根拠',
  'MF仕訳ID',
  '試行回数',
  '初回検知',
  '更新日時',
  '完了日時',
  'メモ',
  '明細ID',
  '指紋',
] as const;

export type LedgerHeader = (typeof LEDGER_HEADERS)[number];

/** 台帳 columns people edit (DESIGN §3); every other column is written only by the system. */
export const PEOPLE_COLUMNS: ReadonlySet<string> = new Set([
  '勘定科目',
  '補助科目',
  '税区分',
  '取引先',
  'インボイス',
  '操作',
]);

export const RULE_HEADERS = [
  '優先度',
  '一致方法',
  'キーワード',
  '入出金',
  '金額下限',
  '金額上限',
  '口座',
  '勘定科目',
  '補助科目',
  '税区分',
  '取引先',
  '自動承認',
  '有効',
  // Issue 27 (optional: a ルール sheet without it still works): 適格 / 非適格 / 対象外 / 帳簿のみ.
  'インボイス',
  // Written by classifyPending() and setup(): what is wrong with the rule and what to do.
  '診断',
] as const;

/** Rules learnt from people's approvals; a person adopts one by ticking 採用 (rules/candidates.ts). */
export const RULE_CANDIDATE_HEADERS = [
  '採用',
  '状態',
  'キーワード',
  '一致方法',
  '入出金',
  '勘定科目',
  '補助科目',
  '税区分',
  '取引先',
  '該当行数',
  '摘要の例',
  '根拠',
  '更新日時',
] as const;

export const SETTINGS_HEADERS = ['項目', '値'] as const;

export const SOURCE_HEADERS = ['名前', '勘定科目', '補助科目', '取込形式'] as const;

/**
 * Headers 初期設定 adds but no run needs: a sheet from before they existed still works. 取込形式 is the
 * optional saved CSV layout of a 取込元 (issue 26); a 台帳 from before the インボイス column keeps working
 * (a purchase then waits as 未判定 until the column is there and filled in), and the マスタ's 税区分ID and
 * 登録番号 are filled on its next refresh (issue 27).
 */
export const OPTIONAL_HEADERS: Readonly<Record<string, readonly string[]>> = {
  取込元: ['取込形式'],
  台帳: ['インボイス'],
  マスタ: ['税区分ID', '登録番号'],
};

export const MASTER_HEADERS = [
  '種別',
  '名前',
  '勘定科目',
  'ID',
  'コード',
  '有効',
  '取得日時',
  '読み',
  // Issue 27: an account's default tax (what MF applies when tax_id is left out), a 取引先's 登録番号.
  '税区分ID',
  '登録番号',
] as const;

export const REVIEW_HEADERS = ['キー', '状態', '取引日', '金額', '摘要', '理由', '対応', '行'] as const;

export const DRY_RUN_HEADERS = [
  '区分',
  'キー',
  '状態',
  '取引日',
  '入出金',
  '金額',
  '摘要',
  '勘定科目',
  '補助科目',
  '税区分',
  '取引先',
  '内容',
] as const;

export const LOG_HEADERS = ['日時', '実行者', '起動元', '処理', '結果', '件数', 'メッセージ'] as const;

export const RECEIVABLE_HEADERS = [
  '取引先',
  '発生日',
  '金額',
  '回収済',
  '残高',
  '経過日数',
  '区分',
  '状態',
  '値引・返品',
  '手数料差額',
  '説明',
] as const;

/** What the last 本番前チェック found, one row per item (DESIGN §3). */
export const SELF_TEST_HEADERS = ['項目', '結果', '詳細', '確認日時'] as const;

/**
 * 重複点検 (DESIGN §3): one row per journal of a group of suspected duplicates. DESIGN's eleven headers,
 * plus 確認すること (what a person should check), 提案 (which to keep), and the delete's own 状態 / 結果 /
 * 台帳のキー / 更新日時: a delete is claimed on this sheet before it is sent, as a post is on the 台帳.
 */
export const DUPLICATE_HEADERS = [
  'グループ',
  '仕訳ID',
  '取引日',
  '金額',
  '借方',
  '貸方',
  '摘要',
  '作成元',
  '推定原因',
  '確認すること',
  '提案',
  '操作',
  '状態',
  '結果',
  '台帳のキー',
  '更新日時',
  'メモ',
] as const;

export type DuplicateHeader = (typeof DUPLICATE_HEADERS)[number];

/**
 * 残高照合 (DESIGN §3): per account and month end. DESIGN's six headers plus the MF account the 口座 is
 * booked on, and 通帳残高, which a person types when the statement has no CSV balance.
 */
export const BALANCE_HEADERS = [
  '口座',
  '勘定科目',
  '補助科目',
  '月末',
  'MFの残高',
  '明細の残高',
  '通帳残高',
  '差額',
  '説明',
] as const;

export type BalanceHeader = (typeof BALANCE_HEADERS)[number];

/**
 * 取引先インボイス (issue 27): the 区分 people keep per 取引先, the last source of a purchase's 区分 (after the
 * rule, the MF 取引先's 登録番号 and the AI). 取引先 is matched to the row's 取引先, else found in its 摘要.
 */
export const INVOICE_PARTNER_HEADERS = ['取引先', 'インボイス', '登録番号', 'メモ'] as const;

export interface SheetSpec {
  readonly name: SheetName;
  readonly headers: readonly string[];
}

/** Every sheet setup() guarantees, in tab order. */
export const SHEET_SPECS: readonly SheetSpec[] = [
  { name: SHEET.ledger, headers: LEDGER_HEADERS },
  { name: SHEET.review, headers: REVIEW_HEADERS },
  { name: SHEET.rules, headers: RULE_HEADERS },
  { name: SHEET.ruleCandidates, headers: RULE_CANDIDATE_HEADERS },
  { name: SHEET.settings, headers: SETTINGS_HEADERS },
  { name: SHEET.sources, headers: SOURCE_HEADERS },
  { name: SHEET.masters, headers: MASTER_HEADERS },
  { name: SHEET.dryRun, headers: DRY_RUN_HEADERS },
  { name: SHEET.selfTest, headers: SELF_TEST_HEADERS },
  { name: SHEET.log, headers: LOG_HEADERS },
  { name: SHEET.receivables, headers: RECEIVABLE_HEADERS },
  { name: SHEET.duplicates, headers: DUPLICATE_HEADERS },
  { name: SHEET.balances, headers: BALANCE_HEADERS },
  { name: SHEET.invoicePartners, headers: INVOICE_PARTNER_HEADERS },
];
