/**
 * CSV intake (DESIGN §2, §3 取込元): the records of one file become statement lines with keys, and
 * every record that is not a line is reported with its line number, the reason and its text —
 * nothing is dropped silently. Pure: the app layer reads and writes the sheets.
 */
import { emptyRecord } from '../intake';
import { contentCounts, csvContentForm, keyProblem } from '../key-check';
import { csvDescriptionForm, csvKey, isMfKey, remoteTagOf } from '../keys';
import { indexByKey, type LedgerRecord, type LedgerRow, type LedgerTable, type RowChange } from '../ledger';
import {
  type Direction,
  type LayoutChoice,
  layoutColumns,
  type ResolvedLayout,
  resolveLayout,
} from './layouts';
import { type CsvRecord, parseCsv } from './parse';
import { parseAmount, parseDate } from './values';

export interface CsvLine {
  line: number;
  date: string;
  side: Direction;
  /** Positive integer yen. */
  amount: number;
  description: string;
  key: string;
  /** The file's running balance after this line (its 残高 column), or null when it has none. */
  balance: number | null;
}

export interface CsvProblem {
  line: number;
  reason: string;
  text: string;
}

export interface CsvReading {
  layout: ResolvedLayout | null;
  /** Lines imported but worth a look: a date far from today (DESIGN: dates far outside the books). */
  notices: CsvProblem[];
  /** Header cells (for the dialog's column picker), or the first row when the file has no header. */
  header: string[];
  lines: CsvLine[];
  problems: CsvProblem[];
  /** A problem with the whole file (no header found, mojibake everywhere): nothing is imported. */
  fatal: string | null;
}

/** Longest record text quoted in a message: enough to find the line, short enough for ログ. */
const QUOTED_TEXT = 80;

function quote(text: string): string {
  const t = text.replace(/[\r\n]+/g, ' ');
  return t.length > QUOTED_TEXT ? `${t.slice(0, QUOTED_TEXT)}…` : t;
}

/** Google Sheets holds at most 50,000 characters in a cell: a longer value would fail the whole write. */
export const CELL_TEXT_LIMIT = 50_000;

const TOTAL_ROW = /^(合計|総合計|小計|計|お支払合計|ご利用合計|ご請求額|今回ご請求額|残高合計)/;
const MOJIBAKE = '\ufffd';

function lineOf(
  r: CsvRecord,
  layout: ResolvedLayout,
): { ok: true; value: Omit<CsvLine, 'key'> } | { ok: false; reason: string } {
  const f = r.fields.map((x) => x.trim());
  if (f.every((x) => x === '')) return { ok: false, reason: '空行です。' };
  if (r.text.includes(MOJIBAKE))
    return {
      ok: false,
      reason:
        '文字化けしています。ファイルの文字コードが Shift_JIS でも UTF-8 でもない可能性があります。銀行・カード会社のサイトからCSVを保存し直してください。',
    };
  if (f.some((x) => TOTAL_ROW.test(x.normalize('NFKC'))))
    return { ok: false, reason: '合計の行です（明細ではないので取り込みません）。' };
  const needed = Math.max(...layoutColumns(layout)) + 1;
  if (f.length < needed)
    return { ok: false, reason: `列が足りません（${needed} 列必要ですが ${f.length} 列しかありません）。` };
  const date = parseDate(f[layout.date]);
  if (!date.ok) return date;
  const description = f[layout.description];
  if (description.length > CELL_TEXT_LIMIT)
    return {
      ok: false,
      reason: `摘要が長すぎます（${description.length.toLocaleString('ja-JP')} 文字。シートのセルに入るのは ${CELL_TEXT_LIMIT.toLocaleString('ja-JP')} 文字まで）。この行は取り込みません。CSVのこの行の摘要を短くしてから、もう一度取り込んでください。`,
    };
  let signed: number;
  if (layout.kind === 'split') {
    const out = parseAmount(f[layout.withdrawal]);
    if (!out.ok) return out;
    const inn = parseAmount(f[layout.deposit]);
    if (!inn.ok) return inn;
    if (out.value && inn.value)
      return { ok: false, reason: '出金と入金の両方に金額があります。どちらか一方にしてください。' };
    if (!out.value && !inn.value)
      return { ok: false, reason: '金額がありません（出金・入金とも空か 0 です）。' };
    // A negative 出金 is money coming back: the sign wins over the column.
    signed = out.value ? -out.value : (inn.value as number);
  } else {
    const a = parseAmount(f[layout.amount]);
    if (!a.ok) return a;
    if (!a.value) return { ok: false, reason: '金額がありません（空か 0 です）。' };
    signed = layout.positive === '入金' ? a.value : -a.value;
  }
  // 残高 is optional: a cell that cannot be read leaves the line as it is, without a balance.
  const balance = layout.balance >= 0 && layout.balance < f.length ? parseAmount(f[layout.balance]) : null;
  return {
    ok: true,
    value: {
      line: r.line,
      date: date.value,
      side: signed > 0 ? '入金' : '出金',
      amount: Math.abs(signed),
      description,
      balance: balance?.ok ? balance.value : null,
    },
  };
}

/**
 * Reads a decoded CSV text. Keys follow DESIGN §2: the occurrence number counts lines with the same
 * date, amount and description within this file, so importing the same file again yields the same keys
 * and two genuine identical lines get two.
 */
/** Days ahead a statement date may lie (a card's scheduled payments) before it is called odd. */
const FUTURE_DAYS = 31;
/** Years back a line may lie: books are kept seven years (法人税法). */
const PAST_YEARS = 7;

/** A date a person should look at before it reaches the books, or null. */
export function implausibleDate(date: string, today: string): string | null {
  const day = 86_400_000;
  const d = Date.parse(`${date}T00:00:00Z`);
  const t = Date.parse(`${today}T00:00:00Z`);
  if (!Number.isFinite(d) || !Number.isFinite(t)) return null;
  if (d > t + FUTURE_DAYS * day)
    return `取引日 ${date} は今日（${today}）より先の日付です。日付の列や年が正しいか確かめてください（行は取り込みました。違っていれば「除外」を選んでください）。`;
  const [y, m, dd] = today.split('-').map(Number);
  const floor = Date.UTC(y - PAST_YEARS, m - 1, dd);
  if (d < floor)
    return `取引日 ${date} は ${PAST_YEARS} 年以上前の日付です。日付の列や年が正しいか確かめてください（行は取り込みました。違っていれば「除外」を選んでください）。`;
  return null;
}

export function readCsv(text: string, source: string, choice?: LayoutChoice, today?: string): CsvReading {
  const parsed = parseCsv(text);
  const records = parsed.records;
  const resolved = resolveLayout(records, choice);
  const first = records.find((r) => r.fields.some((x) => x.trim() !== ''));
  if (!resolved.ok) {
    const garbled = text.includes(MOJIBAKE)
      ? 'ファイルが文字化けしています（文字コードが Shift_JIS でも UTF-8 でもない可能性があります）。'
      : '';
    return {
      layout: null,
      header: first?.fields ?? [],
      lines: [],
      problems: [],
      notices: [],
      fatal: `${garbled}${resolved.reason}`,
    };
  }
  const layout = resolved.layout;
  const problems: CsvProblem[] = [];
  const lines: CsvLine[] = [];
  const seen = new Map<string, number>();
  records.forEach((r, i) => {
    if (i === layout.headerAt) return;
    if (i < layout.headerAt) {
      if (r.fields.some((x) => x.trim() !== ''))
        problems.push({
          line: r.line,
          reason: '見出し行より前の行です（口座情報など。取り込みません）。',
          text: quote(r.text),
        });
      return;
    }
    const got = lineOf(r, layout);
    if (!got.ok) {
      problems.push({ line: r.line, reason: got.reason, text: quote(r.text) });
      return;
    }
    const v = got.value;
    const group = `${v.date}|${v.amount}|${csvDescriptionForm(v.description)}`;
    const n = (seen.get(group) ?? 0) + 1;
    seen.set(group, n);
    lines.push({ ...v, key: csvKey(source, v.date, v.amount, v.description, n) });
  });
  if (parsed.unterminatedAt !== null) {
    problems.push({
      line: parsed.unterminatedAt,
      reason: '引用符（"）が閉じていません。この行から最後までが1つの値として読まれました。',
      text: '',
    });
  }
  const header = layout.headerAt >= 0 ? records[layout.headerAt].fields : (first?.fields ?? []);
  const notices: CsvProblem[] = [];
  if (today) {
    for (const l of lines) {
      const odd = implausibleDate(l.date, today);
      if (odd) notices.push({ line: l.line, reason: odd, text: quote(l.description) });
    }
  }
  return { layout, header, lines, problems, notices, fatal: null };
}

export function csvRecord(line: CsvLine, source: string, now: string): LedgerRecord {
  return {
    ...emptyRecord(),
    キー: line.key,
    状態: '未判定',
    取引日: line.date,
    入出金: line.side,
    金額: line.amount,
    摘要: line.description,
    口座: source,
    明細ID: '',
    初回検知: now,
    更新日時: now,
  };
}

export interface CsvIntakePlan {
  newRows: LedgerRecord[];
  /** Rows of this source whose key a person broke, given back the key this file's line has. */
  keyRestores: RowChange[];
  /** Lines whose key is already in the 台帳 (the same file, or an overlapping one, imported before). */
  already: number;
  /** Dates on which this import adds rows next to rows an earlier import of the source added. */
  overlapDates: string[];
  /** New rows added as 完了 because MF already holds a journal with their tag. */
  alreadyInMf: number;
}

export const CSV_KEY_RESTORED_MEMO =
  'キーが書き換えられていたため、取り込み直したCSVの同じ明細（口座・取引日・金額・摘要が一致）からキーを元に戻しました。キーの列は変えないでください。';

export const ALREADY_IN_MF_MEMO =
  'MFに同じ明細の仕訳（同じタグ）が既にあるため、登録せずに完了にしました。台帳が消えた後の取り込み直しなどで起きます。';

/** The rows to append; a key already in the 台帳 is never added again. */
export function planCsvIntake(
  table: LedgerTable,
  lines: readonly CsvLine[],
  source: string,
  now: string,
  /**
   * Journal id by remote tag for journals MF holds in the file's dates. A line whose tag is there was
   * posted before (e.g. the 台帳 was lost and restore cannot rebuild CSV rows): it must never be sent
   * again, so it is added as 完了.
   */
  journalByTag: ReadonlyMap<string, string> = new Map(),
): CsvIntakePlan {
  const byKey = indexByKey(table.rows);
  const earlierDates = new Set(
    table.rows
      .filter((r) => r.record.口座 === source && r.record.キー.startsWith('csv:'))
      .map((r) => r.record.取引日),
  );
  const newRows: LedgerRecord[] = [];
  const overlap = new Set<string>();
  let already = 0;
  let alreadyInMf = 0;
  // Rows of this source whose key no longer fits them, by content: the line they hold comes back in
  // this file with its true key, which they get back (never a second row for one line).
  const broken = new Map<string, LedgerRow[]>();
  const counts = contentCounts(table.rows);
  for (const r of table.rows) {
    if (r.record.口座 !== source || isMfKey(r.record.キー) || r.record.状態 === '除外') continue;
    const form = csvContentForm(r.record);
    if (keyProblem(r.record, counts.get(form) ?? 1) === null) continue;
    broken.set(form, [...(broken.get(form) ?? []), r]);
  }
  const keyRestores: RowChange[] = [];
  for (const line of lines) {
    if (byKey.has(line.key)) {
      already += 1;
      continue;
    }
    const form = csvContentForm({
      口座: source,
      取引日: line.date,
      金額: line.amount,
      摘要: line.description,
    });
    const row = broken.get(form)?.shift();
    if (row) {
      keyRestores.push({
        key: row.record.キー,
        rowNumber: row.rowNumber,
        patch: { キー: line.key, 更新日時: now, メモ: CSV_KEY_RESTORED_MEMO },
      });
      already += 1;
      continue;
    }
    if (earlierDates.has(line.date)) overlap.add(line.date);
    const journal = journalByTag.get(remoteTagOf(line.key));
    if (journal === undefined) {
      newRows.push(csvRecord(line, source, now));
      continue;
    }
    alreadyInMf += 1;
    newRows.push({
      ...csvRecord(line, source, now),
      状態: '完了',
      MF仕訳ID: journal,
      完了日時: now,
      メモ: ALREADY_IN_MF_MEMO,
    });
  }
  return { newRows, keyRestores, already, overlapDates: [...overlap].sort(), alreadyInMf };
}

/** The overlap warning (DESIGN §2: a warning, not an error). */
export function overlapWarning(source: string, dates: readonly string[]): string | null {
  if (dates.length === 0) return null;
  const shown =
    dates.length > 5 ? `${dates.slice(0, 5).join('、')} ほか ${dates.length - 5} 日` : dates.join('、');
  return `取込元「${source}」は ${shown} の行を以前にも取り込んでいます。前回と違う範囲のファイルだと、同じ明細が別の行として追加されることがあります（キーは日ごとの出現順で決まるため）。台帳で重複がないか確認し、重複していれば「除外」を選んでください。`;
}

/** One line per problem, for summaries, ログ and the dialog. */
export function describeProblem(p: CsvProblem): string {
  return `${p.line} 行目: ${p.reason}${p.text ? `「${p.text}」` : ''}`;
}
