/**
 * Column layouts of bank and card CSVs. A layout says which column holds the date, the description
 * and the amount (one signed column, or 出金 + 入金). Presets find their columns by header names
 * (banks put account details above the header, so the first rows are searched); a person can also
 * name the columns directly.
 */
import { normalizeText } from '../text';
import type { CsvRecord } from './parse';

export type Direction = '入金' | '出金';

/** A layout bound to column indexes (0-based) of one file. */
export type ResolvedLayout =
  | {
      kind: 'split';
      name: string;
      date: number;
      description: number;
      withdrawal: number;
      deposit: number;
      /** Index into the records of the header row, or -1 when the file has none. */
      headerAt: number;
      /** The running balance after each line (残高), or -1 when the file has none. */
      balance: number;
    }
  | {
      kind: 'signed';
      name: string;
      date: number;
      description: number;
      amount: number;
      /** What a positive amount means: 入金 in a bank statement, 出金 (a purchase) on a card. */
      positive: Direction;
      headerAt: number;
      balance: number;
    };

export type PresetId = 'bank' | 'signed' | 'card';

/** What the dialog (or a caller of importCsv) may ask for; every field is optional. */
export interface LayoutChoice {
  /** A preset, or 'custom' with the columns below; absent or 'auto' = detect from the header. */
  preset?: PresetId | 'custom' | 'auto';
  /** 1-based column numbers, as people count them. */
  date?: number;
  description?: number;
  amount?: number;
  withdrawal?: number;
  deposit?: number;
  /** The 残高 column (optional). */
  balance?: number;
  positive?: Direction;
  /** True when the first line is a header (custom layouts only; default true). */
  header?: boolean;
}

interface Preset {
  id: PresetId;
  name: string;
  date: readonly string[];
  description: readonly string[];
  withdrawal?: readonly string[];
  deposit?: readonly string[];
  amount?: readonly string[];
  positive?: Direction;
}

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

export const PRESETS: readonly Preset[] = [
  {
    id: 'bank',
    name: '銀行（日付・摘要・出金・入金）',
    date: DATE_NAMES,
    description: DESCRIPTION_NAMES,
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
    deposit: ['入金', '入金額', '入金金額', 'お預入れ', 'お預入金額', 'お預入れ金額', '預入金額', '受入金額'],
  },
  {
    id: 'card',
    name: 'カード（利用日・利用店名・利用金額）',
    date: CARD_DATE_NAMES,
    description: CARD_DESCRIPTION_NAMES,
    amount: [
      '利用金額',
      'ご利用金額',
      '利用金額(円)',
      'ご利用金額(円)',
      'お支払金額',
      '支払金額',
      '請求金額',
    ],
    positive: '出金',
  },
  {
    id: 'signed',
    name: '銀行（日付・内容・金額、出金はマイナス）',
    date: DATE_NAMES,
    description: DESCRIPTION_NAMES,
    amount: ['金額', '入出金額', '取引金額', '入出金', 'お取引金額'],
    positive: '入金',
  },
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

/** Rows searched for a header: banks put the account number, period and balance above it. */
const HEADER_SEARCH_ROWS = 15;

function findColumn(header: readonly string[], names: readonly string[]): number {
  const wanted = names.map(normalizeText);
  return header.findIndex((h) => wanted.includes(normalizeText(h)));
}

function bindPreset(p: Preset, header: readonly string[], headerAt: number): ResolvedLayout | null {
  const date = findColumn(header, p.date);
  const description = findColumn(header, p.description);
  if (date < 0 || description < 0) return null;
  const balance = findColumn(header, BALANCE_NAMES);
  if (p.amount) {
    const amount = findColumn(header, p.amount);
    if (amount < 0) return null;
    return {
      kind: 'signed',
      name: p.name,
      date,
      description,
      amount,
      positive: p.positive ?? '入金',
      headerAt,
      balance,
    };
  }
  const withdrawal = findColumn(header, p.withdrawal ?? []);
  const deposit = findColumn(header, p.deposit ?? []);
  if (withdrawal < 0 || deposit < 0) return null;
  return { kind: 'split', name: p.name, date, description, withdrawal, deposit, headerAt, balance };
}

/** The first preset (in `presets` order) whose header names appear in one of the first rows. */
function detect(records: readonly CsvRecord[], presets: readonly Preset[]): ResolvedLayout | null {
  for (let i = 0; i < Math.min(records.length, HEADER_SEARCH_ROWS); i++) {
    for (const p of presets) {
      const bound = bindPreset(p, records[i].fields, i);
      if (bound) return bound;
    }
  }
  return null;
}

export type LayoutResult = { ok: true; layout: ResolvedLayout } | { ok: false; reason: string };

function column(n: number | undefined, label: string, problems: string[]): number {
  if (n === undefined || !Number.isInteger(n) || n < 1) {
    problems.push(`${label}の列を選んでください。`);
    return -1;
  }
  return n - 1;
}

/** Binds a choice (or detection, without one) to the columns of this file. */
export function resolveLayout(records: readonly CsvRecord[], choice: LayoutChoice = {}): LayoutResult {
  const preset = choice.preset ?? 'auto';
  if (preset === 'custom') {
    const problems: string[] = [];
    const headerAt = choice.header === false ? -1 : 0;
    const date = column(choice.date, '日付', problems);
    const description = column(choice.description, '摘要', problems);
    const balance = choice.balance === undefined ? -1 : column(choice.balance, '残高', problems);
    if (choice.amount !== undefined) {
      const amount = column(choice.amount, '金額', problems);
      if (problems.length > 0) return { ok: false, reason: problems.join(' ') };
      return {
        ok: true,
        layout: {
          kind: 'signed',
          name: '列を指定（金額1列）',
          date,
          description,
          amount,
          positive: choice.positive ?? '入金',
          headerAt,
          balance,
        },
      };
    }
    const withdrawal = column(choice.withdrawal, '出金', problems);
    const deposit = column(choice.deposit, '入金', problems);
    if (problems.length > 0)
      return { ok: false, reason: `${problems.join(' ')}（金額が1列なら「金額」の列を選びます）` };
    return {
      ok: true,
      layout: {
        kind: 'split',
        name: '列を指定（出金・入金）',
        date,
        description,
        withdrawal,
        deposit,
        headerAt,
        balance,
      },
    };
  }
  const presets = preset === 'auto' ? PRESETS : PRESETS.filter((p) => p.id === preset);
  const found = detect(records, presets);
  if (found) return { ok: true, layout: found };
  const expected =
    preset === 'auto'
      ? '「日付・摘要・出金・入金」「日付・内容・金額」「利用日・利用店名・利用金額」'
      : `「${presets[0]?.name ?? preset}」`;
  return {
    ok: false,
    reason: `見出し行（${expected} の列名）が見つかりません。文字コードが違うか、列名が違う可能性があります。画面で「列を指定」を選び、日付・摘要・金額の列を選んでください。`,
  };
}

/** Every column a layout needs (to tell a short row from a full one); 残高 is optional. */
export function layoutColumns(l: ResolvedLayout): number[] {
  return l.kind === 'split'
    ? [l.date, l.description, l.withdrawal, l.deposit]
    : [l.date, l.description, l.amount];
}
