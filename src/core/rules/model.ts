/**
 * The ルール sheet's model (DESIGN §3): what a rule is, the line it is matched against, and every
 * sentence the sheet's checks say. Matching is on NFKC text so that 全角/半角 and kana width do not
 * matter (ｱﾏｿﾞﾝ = アマゾン).
 */
export const MATCH_TYPES = ['完全一致', '部分一致', '前方一致', '後方一致', '正規表現'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export interface Rule {
  /** 1-based row on the ルール sheet when it was read. */
  rowNumber: number;
  /** Lower wins; ties go to the upper row. */
  priority: number;
  matchType: MatchType;
  /** The keyword as written on the sheet (matching uses its NFKC form). */
  keyword: string;
  direction: '入金' | '出金' | null;
  minAmount: number | null;
  maxAmount: number | null;
  /** 口座 as written (one name or a comma-separated list); null = every account. */
  account: string | null;
  勘定科目: string;
  補助科目: string;
  税区分: string;
  取引先: string;
  /** インボイス: 適格 / 非適格 / 対象外 / 帳簿のみ, or '' (issue 27; an optional column). */
  インボイス: '' | '適格' | '非適格' | '対象外' | '未判定' | '帳簿のみ';
  autoApprove: boolean;
  enabled: boolean;
  /** Short Japanese description for 判定根拠. */
  text: string;
}

export interface RuleProblem {
  rowNumber: number;
  /** The header of the cell at fault. */
  column: string;
  message: string;
}

export interface RuleNote {
  rowNumber: number;
  message: string;
}

export interface RuleLine {
  description: string;
  direction: string;
  amount: number;
  account: string;
}

const MATCH_TYPE_LIST = MATCH_TYPES.join('・');

export const RULE_MSG = {
  missingHeader: (header: string): string =>
    `ルール 1行目: 見出し「${header}」がありません。メニュー「初期設定」を実行するか、見出しを元に戻してください。ルールは使われません。`,
  emptyPriority: (row: number): string =>
    `ルール ${row}行目: 優先度が空です。1, 2, 3 のような数字を入れてください（小さいほど優先）。`,
  badPriority: (row: number, value: string): string =>
    `ルール ${row}行目: 優先度「${value}」が数字ではありません。1, 2, 3 のような数字を入れてください（小さいほど優先）。`,
  emptyMatchType: (row: number): string =>
    `ルール ${row}行目: 一致方法が空です。${MATCH_TYPE_LIST} から選んでください。`,
  badMatchType: (row: number, value: string): string =>
    `ルール ${row}行目: 一致方法「${value}」は使えません。${MATCH_TYPE_LIST} から選んでください。`,
  emptyKeyword: (row: number): string =>
    `ルール ${row}行目: キーワードが空です。摘要に含まれる文字（例: ｱﾏｿﾞﾝ）を入れてください。`,
  badRegex: (row: number, value: string): string =>
    `ルール ${row}行目: キーワード「${value}」は正規表現として正しくありません。カッコや記号の対応を確かめるか、一致方法を「部分一致」にしてください。`,
  regexBackreference: (row: number, value: string): string =>
    `ルール ${row}行目: 正規表現「${value}」の \\1 や \\k<名前> のような後方参照は、処理に時間がかかるおそれがあるため使えません。後方参照を使わない形に書き直してください。`,
  regexNested: (row: number, value: string): string =>
    `ルール ${row}行目: 正規表現「${value}」は、繰り返し（* + ? {n,m}）や「|」を含むカッコ全体をさらに繰り返しているため、処理に時間がかかるおそれがあり使えません。「(a+)+」は「a+」、「(a|b)+」は「[ab]+」のように書き直してください。`,
  regexTooComplex: (row: number, value: string): string =>
    `ルール ${row}行目: 正規表現「${value}」は繰り返し（* + ? {n,m}）が多く、処理に時間がかかるおそれがあるため使えません。「.*」「\\d+」のような繰り返しを減らしてください（目安は2つまで）。`,
  badDirection: (row: number, value: string): string =>
    `ルール ${row}行目: 入出金「${value}」は使えません。入金・出金 のどちらかを選ぶか、両方に当てはめるなら空にしてください。`,
  badAmount: (row: number, column: string, value: string): string =>
    `ルール ${row}行目: ${column}「${value}」が数字ではありません。1000 のように円の金額を入れるか、空にしてください。`,
  amountRange: (row: number, min: number, max: number): string =>
    `ルール ${row}行目: 金額下限（${yen(min)}）が金額上限（${yen(max)}）より大きいため、どの明細にも当てはまりません。2つの値を入れ替えてください。`,
  emptyAccount: (row: number): string =>
    `ルール ${row}行目: 勘定科目が空です。当てはまった明細に付ける勘定科目（例: 消耗品費）を入れてください。`,
  badAutoApprove: (row: number, value: string): string =>
    `ルール ${row}行目: 自動承認「${value}」は使えません。はい・いいえ から選んでください（空はいいえ）。`,
  badInvoice: (row: number, value: string): string =>
    `ルール ${row}行目: インボイス「${value}」は使えません。適格・非適格・対象外・帳簿のみ のどれかにするか、空にしてください。`,
  badEnabled: (row: number, value: string): string =>
    `ルール ${row}行目: 有効「${value}」は使えません。チェックボックスにして、使うルールにチェックを入れてください。`,
  shadowed: (row: number, byRow: number, byPriority: number): string =>
    `ルール ${row}行目は、先に調べられるルール ${byRow}行目（優先度 ${byPriority}）と同じか、それより広い条件のため、使われることがありません。優先度を見直すか、不要なら「有効」のチェックを外してください。`,
} as const;

export function yen(n: number): string {
  const [int, frac] = String(Math.abs(n)).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}円`;
}
