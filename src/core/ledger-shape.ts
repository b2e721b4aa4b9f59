/**
 * The shape a run needs before it reads or writes anything (DESIGN §3): the sheets people keep data in
 * and their headers. A missing sheet or header stops the run with a message that says what is missing
 * and how to restore it; 初期設定 puts a cleared header back over its own column, recognised by what
 * the column holds, never as a new empty column beside orphaned data. Pure.
 */

import { LEDGER_HEADERS, OPTIONAL_HEADERS, SHEET, SHEET_SPECS, type SheetName } from './schema';
import { OPERATIONS, STATES } from './states';

/** Hidden daily copies (app/backup.ts): never mistaken for a renamed 台帳. */
export const BACKUP_PREFIX = '台帳バックアップ ';

/** Headers only the 台帳 has: a sheet with most of them under another name is a renamed 台帳. */
const LEDGER_MARKS = ['キー', '状態', '明細ID', 'MF仕訳ID', '試行回数', '指紋', '初回検知'] as const;

/** Every header 初期設定 puts on a sheet (optional ones included). */
export function specHeaders(name: SheetName): readonly string[] {
  return SHEET_SPECS.find((s) => s.name === name)?.headers ?? [];
}

/** The headers a run needs (a sheet without an optional header still works). */
export function requiredHeaders(name: SheetName): readonly string[] {
  const optional = OPTIONAL_HEADERS[name] ?? [];
  return (SHEET_SPECS.find((s) => s.name === name)?.headers ?? []).filter((h) => !optional.includes(h));
}

function texts(header: readonly unknown[]): Set<string> {
  return new Set(header.map((h) => String(h ?? '').trim()).filter((h) => h !== ''));
}

/**
 * True when a sheet looks like the 台帳 under another name: most of its headers in row 1, or — when
 * row 1 was cleared too — rows below holding a key and a 状態 side by side.
 */
export function looksLikeLedger(
  name: string,
  header: readonly unknown[],
  rows: readonly (readonly unknown[])[] = [],
): boolean {
  // 台帳アーカイブ (issue 18) has the 台帳's headers on purpose.
  if (name === SHEET.ledger || name.startsWith(BACKUP_PREFIX) || name === '台帳アーカイブ') return false;
  const present = texts(header);
  if (LEDGER_MARKS.filter((h) => present.has(h)).length >= 4) return true;
  if (present.size > 0) return false;
  const key = (v: unknown) => /^(mf|csv|evt):\S+$/.test(String(v));
  const state = (v: unknown) => (STATES as readonly string[]).includes(String(v));
  const lines = rows.filter((r) => r.some(key) && r.some(state));
  return (
    lines.length > 0 && lines.length >= Math.ceil(rows.filter((r) => r.some((v) => v !== '')).length / 2)
  );
}

export type ShapeProblem =
  | { kind: 'missing-sheet'; sheet: SheetName; lookalikes: readonly string[] }
  | { kind: 'missing-headers'; sheet: SheetName; headers: readonly string[] };

/** What is wrong with the sheets a run needs (`found`: header row by sheet, undefined = no sheet). */
export function shapeProblems(
  needs: readonly SheetName[],
  found: ReadonlyMap<string, readonly unknown[] | undefined>,
  lookalikes: readonly string[] = [],
): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  for (const sheet of needs) {
    const header = found.get(sheet);
    if (header === undefined) {
      problems.push({ kind: 'missing-sheet', sheet, lookalikes: sheet === SHEET.ledger ? lookalikes : [] });
      continue;
    }
    const present = texts(header);
    const headers = requiredHeaders(sheet).filter((h) => !present.has(h));
    if (headers.length > 0) problems.push({ kind: 'missing-headers', sheet, headers });
  }
  return problems;
}

const NOTHING_DONE = 'この実行では何も読み書きしていません。';

function missingSheetMessage(p: Extract<ShapeProblem, { kind: 'missing-sheet' }>): string {
  if (p.sheet === SHEET.ledger) {
    if (p.lookalikes.length === 1)
      return `シート「台帳」が見つかりません。シート「${p.lookalikes[0]}」が台帳のようです。名前を「台帳」に戻してください。`;
    if (p.lookalikes.length > 1)
      return `シート「台帳」が見つかりません。台帳のようなシートが ${p.lookalikes.map((n) => `「${n}」`).join('')} と ${p.lookalikes.length} つあります。使う方の名前を「台帳」に戻してください。`;
    return 'シート「台帳」が見つかりません（削除されたか、名前が変わった可能性があります）。名前を変えた場合は「台帳」に戻してください。削除した場合は、メニュー「記帳 > 接続と設定 > 初期設定」で作り直してから、MFの明細の行は「台帳を復元」で、CSVの行は同じCSVの取り込み直しで戻せます（非表示のシート「台帳バックアップ 日付」にも前日までの行があります）。';
  }
  const refill =
    p.sheet === SHEET.masters
      ? 'メニュー「記帳 > 接続と設定 > 初期設定」で作り直すと、MFから取り直します。'
      : 'メニュー「記帳 > 接続と設定 > 初期設定」で作り直し、中身を入力し直してください。';
  return `シート「${p.sheet}」が見つかりません（削除されたか、名前が変わった可能性があります）。名前を変えた場合は「${p.sheet}」に戻してください。削除した場合は、${refill}`;
}

/** One plain-Japanese sentence per problem, then what the run did (nothing). */
export function describeShapeProblems(problems: readonly ShapeProblem[]): string[] {
  if (problems.length === 0) return [];
  const lines = problems.map((p) =>
    p.kind === 'missing-sheet'
      ? missingSheetMessage(p)
      : `シート「${p.sheet}」の見出し${p.headers.map((h) => `「${h}」`).join('')}が見つかりません（1 行目の見出しが消されたか、書き換えられた可能性があります）。見出しで列を探すため、このままでは読み書きできません。メニュー「記帳 > 接続と設定 > 初期設定」を実行すると、列の中身から元の位置に見出しを戻します。`,
  );
  return [...lines, NOTHING_DONE];
}

// Header restoration (初期設定)

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;

function isDate(v: unknown): boolean {
  return Object.prototype.toString.call(v) === '[object Date]' || DATE_TEXT.test(String(v));
}

/**
 * What a column under each 台帳 header holds. Headers of free text (摘要, 勘定科目, メモ …) have no
 * test: they are placed only by the remembered layout or by their own position.
 */
const LEDGER_FITS: Partial<Record<string, (v: unknown) => boolean>> = {
  キー: (v) => /^(mf|csv|evt):\S+$/.test(String(v)),
  状態: (v) => (STATES as readonly string[]).includes(String(v)),
  取引日: isDate,
  入出金: (v) => v === '入金' || v === '出金',
  金額: (v) => typeof v === 'number' && Number.isInteger(v),
  操作: (v) => (OPERATIONS as readonly string[]).includes(String(v)),
  判定元: (v) => /^(ルール#|AI:|手動|復元|売掛金照合)/.test(String(v)),
  試行回数: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100,
  初回検知: (v) => ISO_TIME.test(String(v)),
  更新日時: (v) => ISO_TIME.test(String(v)),
  完了日時: (v) => ISO_TIME.test(String(v)),
  指紋: (v) => /^[0-9a-f]{64}$/.test(String(v)),
};

/**
 * Most values fit: people may have typed over a few cells (one in ten, and at least one — a small 台帳
 * with one 状態 typed as 「済み」 is still the 状態 column). Empty columns fit anything.
 */
function columnFits(header: string, column: readonly unknown[], sheet: SheetName): boolean {
  const test = sheet === SHEET.ledger ? LEDGER_FITS[header] : undefined;
  if (!test) return true;
  const filled = column.filter((v) => v !== '' && v !== null && v !== undefined);
  if (filled.length === 0) return true;
  const hits = filled.filter(test).length;
  const misses = filled.length - hits;
  return hits > misses && misses <= Math.max(1, Math.floor(filled.length / 10));
}

/** Looser, for a column other evidence points at (the remembered layout, the last column left): no more misfits than fits. */
function columnAgrees(header: string, column: readonly unknown[], sheet: SheetName): boolean {
  const test = sheet === SHEET.ledger ? LEDGER_FITS[header] : undefined;
  if (!test) return true;
  const filled = column.filter((v) => v !== '' && v !== null && v !== undefined);
  return filled.filter(test).length * 2 >= filled.length;
}

function hasData(column: readonly unknown[]): boolean {
  return column.some((v) => v !== '' && v !== null && v !== undefined);
}

export interface HeaderRestore {
  /** Header text to write over a 0-based column whose header cell is empty (or, `replaced`, renamed). */
  place: { column: number; header: string; replaced: string }[];
  /** Headers no column holds: appended after the last column. */
  append: string[];
  /** Columns holding data under no header that could not be told apart: nothing is added for them. */
  orphans: { column: number }[];
  /** Headers held back because an orphan column may be theirs. */
  undecided: string[];
}

/**
 * Where each missing header goes. `values` is the sheet (header row first, then data rows as read);
 * `remembered` the header row as the last run that found every header saw it. Order of evidence: the
 * remembered layout (when the column's content fits), then a column only that header's content fits,
 * then the header's own position in the layout 初期設定 creates. A column with another text in row 1
 * is someone's own column: it is relabelled only on the remembered layout's word and a content match.
 */
export function planHeaderRestore(
  sheet: SheetName,
  values: readonly (readonly unknown[])[],
  remembered: readonly string[] | null = null,
): HeaderRestore {
  const required = specHeaders(sheet);
  const header = (values[0] ?? []).map((h) => String(h ?? '').trim());
  const present = new Set(header.filter((h) => h !== ''));
  const missing = required.filter((h) => !present.has(h));
  const width = Math.max(header.length, ...values.map((r) => r.length));
  const column = (c: number) => values.slice(1).map((r) => r[c] ?? '');
  const known = new Set<string>(sheet === SHEET.ledger ? LEDGER_HEADERS : required);
  const blank = new Set<number>();
  const renamed = new Set<number>();
  for (let c = 0; c < width; c++) {
    const h = header[c] ?? '';
    if (h === '') blank.add(c);
    else if (!known.has(h)) renamed.add(c);
  }
  const taken = new Set<number>();
  const placed = new Map<string, number>();
  const place = (h: string, c: number) => {
    placed.set(h, c);
    taken.add(c);
  };
  const open = (c: number) => !taken.has(c);

  for (const h of missing) {
    const c = remembered ? remembered.indexOf(h) : -1;
    if (c < 0 || !open(c) || !(blank.has(c) || renamed.has(c))) continue;
    const col = column(c);
    // Someone's own column at the remembered place must also hold what this header holds.
    const evidence = renamed.has(c) ? LEDGER_FITS[h] !== undefined && hasData(col) : true;
    if (evidence && (renamed.has(c) ? columnFits(h, col, sheet) : columnAgrees(h, col, sheet))) place(h, c);
  }
  const strict = (h: string) => sheet === SHEET.ledger && LEDGER_FITS[h] !== undefined;
  const atHome = (h: string) => {
    const c = required.indexOf(h);
    if (blank.has(c) && open(c) && columnFits(h, column(c), sheet)) place(h, c);
  };
  // Headers whose content can be tested: at their own place if it fits, else the one column only
  // their content fits.
  for (const h of missing) if (!placed.has(h) && strict(h)) atHome(h);
  for (const h of missing) {
    if (placed.has(h) || !strict(h)) continue;
    const fits = [...blank].filter((c) => open(c) && hasData(column(c)) && columnFits(h, column(c), sheet));
    if (fits.length === 1) place(h, fits[0]);
  }
  // Another sheet's header typed over (残高照合's 通帳残高 renamed 「通帳残高（手入力）」, issue 25): the one
  // renamed column that sits between the headers the layout puts on either side, or still holds the
  // header's words, is that column — its cells stay where they are under the header put back.
  if (sheet !== SHEET.ledger) {
    const fold = (t: string) => t.normalize('NFKC').replace(/\s+/g, '');
    const between = (h: string, c: number) => {
      const i = required.indexOf(h);
      const left = i === 0 ? c === 0 : header[c - 1] === required[i - 1];
      return left && (i === required.length - 1 || header[c + 1] === required[i + 1]);
    };
    for (const h of missing) {
      if (placed.has(h)) continue;
      const fits = [...renamed].filter(
        (c) => open(c) && (between(h, c) || fold(header[c]).includes(fold(h))),
      );
      if (fits.length === 1) place(h, fits[0]);
    }
  }
  // Free text: at its own place when that is still open.
  for (const h of missing) if (!placed.has(h) && !strict(h)) atHome(h);
  // One header left and one column of data left: they belong together.
  const left = missing.filter((h) => !placed.has(h));
  const loose = [...blank].filter((c) => open(c) && hasData(column(c)));
  if (left.length === 1 && loose.length === 1 && columnAgrees(left[0], column(loose[0]), sheet))
    place(left[0], loose[0]);
  const orphans = [...blank].filter((c) => open(c) && hasData(column(c))).map((c) => ({ column: c }));
  const rest = missing.filter((h) => !placed.has(h));
  return {
    place: [...placed].map(([h, c]) => ({ column: c, header: h, replaced: header[c] ?? '' })),
    append: orphans.length > 0 ? [] : rest,
    orphans,
    undecided: orphans.length > 0 ? rest : [],
  };
}
