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
  isHolderLine,
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
  /**
   * A description joined from two columns: the keys this line has under each column alone (what 列を指定
   * with one 摘要 column gave before). A row holding one of them is this line, imported before.
   */
  aliases?: string[];
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
  /**
   * Lines that belong to the layout, not to the statement (account details above the header, holder
   * lines, totals, notices, blank lines): skipped and reported in one line, not as 読めなかった行.
   */
  skipped: CsvProblem[];
  /** Two named layouts fit and read the file differently: the person picks one of these. */
  candidates: { id: string; name: string }[];
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

const TOTAL_WORDS =
  '総合計|合計|小計|計|お支払合計|ご利用合計|ご請求額|今回ご請求額|残高合計|ご請求合計|ショッピング合計|キャッシング合計';
/** A cell that is a total and nothing else (【合計】, 小計): a line holding one is a total, even with a date. */
const TOTAL_CELL = new RegExp(`^[【［\\[(（]?(${TOTAL_WORDS})[】］\\])）]?$`);
/** An undated line whose cell starts with a total word (ショッピング合計, 合計額). */
const TOTAL_START = new RegExp(`^[【［\\[(（]?(${TOTAL_WORDS})`);
const MOJIBAKE = '\ufffd';
/** A description part that is only a dash (エポス writes 「－」 when there is nothing): left out. */
const DASH_ONLY = /^[-－―−‐]$/;

type Kind = 'above' | 'holder' | 'section' | 'total' | 'note' | 'blank';

const SKIP_REASON: Record<Kind, string> = {
  above: '見出し行より前の行です（口座情報など。明細ではありません）。',
  holder: 'カードの名義・カード番号の行です（明細ではありません）。',
  section: '区切りの見出しです（明細ではありません）。',
  total: '合計の行です（明細ではありません）。',
  note: '注記の行です（明細ではありません）。',
  blank: '空行です。',
};

const SKIP_LABEL: Record<Kind, string> = {
  above: '見出しより上の口座情報など',
  holder: 'カードの名義・番号',
  section: '区切りの見出し',
  total: '合計',
  note: '注記',
  blank: '空行',
};

function readDate(f: readonly string[], layout: ResolvedLayout) {
  if ('at' in layout.date) return parseDate(f[layout.date.at] ?? '');
  const parts = [f[layout.date.year], f[layout.date.month], f[layout.date.day]].map((x) => (x ?? '').trim());
  if (parts.some((x) => x === '')) return { ok: false as const, reason: '日付（年・月・日）が空です。' };
  return parseDate(parts.join('/'));
}

/** The raw description cells, one per description column (empty when the row is short). */
function descriptionParts(f: readonly string[], layout: ResolvedLayout): string[] {
  return layout.description.map((i) => (f[i] ?? '').trim());
}

function joinDescription(parts: readonly string[]): string {
  return parts.filter((p) => p !== '' && !DASH_ONLY.test(p.normalize('NFKC'))).join(' ');
}

const NEGATIVE_SPLIT = (column: string, raw: string) =>
  `${column}の列にマイナスの金額（${raw}）があります。入金か出金かをこのファイルからは決められないため、この行は取り込みません。銀行のサイトで向きを確かめ、ファイルを直してもう一度取り込むか、台帳に手で入れてください。`;
const NEGATIVE_REFUSED = (raw: string, name: string) =>
  `マイナスの金額（${raw}）です。「${name}」の明細でマイナスが返金を表すのかどうかを確かめられないため、この行は取り込みません。明細の画面で内容を確かめ、返金なら台帳に手で入れてください。`;

function lineOf(
  r: CsvRecord,
  layout: ResolvedLayout,
  reversed: boolean,
): { ok: true; value: Omit<CsvLine, 'key'>; parts: string[] } | { ok: false; reason: string } {
  const f = r.fields.map((x) => x.trim());
  const needed = Math.max(...layoutColumns(layout)) + 1;
  if (f.length < needed)
    return { ok: false, reason: `列が足りません（${needed} 列必要ですが ${f.length} 列しかありません）。` };
  const date = readDate(f, layout);
  if (!date.ok) return date;
  const parts = descriptionParts(f, layout);
  const description = joinDescription(parts);
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
    // A sign in a 出金 / 入金 column says nothing sure about the direction: never turned around on a guess.
    if ((out.value ?? 0) < 0) return { ok: false, reason: NEGATIVE_SPLIT('出金', f[layout.withdrawal]) };
    if ((inn.value ?? 0) < 0) return { ok: false, reason: NEGATIVE_SPLIT('入金', f[layout.deposit]) };
    if (out.value && inn.value)
      return { ok: false, reason: '出金と入金の両方に金額があります。どちらか一方にしてください。' };
    if (!out.value && !inn.value)
      return { ok: false, reason: '金額がありません（出金・入金とも空か 0 です）。' };
    signed = out.value ? -out.value : (inn.value as number);
  } else {
    let value: number | null = null;
    let raw = '';
    for (const col of layout.amount) {
      const a = parseAmount(f[col] ?? '');
      if (!a.ok) return a;
      if (a.value !== null) {
        value = a.value;
        raw = f[col];
        break;
      }
    }
    if (!value) return { ok: false, reason: '金額がありません（空か 0 です）。' };
    if (value < 0 && (layout.negative === 'refuse' || reversed))
      return { ok: false, reason: NEGATIVE_REFUSED(raw, layout.name) };
    const positive: Direction = reversed ? opposite(layout.positive) : layout.positive;
    signed = (positive === '入金' ? 1 : -1) * value;
  }
  // 残高 is optional: a cell that cannot be read leaves the line as it is, without a balance.
  const balance = layout.balance >= 0 && layout.balance < f.length ? parseAmount(f[layout.balance]) : null;
  return {
    ok: true,
    parts,
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

function opposite(d: Direction): Direction {
  return d === '入金' ? '出金' : '入金';
}

/**
 * Whether a line below the header belongs to the layout. A line whose date reads is a statement line
 * unless a cell is a total and nothing else: a dated line is never dropped on a looser guess.
 */
function layoutLineKind(r: CsvRecord, layout: ResolvedLayout): Kind | null {
  const f = r.fields.map((x) => x.normalize('NFKC').trim());
  if (f.every((x) => x === '')) return 'blank';
  if (layout.holder && isHolderLine(r.fields, layout.holder)) return 'holder';
  if (layout.reversedSection?.test(f.join(','))) return 'section';
  if (readDate(r.fields, layout).ok) return f.some((x) => TOTAL_CELL.test(x)) ? 'total' : null;
  if (layout.layoutLines.some((re) => re.test(f.join(',')))) return 'note';
  if (f.some((x) => TOTAL_START.test(x))) return 'total';
  // A layout's structure, not a statement line: only numbers (a total with no label: ,,,,,7720), or no
  // description, no amount and nothing date-like (a holder name under the header, a notice). A line with
  // text and an amount but no date (a discount) is a statement line that cannot be read: reported.
  if (f.every((x) => x === '' || NUMBER_LIKE.test(x))) return 'note';
  const dateCell = 'at' in layout.date ? (f[layout.date.at] ?? '') : '';
  const amounts = layout.kind === 'split' ? [layout.withdrawal, layout.deposit] : layout.amount;
  if (
    joinDescription(descriptionParts(f, layout)) === '' &&
    amounts.every((i) => (f[i] ?? '') === '') &&
    !DATE_LIKE.test(dateCell)
  )
    return 'note';
  return null;
}

const NUMBER_LIKE = /^[-+△▲(]?[¥\\]?[\d,]+円?\)?$/;
/** A cell that tries to be a date (a wrong one is reported, not skipped). */
const DATE_LIKE = /^(\d{2,4}[/\-.年]\d|\d{6,8}$|[RHSrhs令平昭]\s*(\d|元))/;

/** 1〜3・5・12 行目 */
function lineRanges(lines: readonly number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j] + 1) j++;
    out.push(j > i ? `${lines[i]}〜${lines[j]}` : String(lines[i]));
    i = j + 1;
  }
  return out.length > 12 ? `${out.slice(0, 12).join('・')} ほか` : out.join('・');
}

/** The one line that reports the layout's own lines (DESIGN §3: not counted among 読めなかった行). */
export function skippedSummary(skipped: readonly CsvProblem[]): string | null {
  if (skipped.length === 0) return null;
  const counts = new Map<string, number>();
  for (const s of skipped) {
    const label = (Object.keys(SKIP_REASON) as Kind[]).find((k) => SKIP_REASON[k] === s.reason);
    const name = label ? SKIP_LABEL[label] : s.reason;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const kinds = [...counts].map(([k, n]) => `${k} ${n} 行`).join('、');
  return `明細ではない行 ${skipped.length} 行（${kinds}: ${lineRanges(skipped.map((s) => s.line))} 行目）は読み飛ばしました。`;
}

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

/**
 * Reads a decoded CSV text. Keys follow DESIGN §2: the occurrence number counts lines with the same
 * date, amount and description within this file, so importing the same file again yields the same keys
 * and two genuine identical lines get two. A description joined from two columns also carries the key
 * each column alone gives (aliases), so a file imported before with one 摘要 column is not added again.
 */
export function readCsv(text: string, source: string, choice?: LayoutChoice, today?: string): CsvReading {
  const parsed = parseCsv(text);
  const records = parsed.records;
  const resolved = resolveLayout(records, choice);
  const first = records.find((r) => r.fields.some((x) => x.trim() !== ''));
  if (!resolved.ok) {
    const garbled = text.includes(MOJIBAKE)
      ? 'ファイルが文字化けしています（文字コードが Shift_JIS・UTF-8・UTF-16 のどれでもない可能性があります）。'
      : '';
    return {
      layout: null,
      header: first?.fields ?? [],
      lines: [],
      problems: [],
      skipped: [],
      candidates: resolved.candidates ?? [],
      notices: [],
      fatal: `${garbled}${resolved.reason}`,
    };
  }
  const layout = resolved.layout;
  const problems: CsvProblem[] = [];
  const skipped: CsvProblem[] = [];
  const read: { value: Omit<CsvLine, 'key'>; parts: string[] }[] = [];
  let reversed = false;
  records.forEach((r, i) => {
    if (i === layout.headerAt) return;
    const skip = (kind: Kind) =>
      skipped.push({ line: r.line, reason: SKIP_REASON[kind], text: quote(r.text) });
    if (i < layout.headerAt) {
      skip(r.fields.some((x) => x.trim() !== '') ? 'above' : 'blank');
      return;
    }
    if (r.text.includes(MOJIBAKE)) {
      problems.push({
        line: r.line,
        reason:
          '文字化けしています。ファイルの文字コードが Shift_JIS・UTF-8・UTF-16 のどれでもない可能性があります。銀行・カード会社のサイトからCSVを保存し直してください。',
        text: quote(r.text),
      });
      return;
    }
    const kind = layoutLineKind(r, layout);
    if (kind) {
      if (kind === 'section') reversed = true;
      skip(kind);
      return;
    }
    const got = lineOf(r, layout, reversed);
    if (!got.ok) {
      problems.push({ line: r.line, reason: got.reason, text: quote(r.text) });
      return;
    }
    read.push({ value: got.value, parts: got.parts });
  });
  const lines = withKeys(read, source);
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
  return { layout, header, lines, problems, skipped, candidates: [], notices, fatal: null };
}

/** Keys (DESIGN §2) and, for descriptions joined from columns, each column's own key. */
function withKeys(
  read: readonly { value: Omit<CsvLine, 'key'>; parts: string[] }[],
  source: string,
): CsvLine[] {
  const occurrence = () => {
    const seen = new Map<string, number>();
    return (date: string, amount: number, description: string) => {
      const group = `${date}|${amount}|${csvDescriptionForm(description)}`;
      const n = (seen.get(group) ?? 0) + 1;
      seen.set(group, n);
      return n;
    };
  };
  const own = occurrence();
  const columns = read[0]?.parts.length ?? 0;
  const perColumn = columns > 1 ? Array.from({ length: columns }, occurrence) : [];
  return read.map(({ value: v, parts }) => {
    const key = csvKey(source, v.date, v.amount, v.description, own(v.date, v.amount, v.description));
    const aliases = perColumn
      .map((next, k) => csvKey(source, v.date, v.amount, parts[k], next(v.date, v.amount, parts[k])))
      .filter((a) => a !== key);
    return aliases.length > 0 ? { ...v, key, aliases: [...new Set(aliases)] } : { ...v, key };
  });
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
  /**
   * Lines already in the 台帳 whose row has the other 入出金 (an earlier import read the file with another
   * layout, e.g. a card refund as a purchase): never changed silently, reported for a person to check.
   */
  sideChanged: { line: number; date: string; amount: number; was: string; now: Direction }[];
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
  const sideChanged: CsvIntakePlan['sideChanged'] = [];
  for (const line of lines) {
    const held = [line.key, ...(line.aliases ?? [])].flatMap((k) => byKey.get(k) ?? []);
    if (held.length > 0) {
      already += 1;
      const was = String(held[0].record.入出金);
      if (was !== line.side)
        sideChanged.push({ line: line.line, date: line.date, amount: line.amount, was, now: line.side });
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
    const journal = [line.key, ...(line.aliases ?? [])]
      .map((k) => journalByTag.get(remoteTagOf(k)))
      .find((j) => j !== undefined);
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
  return { newRows, keyRestores, already, overlapDates: [...overlap].sort(), alreadyInMf, sideChanged };
}

/** One message per line whose row in the 台帳 has the other 入出金 (nothing is changed by the import). */
export function sideChangedMessages(changed: CsvIntakePlan['sideChanged']): string[] {
  return changed.map(
    (c) =>
      `${c.line} 行目: ${c.date} の ${c.amount.toLocaleString('ja-JP')} 円は、台帳では「${c.was}」ですが、このファイルの形では「${c.now}」です（以前の取り込みで別の列の並びで読んだ可能性があります）。台帳の行は変えていません。明細を確かめ、違っていれば台帳の行を「除外」にして手で入れ直してください。`,
  );
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
