/**
 * Column layouts of bank and card CSVs. A layout says which columns hold the date (one column, or 年・月・日
 * in three), the description (one or more columns, joined), the amount (one signed column, or 出金 + 入金)
 * and the running balance, and which lines belong to the layout rather than to the statement. Named
 * layouts (named-layouts.ts) are recognised by the file's own shape — its header row, or the holder line
 * of a card file with no header — never by the file name; the generic presets below are the fallback; a
 * person can also name the columns directly (and keep that per 取込元: saved-layout.ts).
 */
import { normalizeText } from '../text';
import {
  type ColumnSpec,
  type DateSpec,
  type Direction,
  NAMED_LAYOUTS,
  type NamedLayout,
} from './named-layouts';
import type { CsvRecord } from './parse';

export type { Direction };

/** Where the date is: one column, or year, month and day in three (PayPay銀行). */
export type DateColumns = { at: number } | { year: number; month: number; day: number };

interface ResolvedCommon {
  /** A named layout's id, a generic preset's id, or 'custom'. */
  id: string;
  name: string;
  /** bank / card for named layouts (what a new 取込元 gets); null for generic presets and custom. */
  family: 'bank' | 'card' | null;
  /** Index into the records of the header row, or -1 when the file has none. */
  headerAt: number;
  date: DateColumns;
  /** Joined with a space, empty parts left out. */
  description: number[];
  /** The running balance after each line (残高), or -1 when the file has none. */
  balance: number;
  /** A file with no header: the holder lines that mark it (and belong to the layout). */
  holder: readonly (RegExp | null)[] | null;
  /** Further lines of the layout (totals, notices) below the header. */
  layoutLines: readonly RegExp[];
  /** A line opening a section whose positive amounts mean the other direction. */
  reversedSection: RegExp | null;
}

/** A layout bound to column indexes (0-based) of one file. */
export type ResolvedLayout = ResolvedCommon &
  (
    | { kind: 'split'; withdrawal: number; deposit: number }
    | {
        kind: 'signed';
        /** The amount column, then the columns read when it is empty. */
        amount: number[];
        /** What a positive amount means: 入金 in a bank statement, 出金 (a purchase) on a card. */
        positive: Direction;
        /** What a minus means: the other direction, or a line refused with its number. */
        negative: 'opposite' | 'refuse';
      }
  );

export type PresetId = 'bank' | 'signed' | 'card';

/** What the dialog (or a caller of importCsv) may ask for; every field is optional. */
export interface LayoutChoice {
  /**
   * A generic preset, a named layout's id, or 'custom' with the columns below; absent or 'auto' = the
   * 取込元's saved format if it has one, else detection from the file.
   */
  preset?: string;
  /** 1-based column numbers, as people count them. */
  date?: number;
  description?: number;
  /** A second description column (the counterparty next to the kind of transfer). */
  description2?: number;
  amount?: number;
  withdrawal?: number;
  deposit?: number;
  /** The 残高 column (optional). */
  balance?: number;
  positive?: Direction;
  /** True when the first line is a header (custom layouts only; default true). */
  header?: boolean;
  /** Keep this layout as the 取込元's format (「この形式を保存」); used on import only. */
  save?: boolean;
}

/** A layout as data: named layouts and the generic presets share it. */
type Spec = Pick<NamedLayout, 'id' | 'name' | 'date' | 'description' | 'amount' | 'balance' | 'also'> &
  Partial<Pick<NamedLayout, 'holder' | 'layoutLines' | 'reversedSection'>> & {
    family: 'bank' | 'card' | null;
  };

const DATE_NAMES = [
  '日付',
  '取引日',
  '年月日',
  'お取引日',
  '取扱日',
  '取扱日付',
  '入出金日',
  '勘定日',
  '日時',
];
const DESCRIPTION_NAMES = [
  '摘要',
  '内容',
  '取引内容',
  'お取引内容',
  '摘要内容',
  'お取引内容・摘要',
  '明細',
  '備考',
];
const CARD_DATE_NAMES = ['利用日', 'ご利用日', '利用年月日', 'ご利用年月日', 'ご利用日付'];
const CARD_DESCRIPTION_NAMES = [
  '利用店名',
  'ご利用店名',
  '利用店名・商品名',
  'ご利用店名・商品名',
  'ご利用先',
  '利用先',
  'ご利用店名(海外ご利用分は現地通貨建て)',
];
/** A running balance after each line; optional in every layout (cards rarely have one). */
const BALANCE_NAMES = [
  '残高',
  '差引残高',
  'お取引後残高',
  '取引後残高',
  '残高(円)',
  '差引残高(円)',
  'お預り残高',
  '預金残高',
];

/**
 * The generic presets (before issue 26, the only ones): tried after every named layout, so a file of a
 * known bank is read by its own layout. Their description is one column, so a file they read before keeps
 * its keys.
 */
export const PRESETS: readonly (Spec & { id: PresetId })[] = [
  {
    id: 'bank',
    name: '銀行（日付・摘要・出金・入金）',
    family: null,
    date: DATE_NAMES,
    description: [DESCRIPTION_NAMES],
    amount: {
      withdrawal: [
        '出金',
        '出金額',
        '出金金額',
        'お引出し',
        'お引出金額',
        'お引出し金額',
        '支払金額',
        'お支払金額',
        '引出金額',
        '払出金額',
      ],
      deposit: [
        '入金',
        '入金額',
        '入金金額',
        'お預入れ',
        'お預入金額',
        'お預入れ金額',
        '預入金額',
        '受入金額',
      ],
    },
    balance: BALANCE_NAMES,
  },
  {
    id: 'card',
    name: 'カード（利用日・利用店名・利用金額）',
    family: null,
    date: CARD_DATE_NAMES,
    description: [CARD_DESCRIPTION_NAMES],
    amount: {
      signed: [
        ['利用金額', 'ご利用金額', '利用金額(円)', 'ご利用金額(円)', 'お支払金額', '支払金額', '請求金額'],
      ],
      positive: '出金',
      // The documented meaning of this preset since it was added: a minus on a card is a refund.
      negative: 'opposite',
    },
    balance: BALANCE_NAMES,
  },
  {
    id: 'signed',
    name: '銀行（日付・内容・金額、出金はマイナス）',
    family: null,
    date: DATE_NAMES,
    description: [DESCRIPTION_NAMES],
    amount: {
      signed: [['金額', '入出金額', '取引金額', '入出金', 'お取引金額']],
      positive: '入金',
      negative: 'opposite',
    },
    balance: BALANCE_NAMES,
  },
];

const NAMED: readonly Spec[] = NAMED_LAYOUTS.map((l) => ({ ...l, family: l.kind }));

/** Rows searched for a header: banks put the account number, period and balance above it (ゆうちょ 7, みずほ 9). */
const HEADER_SEARCH_ROWS = 30;

/** A header cell as compared: NFKC, no spaces, no trailing (円) / (¥). */
export function headerForm(text: string): string {
  return String(text ?? '')
    .normalize('NFKC')
    .replace(/\s+/g, '')
    .replace(/\((円|¥|\\)\)$/, '');
}

function findColumn(header: readonly string[], names: readonly string[]): number {
  const wanted = new Set(names.map(headerForm));
  return header.findIndex((h) => wanted.has(headerForm(h)));
}

/** A column of a spec in this file: its position, or the first header cell carrying one of its names. */
function columnOf(spec: ColumnSpec, header: readonly string[] | null): number {
  if (typeof spec === 'number') return spec;
  return header ? findColumn(header, spec) : -1;
}

function dateOf(spec: DateSpec, header: readonly string[] | null): DateColumns | null {
  if (typeof spec === 'number' || Array.isArray(spec)) {
    const at = columnOf(spec as ColumnSpec, header);
    return at < 0 ? null : { at };
  }
  const s = spec as { year: ColumnSpec; month: ColumnSpec; day: ColumnSpec };
  const year = columnOf(s.year, header);
  const month = columnOf(s.month, header);
  const day = columnOf(s.day, header);
  return year < 0 || month < 0 || day < 0 ? null : { year, month, day };
}

/** The spec bound to this file's header (or positions), or null when a column it needs is not there. */
function bind(spec: Spec, header: readonly string[] | null, headerAt: number): ResolvedLayout | null {
  const date = dateOf(spec.date, header);
  if (!date) return null;
  const description = spec.description.map((d) => columnOf(d, header));
  if (description.length === 0 || description.some((d) => d < 0)) return null;
  if ((spec.also ?? []).some((names) => columnOf(names, header) < 0)) return null;
  // A 残高 under another of the usual names still feeds 残高照合.
  const named = spec.balance === undefined ? -1 : columnOf(spec.balance, header);
  const balance = named >= 0 || !header ? named : findColumn(header, BALANCE_NAMES);
  const common: ResolvedCommon = {
    id: spec.id,
    name: spec.name,
    family: spec.family,
    headerAt,
    date,
    description,
    balance,
    holder: spec.holder ?? null,
    layoutLines: spec.layoutLines ?? [],
    reversedSection: spec.reversedSection ?? null,
  };
  if ('withdrawal' in spec.amount) {
    const withdrawal = columnOf(spec.amount.withdrawal, header);
    const deposit = columnOf(spec.amount.deposit, header);
    if (withdrawal < 0 || deposit < 0) return null;
    return { ...common, kind: 'split', withdrawal, deposit };
  }
  const amount = spec.amount.signed.map((a) => columnOf(a, header));
  if (amount.some((a) => a < 0)) return null;
  return {
    ...common,
    kind: 'signed',
    amount,
    positive: spec.amount.positive,
    negative: spec.amount.negative,
  };
}

/** How many header names a spec needs: the more it needs, the more specific a match it is. */
function signatureSize(spec: Spec): number {
  const d = spec.date;
  const dates = typeof d === 'number' || Array.isArray(d) ? 1 : 3;
  const amounts = 'withdrawal' in spec.amount ? 2 : spec.amount.signed.length;
  return dates + spec.description.length + amounts + (spec.also?.length ?? 0) + (spec.holder ? 10 : 0);
}

/** A holder line (card files with no header): every pattern matches its field. */
export function isHolderLine(fields: readonly string[], holder: readonly (RegExp | null)[]): boolean {
  if (fields.length < holder.length) return false;
  return holder.every((p, i) => p === null || p.test(fields[i].normalize('NFKC').trim()));
}

function detectSpec(spec: Spec, records: readonly CsvRecord[]): ResolvedLayout | null {
  const rows = Math.min(records.length, HEADER_SEARCH_ROWS);
  if (spec.holder) {
    const holder = spec.holder;
    for (let i = 0; i < rows; i++) {
      if (isHolderLine(records[i].fields, holder)) return bind(spec, null, -1);
    }
    return null;
  }
  for (let i = 0; i < rows; i++) {
    const bound = bind(spec, records[i].fields, i);
    if (bound) return bound;
  }
  return null;
}

/** What the columns mean, for telling two fitting layouts apart (same columns: one reading). */
function meaning(l: ResolvedLayout): string {
  const { id: _id, name: _name, family: _family, ...rest } = l;
  return JSON.stringify(rest, (_k, v) => (v instanceof RegExp ? String(v) : v));
}

export type LayoutResult =
  | { ok: true; layout: ResolvedLayout }
  | {
      ok: false;
      reason: string;
      /** Two or more named layouts fit and read the file differently: the person picks one. */
      candidates?: { id: string; name: string }[];
    };

/** The named layouts that fit this file, the most specific first; ambiguous when two read it differently. */
export function detectNamed(records: readonly CsvRecord[]): LayoutResult | null {
  const found = NAMED.map((spec) => ({ spec, layout: detectSpec(spec, records) })).filter(
    (x): x is { spec: Spec; layout: ResolvedLayout } => x.layout !== null,
  );
  if (found.length === 0) return null;
  const best = Math.max(...found.map((x) => signatureSize(x.spec)));
  const top = found.filter((x) => signatureSize(x.spec) === best);
  const readings = new Map<string, ResolvedLayout[]>();
  for (const x of top) {
    const m = meaning(x.layout);
    readings.set(m, [...(readings.get(m) ?? []), x.layout]);
  }
  if (readings.size === 1) return { ok: true, layout: top[0].layout };
  const candidates = top.map((x) => ({ id: x.layout.id, name: x.layout.name }));
  return {
    ok: false,
    reason: `このファイルは ${candidates.map((c) => `「${c.name}」`).join('と')} のどちらの形にも合い、列の読み方が違います。「列の並び」でどちらかを選んでから取り込んでください。`,
    candidates,
  };
}

/** The first generic preset (in `presets` order) whose header names appear in one of the first rows. */
function detectGeneric(records: readonly CsvRecord[], presets: readonly Spec[]): ResolvedLayout | null {
  for (let i = 0; i < Math.min(records.length, HEADER_SEARCH_ROWS); i++) {
    for (const p of presets) {
      const bound = bind(p, records[i].fields, i);
      if (bound) return bound;
    }
  }
  return null;
}

function column(n: number | undefined, label: string, problems: string[]): number {
  if (n === undefined || !Number.isInteger(n) || n < 1) {
    problems.push(`${label}の列を選んでください。`);
    return -1;
  }
  return n - 1;
}

function customLayout(choice: LayoutChoice): LayoutResult {
  const problems: string[] = [];
  const headerAt = choice.header === false ? -1 : 0;
  const date = column(choice.date, '日付', problems);
  const description = [column(choice.description, '摘要', problems)];
  if (choice.description2 !== undefined)
    description.push(column(choice.description2, '摘要（2列目）', problems));
  const balance = choice.balance === undefined ? -1 : column(choice.balance, '残高', problems);
  const common: ResolvedCommon = {
    id: 'custom',
    name: '',
    family: null,
    headerAt,
    date: { at: date },
    description,
    balance,
    holder: null,
    layoutLines: [],
    reversedSection: null,
  };
  if (choice.amount !== undefined) {
    const amount = column(choice.amount, '金額', problems);
    if (problems.length > 0) return { ok: false, reason: problems.join(' ') };
    return {
      ok: true,
      layout: {
        ...common,
        name: '列を指定（金額1列）',
        kind: 'signed',
        amount: [amount],
        positive: choice.positive ?? '入金',
        // The person said what a positive amount means; a minus is the other direction.
        negative: 'opposite',
      },
    };
  }
  const withdrawal = column(choice.withdrawal, '出金', problems);
  const deposit = column(choice.deposit, '入金', problems);
  if (problems.length > 0)
    return { ok: false, reason: `${problems.join(' ')}（金額が1列なら「金額」の列を選びます）` };
  return {
    ok: true,
    layout: { ...common, name: '列を指定（出金・入金）', kind: 'split', withdrawal, deposit },
  };
}

const NO_HEADER =
  '見出し行（「日付・摘要・出金・入金」「日付・内容・金額」「利用日・利用店名・利用金額」 の列名）も、対応している銀行・カードの形も見つかりません。文字コードが違うか、列名が違う可能性があります。画面で「列を指定」を選び、日付・摘要・金額の列を選んでください（「この形式を保存」で次から同じ銀行のファイルは指定なしで読めます）。';

/** Binds a choice (or detection, without one) to the columns of this file. */
export function resolveLayout(records: readonly CsvRecord[], choice: LayoutChoice = {}): LayoutResult {
  const preset = choice.preset ?? 'auto';
  if (preset === 'custom') return customLayout(choice);
  if (preset === 'auto') {
    const named = detectNamed(records);
    if (named) return named;
    const generic = detectGeneric(records, PRESETS);
    return generic ? { ok: true, layout: generic } : { ok: false, reason: NO_HEADER };
  }
  const spec = NAMED.find((s) => s.id === preset) ?? PRESETS.find((p) => p.id === preset);
  if (!spec)
    return { ok: false, reason: `「${preset}」という列の並びはありません。一覧から選び直してください。` };
  const found = detectSpec(spec, records);
  if (found) return { ok: true, layout: found };
  return {
    ok: false,
    reason: spec.holder
      ? `「${spec.name}」の明細の印（カード番号の行）が見つかりません。別の列の並びを選ぶか、「列を指定」で列を選んでください。`
      : `「${spec.name}」の見出し行が見つかりません。文字コードが違うか、別の銀行・カードのファイルの可能性があります。別の列の並びを選ぶか、「列を指定」で列を選んでください。`,
  };
}

/** Every column a line needs (to tell a short row from a full one); 残高 and fallback amounts are optional. */
export function layoutColumns(l: ResolvedLayout): number[] {
  const dates = 'at' in l.date ? [l.date.at] : [l.date.year, l.date.month, l.date.day];
  const amounts = l.kind === 'split' ? [l.withdrawal, l.deposit] : [l.amount[0]];
  return [...dates, l.description[0], ...amounts];
}

/** The choices the dialog lists: named layouts (banks, then cards), then the generic presets. */
export function layoutOptions(): { id: string; name: string; group: '銀行' | 'カード' | '汎用' }[] {
  return [
    ...NAMED_LAYOUTS.filter((l) => l.kind === 'bank').map((l) => ({
      id: l.id,
      name: l.name,
      group: '銀行' as const,
    })),
    ...NAMED_LAYOUTS.filter((l) => l.kind === 'card').map((l) => ({
      id: l.id,
      name: l.name,
      group: 'カード' as const,
    })),
    ...PRESETS.map((p) => ({ id: p.id, name: p.name, group: '汎用' as const })),
  ];
}

/** The named layout or preset with this display name (a saved format names it), compared loosely. */
export function layoutIdByName(name: string): string | null {
  const wanted = normalizeText(name);
  const hit = [...NAMED_LAYOUTS, ...PRESETS].find(
    (l) => normalizeText(l.name) === wanted || l.id === name.trim(),
  );
  return hit ? hit.id : null;
}
