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
  ['アーカイブまでの月数', ''],
  // Issue 27 (インボイス区分): whether a 未判定 purchase waits for a person, the 少額特例, and the 特例 MF cannot tell.
  ['インボイス未判定の扱い', '保留'],
  ['少額特例', 'オフ'],
  ['消費税の特例', 'なし'],
  // オン: a registration number decides 適格 only when the NTA's Web-API shows it registered on the 取引日.
  ['登録番号の照会', 'オフ'],
];

/** Whole-number items: the value used when 空, the lowest and the highest accepted (parseSettings, 説明). */
export const INT_ITEMS = {
  '照合猶予（分）': [15, 1, 1440],
  最大試行回数: [3, 1, 20],
  '1回の送信上限': [200, 1, 1000],
  AI1回の上限: [20, 1, 500],
  AI1日の上限: [200, 1, 10000],
  '回収期限（日）': [60, 1, 3650],
  振込手数料上限: [880, 0, 10000],
  バックアップ世代数: [7, 0, 30],
  重複とみなす日数: [3, 0, 31],
  // 空 = never; 0 = through today.
  アーカイブまでの月数: [0, 0, 120],
} as const satisfies Record<string, readonly [number, number, number]>;

/** Items with a fixed list of values (parseSettings, 説明). */
export const CHOICE_ITEMS = {
  自動実行: ['オン', 'オフ'],
  '照合間隔（分）': ['5', '10', '15', '30'],
  AI判定: ['オフ', 'openai', 'anthropic', 'gemini'],
  AI自動承認: ['オン', 'オフ'],
  売掛金の定期チェック: ['オン', 'オフ'],
  インボイス未判定の扱い: ['保留', '送信'],
  少額特例: ['オン', 'オフ'],
  消費税の特例: ['なし', '2割特例', '3割特例'],
  登録番号の照会: ['オン', 'オフ'],
} as const satisfies Record<string, readonly string[]>;

/**
 * What may be typed for `item` and what 空 means, as one line: the 設定 sheet shows it beside the value
 * (説明) and the 設定 dialog under the field, from the same tables parseSettings checks against.
 */
export function settingRange(item: string): string {
  const initial = SETTING_DEFAULTS.find(([i]) => i === item)?.[1] ?? '';
  const dates = `${WINDOW_DATES.min}〜${WINDOW_DATES.max} の日付`;
  if (item === '取込開始日') return `${dates}。空なら前月の1日（行は消さないでください）`;
  if (item === '取込終了日') return `${dates}。空なら今日`;
  if (item === '対象口座') return 'MFの口座名をカンマ区切りで。空ならすべての口座';
  if (item === 'AI信頼度しきい値') return '0〜1 の数。空なら 0.8';
  if (item === '売掛金科目') return 'MFの勘定科目名。空なら 売掛金';
  if (item === 'アーカイブまでの月数') return '0〜120 の整数。空ならアーカイブしない（0 は今日まで）';
  if (item in CHOICE_ITEMS)
    return `${CHOICE_ITEMS[item as keyof typeof CHOICE_ITEMS].join(' / ')} のどれか。空なら ${initial}`;
  if (item in INT_ITEMS) {
    const [fallback, min, max] = INT_ITEMS[item as keyof typeof INT_ITEMS];
    return `${min}〜${max} の整数。空なら ${fallback}${item === 'バックアップ世代数' ? '（0 はバックアップしない）' : ''}`;
  }
  return '';
}

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
  /** 古い行をアーカイブ: 完了・除外 rows this many months old move to 台帳アーカイブ (null = 空: never). */
  archiveMonths: number | null;
  /** 保留 (default): a purchase whose インボイス is 未判定 is not sent — a wrong credit is worse than a late one. */
  holdUndecidedInvoice: boolean;
  /** 少額特例 (税込1万円未満, to 2029-09-30): for offices that qualify, which kicho cannot tell. */
  smallAmountRule: boolean;
  /** 2割特例 / 3割特例: the 区分 does not change the tax (MF's term settings cannot say so). */
  specialRule: 'なし' | '2割特例' | '3割特例';
  /**
   * What is wrong with a typed 取込開始日 / 取込終了日, naming its cell: importWindow gives it as the
   * window's problem, so every run that uses the window says it the same way instead of using a default.
   */
  windowProblem?: string;
  /** 登録番号の照会: ask the NTA's Web-API whether a number was registered on the 取引日 (off by default). */
  ntaLookup: boolean;
}

export interface SettingProblem {
  /** The cell, e.g. 「設定 B3」. */
  cell: string;
  message: string;
  /** The 設定 item it concerns (a run that needs this item does not run while it is an error). */
  item?: string;
  /** An error makes its item unusable; a warning is only said. Invalid values are errors. */
  severity?: 'error' | 'warning';
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

/** yyyy-MM-dd from a typed date string or a Date the sheet coerced (the year always four digits). */
export function dateText(value: unknown): string | null {
  const year = (y: number) => String(y).padStart(4, '0');
  if (Object.prototype.toString.call(value) === '[object Date]') {
    const d = value as Date;
    if (Number.isNaN(d.getTime())) return null;
    return `${year(d.getFullYear())}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }
  const m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(String(value).normalize('NFKC').trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${year(y)}-${pad(mo)}-${pad(d)}`;
}

/**
 * The dates 取込開始日 and 取込終了日 may hold. kicho's window is where MF statement lines and journals are
 * asked for, and MF books exist only inside its accounting periods (/offices), which no office kicho
 * serves starts last century: a year outside 2000–2099 is a slip of the keyboard (1900 is what Sheets
 * shows for a zero date, 0001 a year typed without its century), and without this bound it was taken at
 * its word — 1,518 month ends on 残高照合, or an internal-looking failure for 0001.
 */
export const WINDOW_DATES = { min: '2000-01-01', max: '2099-12-31' } as const;

const ITEMS: readonly string[] = SETTING_DEFAULTS.map(([item]) => item);
const fold = (text: string) => text.normalize('NFKC').replace(/\s+/g, '');

/** The item a typed 項目 means (NFKC, spaces ignored), or null when it is not one of ours. */
export function canonicalItem(typed: string): string | null {
  const f = fold(String(typed));
  return ITEMS.find((i) => fold(i) === f) ?? null;
}

/** Levenshtein distance, for naming the item a typo probably meant. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The known item closest to a typed one (at most half its length away), or null. */
export function closestItem(typed: string): string | null {
  const f = fold(typed);
  let best: { item: string; d: number } | null = null;
  for (const item of ITEMS) {
    const d = distance(f, fold(item));
    if (!best || d < best.d) best = { item, d };
  }
  return best && best.d <= Math.max(1, Math.floor(fold(best.item).length / 2)) ? best.item : null;
}

/** Without this row a run would use a window nobody chose: the import does not guess it. */
const ROW_REQUIRED = new Set(['取込開始日']);

/**
 * Problems with the 設定 sheet itself (DESIGN §3): an item on two rows is an error naming both rows;
 * an unknown item is a warning naming the closest known one; a missing row says which default is used
 * (取込開始日: an error — the import window is not guessed) and that 初期設定 puts the row back.
 */
export function settingsSheetProblems(rows: readonly SettingRow[], itemColumn = 'A'): SettingProblem[] {
  const problems: SettingProblem[] = [];
  const rowsOf = new Map<string, number[]>();
  for (const r of rows) {
    const typed = String(r.item ?? '').trim();
    if (typed === '') continue;
    const item = canonicalItem(typed);
    if (item === null) {
      const near = closestItem(typed);
      problems.push({
        cell: `設定 ${itemColumn}${r.rowNumber}`,
        message: near
          ? `項目「${typed}」はありません。「${near}」のことなら、項目名を「${near}」に直してください（今は使われていません）。`
          : `項目「${typed}」はありません（今は使われていません）。使える項目はメニュー「設定を編集」で確かめられます。`,
        severity: 'warning',
      });
      continue;
    }
    rowsOf.set(item, [...(rowsOf.get(item) ?? []), r.rowNumber]);
  }
  for (const [item, numbers] of rowsOf) {
    if (numbers.length < 2) continue;
    problems.push({
      cell: `設定 ${numbers.map((n) => `${itemColumn}${n}`).join('・')}`,
      message: `${item}: ${numbers.length} 行（${numbers.join('・')} 行目）にあります。どちらの値を使うか決められないため、この項目を使う処理は止めます。1 行だけ残して、ほかの行を消してください。`,
      item,
      severity: 'error',
    });
  }
  for (const [item, value] of SETTING_DEFAULTS) {
    if (rowsOf.has(item)) continue;
    const required = ROW_REQUIRED.has(item);
    problems.push({
      cell: '設定',
      message: required
        ? `${item}: 行がありません。取込期間を決められないため、取り込みは止めます。メニュー「記帳 > 接続と設定 > 初期設定」で行を戻し、値を入力してください。`
        : `${item}: 行がないため、初期値（${value === '' ? '空' : value}）を使いました。メニュー「記帳 > 接続と設定 > 初期設定」で行を戻せます。`,
      item,
      severity: required ? 'error' : 'warning',
    });
  }
  return problems;
}

/** The errors among `problems` that stop a run needing `needs`. */
export function blockingProblems(
  problems: readonly SettingProblem[],
  needs: readonly string[],
): SettingProblem[] {
  return problems.filter((p) => p.severity === 'error' && p.item !== undefined && needs.includes(p.item));
}

/** What each run needs from 設定 (DESIGN §3: a run that needs an invalid setting does not run on a default). */
export const SETTING_NEEDS = {
  import: ['取込開始日', '取込終了日', '対象口座'],
  restore: ['取込開始日', '取込終了日'],
  post: ['1回の送信上限', 'インボイス未判定の扱い', '消費税の特例'],
  dryRun: ['1回の送信上限', 'インボイス未判定の扱い', '消費税の特例'],
  reconcile: ['照合猶予（分）', '最大試行回数'],
  classify: ['AI判定', '売掛金科目', '振込手数料上限', '少額特例', '消費税の特例', '登録番号の照会'],
  classifyAi: ['AI信頼度しきい値', 'AI自動承認', 'AI1回の上限', 'AI1日の上限'],
  scheduled: ['自動実行'],
  receivables: ['売掛金科目', '回収期限（日）', '振込手数料上限'],
  backup: ['バックアップ世代数'],
  triggers: ['照合間隔（分）', '売掛金の定期チェック'],
  audit: ['取込開始日', '取込終了日', '重複とみなす日数'],
  balances: ['取込開始日', '取込終了日'],
  archive: ['アーカイブまでの月数'],
} as const satisfies Record<string, readonly string[]>;

/** Parses 設定; an invalid value falls back to its default and is reported with its cell. */
export function parseSettings(
  rows: readonly SettingRow[],
  valueColumn = 'B',
): { settings: Settings; problems: SettingProblem[] } {
  const problems: SettingProblem[] = [];
  // Items match over NFKC (a half-width bracket is the same item); a repeated item keeps its first row
  // (settingsSheetProblems reports the repeat as an error, so no run relies on either row).
  const byItem = new Map<string, SettingRow>();
  for (const r of rows) {
    const item = canonicalItem(r.item);
    if (item !== null && !byItem.has(item)) byItem.set(item, r);
  }
  const text = (item: string) =>
    String(byItem.get(item)?.value ?? '')
      .normalize('NFKC')
      .trim();
  const report = (item: string, message: string) => {
    const row = byItem.get(item);
    problems.push({
      cell: row ? `設定 ${valueColumn}${row.rowNumber}` : '設定',
      message: `${item}: ${message}`,
      item,
      severity: 'error',
    });
  };
  const date = (item: string): string | null => {
    const raw = byItem.get(item)?.value;
    if (raw === undefined || raw === '' || raw === null) return null;
    const d = dateText(raw);
    if (!d) report(item, `「${String(raw)}」は日付として読めません。2026-04-01 のように入力してください。`);
    else if (d < WINDOW_DATES.min || d > WINDOW_DATES.max) {
      report(
        item,
        `「${d}」は使えません。${WINDOW_DATES.min}〜${WINDOW_DATES.max} の日付を 2026-04-01 のように入力してください（年の打ち間違いとみなしました）。`,
      );
      return null;
    }
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
    choice('照合間隔（分）', CHOICE_ITEMS['照合間隔（分）'], '15'),
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
    graceMinutes: int('照合猶予（分）', ...INT_ITEMS['照合猶予（分）']),
    maxAttempts: int('最大試行回数', ...INT_ITEMS.最大試行回数),
    batchLimit: int('1回の送信上限', ...INT_ITEMS['1回の送信上限']),
    aiProvider: choice('AI判定', CHOICE_ITEMS.AI判定, 'オフ'),
    aiThreshold,
    aiAutoApprove: choice('AI自動承認', ['オン', 'オフ'] as const, 'オフ') === 'オン',
    aiPerRun: int('AI1回の上限', ...INT_ITEMS.AI1回の上限),
    aiPerDay: int('AI1日の上限', ...INT_ITEMS.AI1日の上限),
    receivableAccount: text('売掛金科目') || '売掛金',
    collectionDays: int('回収期限（日）', ...INT_ITEMS['回収期限（日）']),
    feeTolerance: int('振込手数料上限', ...INT_ITEMS.振込手数料上限),
    receivablesWeekly: choice('売掛金の定期チェック', ['オン', 'オフ'] as const, 'オフ') === 'オン',
    backupGenerations: int('バックアップ世代数', ...INT_ITEMS.バックアップ世代数),
    duplicateDays: int('重複とみなす日数', ...INT_ITEMS.重複とみなす日数),
    archiveMonths:
      text('アーカイブまでの月数') === ''
        ? null
        : int('アーカイブまでの月数', ...INT_ITEMS.アーカイブまでの月数),
    holdUndecidedInvoice:
      choice('インボイス未判定の扱い', CHOICE_ITEMS.インボイス未判定の扱い, '保留') === '保留',
    smallAmountRule: choice('少額特例', CHOICE_ITEMS.少額特例, 'オフ') === 'オン',
    specialRule: choice('消費税の特例', CHOICE_ITEMS.消費税の特例, 'なし'),
    ntaLookup: choice('登録番号の照会', CHOICE_ITEMS.登録番号の照会, 'オフ') === 'オン',
  };
  if (settings.importStart && settings.importEnd && settings.importStart > settings.importEnd) {
    report('取込終了日', `取込開始日（${settings.importStart}）より前になっています。`);
  }
  const windowProblem = problems.find((p) => p.item === '取込開始日' || p.item === '取込終了日');
  if (windowProblem) settings.windowProblem = `${windowProblem.cell} ${windowProblem.message}`;
  // In sheet order, so a person can fix them top to bottom.
  const rowOf = (p: SettingProblem) => Number(/\d+$/.exec(p.cell)?.[0] ?? 0);
  return { settings, problems: problems.sort((a, b) => rowOf(a) - rowOf(b)) };
}

/** Without 取込開始日, the first day of the previous month: recent lines, not the whole history. */
function defaultStart(todayText: string): string {
  const [y, m] = todayText.split('-').map(Number);
  const month = m === 1 ? 12 : m - 1;
  const year = m === 1 ? y - 1 : y;
  return `${year}-${String(month).padStart(2, '0')}-01`;
}

/** The import window in 設定 (also where reconcile and restore look), with a message when it is empty. */
export function importWindow(
  settings: Settings,
  todayText: string,
): { start: string; end: string; label: string; problem: string | null } {
  const start = settings.importStart ?? defaultStart(todayText);
  const end = settings.importEnd ?? todayText;
  // 取込開始日 left empty means the previous month: with an early 取込終了日 that can end before it starts.
  const problem = settings.windowProblem
    ? settings.windowProblem
    : start > end
      ? `取込期間の始まり（${start}${settings.importStart ? '' : '、取込開始日が空のため前月の1日'}）が終わり（${end}）より後になっています。設定の 取込開始日・取込終了日 を直してください。`
      : null;
  return { start, end, label: `${settings.importStart ?? ''}..${settings.importEnd ?? ''}`, problem };
}
