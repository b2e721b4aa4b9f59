/** 設定 sheet items, their defaults, and parsing with messages that name the cell (DESIGN §3). */

/** Values are what a person sees in the 値 column. */
export const SETTING_DEFAULTS: ReadonlyArray<readonly [item: string, value: string]> = [
  ['取込開始日', ''],
  ['取込終了日', ''],
  ['対象口座', ''],
  ['自動実行', 'オフ'],
  ['照合間隔（分）', '15'],
  ['照合猶予（分）', '15'],
  ['最大試行回数', '3'],
  ['1回の送信上限', '200'],
  ['AI判定', 'オフ'],
  ['AI信頼度しきい値', '0.8'],
  ['AI自動承認', 'オフ'],
  ['AI1回の上限', '20'],
  ['AI1日の上限', '200'],
  ['売掛金科目', '売掛金'],
  ['回収期限（日）', '60'],
  ['振込手数料上限', '880'],
  ['売掛金の定期チェック', 'オフ'],
  ['バックアップ世代数', '7'],
  ['重複とみなす日数', '3'],
];

export interface Settings {
  importStart: string | null;
  importEnd: string | null;
  targetAccounts: string[];
  autoRun: boolean;
  reconcileIntervalMinutes: 5 | 10 | 15 | 30;
  graceMinutes: number;
  maxAttempts: number;
  batchLimit: number;
  aiProvider: 'オフ' | 'openai' | 'anthropic' | 'gemini';
  aiThreshold: number;
  /** AI answers at or above the threshold become 送信待ち only when オン (default オフ: 要確認). */
  aiAutoApprove: boolean;
  aiPerRun: number;
  aiPerDay: number;
  receivableAccount: string;
  collectionDays: number;
  /** 売掛金チェック: a payment short by at most this (the payer's transfer fee) settles an invoice. */
  feeTolerance: number;
  /** 売掛金チェック every Monday by trigger. */
  receivablesWeekly: boolean;
  /** Daily copies of the 台帳 kept (0 = no backups). */
  backupGenerations: number;
  /** 重複点検: two recordings of one money may be dated this many days apart (card use vs posting date). */
  duplicateDays: number;
}

export interface SettingProblem {
  /** The cell, e.g. 「設定 B3」. */
  cell: string;
  message: string;
}

/** A 設定 row as read: item, value, and the sheet row number. */
export interface SettingRow {
  item: string;
  value: unknown;
  rowNumber: number;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** yyyy-MM-dd from a typed date string or a Date the sheet coerced. */
export function dateText(value: unknown): string | null {
  if (Object.prototype.toString.call(value) === '[object Date]') {
    const d = value as Date;
    if (Number.isNaN(d.getTime())) return null;
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }
  const m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(String(value).normalize('NFKC').trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${y}-${pad(mo)}-${pad(d)}`;
}

/** Parses 設定; an invalid value falls back to its default and is reported with its cell. */
export function parseSettings(
  rows: readonly SettingRow[],
  valueColumn = 'B',
): { settings: Settings; problems: SettingProblem[] } {
  const problems: SettingProblem[] = [];
  const byItem = new Map(rows.map((r) => [r.item.trim(), r]));
  const text = (item: string) =>
    String(byItem.get(item)?.value ?? '')
      .normalize('NFKC')
      .trim();
  const report = (item: string, message: string) => {
    const row = byItem.get(item);
    problems.push({
      cell: row ? `設定 ${valueColumn}${row.rowNumber}` : '設定',
      message: `${item}: ${message}`,
    });
  };
  const date = (item: string): string | null => {
    const raw = byItem.get(item)?.value;
    if (raw === undefined || raw === '' || raw === null) return null;
    const d = dateText(raw);
    if (!d) report(item, `「${String(raw)}」は日付として読めません。2026-04-01 のように入力してください。`);
    return d;
  };
  const int = (item: string, fallback: number, min: number, max: number): number => {
    const t = text(item);
    if (t === '') return fallback;
    const n = Number(t);
    if (!Number.isInteger(n) || n < min || n > max) {
      report(item, `「${t}」は使えません。${min}〜${max} の整数を入力してください。`);
      return fallback;
    }
    return n;
  };
  const choice = <T extends string>(item: string, options: readonly T[], fallback: T): T => {
    const t = text(item);
    if (t === '') return fallback;
    const found = options.find((o) => o.toLowerCase() === t.toLowerCase());
    if (!found) report(item, `「${t}」は使えません。${options.join('・')} から選んでください。`);
    return found ?? fallback;
  };

  const interval = Number(
    choice('照合間隔（分）', ['5', '10', '15', '30'] as const, '15'),
  ) as Settings['reconcileIntervalMinutes'];
  const thresholdText = text('AI信頼度しきい値');
  let aiThreshold = 0.8;
  if (thresholdText !== '') {
    const n = Number(thresholdText);
    if (!(n >= 0 && n <= 1))
      report('AI信頼度しきい値', `「${thresholdText}」は使えません。0〜1 の数を入力してください。`);
    else aiThreshold = n;
  }
  const settings: Settings = {
    importStart: date('取込開始日'),
    importEnd: date('取込終了日'),
    targetAccounts: text('対象口座')
      .split(/[,、]/)
      .map((s) => s.trim())
      .filter((s) => s !== ''),
    autoRun: choice('自動実行', ['オン', 'オフ'] as const, 'オフ') === 'オン',
    reconcileIntervalMinutes: interval,
    graceMinutes: int('照合猶予（分）', 15, 1, 1440),
    maxAttempts: int('最大試行回数', 3, 1, 20),
    batchLimit: int('1回の送信上限', 200, 1, 1000),
    aiProvider: choice('AI判定', ['オフ', 'openai', 'anthropic', 'gemini'] as const, 'オフ'),
    aiThreshold,
    aiAutoApprove: choice('AI自動承認', ['オン', 'オフ'] as const, 'オフ') === 'オン',
    aiPerRun: int('AI1回の上限', 20, 1, 500),
    aiPerDay: int('AI1日の上限', 200, 1, 10000),
    receivableAccount: text('売掛金科目') || '売掛金',
    collectionDays: int('回収期限（日）', 60, 1, 3650),
    feeTolerance: int('振込手数料上限', 880, 0, 10000),
    receivablesWeekly: choice('売掛金の定期チェック', ['オン', 'オフ'] as const, 'オフ') === 'オン',
    backupGenerations: int('バックアップ世代数', 7, 0, 30),
    duplicateDays: int('重複とみなす日数', 3, 0, 31),
  };
  if (settings.importStart && settings.importEnd && settings.importStart > settings.importEnd) {
    report('取込終了日', `取込開始日（${settings.importStart}）より前になっています。`);
  }
  // In sheet order, so a person can fix them top to bottom.
  const rowOf = (p: SettingProblem) => Number(/\d+$/.exec(p.cell)?.[0] ?? 0);
  return { settings, problems: problems.sort((a, b) => rowOf(a) - rowOf(b)) };
}
