/**
 * 残高照合 (issue 16): per own account (connected accounts and CSV sources) and month end, the balance in
 * MF's books (the balance sheet's trial balance at that date) against the statement's (a CSV's 残高 at
 * the month end, or a 通帳残高 a person typed), the difference, and what kicho can say about it: lines
 * still waiting in the 台帳, lines outside the import window MF has not journalized. Pure.
 */
import type { MonthEndBalance } from './csv/balances';
import type { LedgerRow } from './ledger';
import type { OwnAccount } from './own-accounts';
import { BALANCE_HEADERS, type BalanceHeader } from './schema';
import { normalizeText } from './text';

export type BalanceRecord = Record<BalanceHeader, string | number>;

export function emptyBalanceRecord(): BalanceRecord {
  return Object.fromEntries(BALANCE_HEADERS.map((h) => [h, ''])) as BalanceRecord;
}

/** A cell as the table compares it: a date as yyyy-MM-dd, a number as it is, anything else as text. */
export function balanceCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  if (Object.prototype.toString.call(value) === '[object Date]') {
    const d = value as Date;
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }
  return String(value);
}

/** A figure kicho wrote (明細の残高, MFの残高) read back as a number, or null when the cell is empty or not one. */
export function amountOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const t = String(value ?? '')
    .normalize('NFKC')
    .replace(/[,¥\\￥円\s]/g, '')
    .replace(/^[△▲]/, '-');
  if (t === '' || !/^-?\d+$/.test(t)) return null;
  return Number(t);
}

/** What a person typed in 通帳残高: nothing, a whole number of yen, or something kicho will not guess at. */
export type TypedBalance =
  | { kind: 'empty' }
  | { kind: 'amount'; amount: number }
  | { kind: 'unreadable'; text: string; why: string };

/**
 * 通帳残高 as typed (issue 25). Accepted, because each has one meaning on a passbook or a bank's screen:
 * digits with or without commas in threes (1,234,567), a leading ¥ / ￥ / \\ or a trailing 円, full-width
 * characters (a Japanese IME types them; read through NFKC), and a minus for a negative balance — a
 * 総合口座 in overdraft shows one (https://okinawa-bank-faq.dga.jp/faq_detail.html?category=38&id=215&page=1)
 * — written -, −, △ or ▲, the marks Japanese accounts use for it
 * (https://biz.moneyforward.com/accounting/basic/73815/). A whole number Sheets already made of the
 * typing is taken as it is. Refused, with the reason: a round or approximate figure (約・万・千), which is
 * not the passbook's; a fraction of a yen (1234.5: yen balances have none, so it is a slip — a decimal
 * point for a comma, or a digit too many); parentheses (1,000), which the same page lists as the Western
 * negative but which Japanese papers also use for an amount included in another (内書き); a formula's
 * text; a date; anything else. A refused value stays on the sheet exactly as typed.
 */
export function readTypedBalance(value: unknown): TypedBalance {
  if (value === null || value === undefined || value === '') return { kind: 'empty' };
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { kind: 'amount', amount: value === 0 ? 0 : value };
    const reason = Number.isFinite(value) && !Number.isInteger(value) ? TYPED_WHY.fraction : TYPED_WHY.other;
    return { kind: 'unreadable', text: String(value), why: reason };
  }
  if (typeof value === 'boolean') return { kind: 'unreadable', text: String(value), why: TYPED_WHY.other };
  const text = typeof value === 'string' ? value : String(value);
  if (text.trim() === '') return { kind: 'empty' };
  const why = (reason: string): TypedBalance => ({ kind: 'unreadable', text, why: reason });
  const t = text.normalize('NFKC').replace(/\s+/g, '');
  if (t.startsWith('=')) return why(TYPED_WHY.formula);
  if (/[約万千億程度位]|くらい|ぐらい|およそ|概算/.test(t)) return why(TYPED_WHY.approximate);
  if (/[()]/.test(t)) return why(TYPED_WHY.parentheses);
  if (/^\d{4}[-/]\d{1,2}[-/]\d{1,2}$/.test(t)) return why(TYPED_WHY.date);
  // Sign and currency mark in either order (-¥1,000 / ¥-1,000), then the figure, then 円.
  const m = /^([-−△▲+]?)[¥\\]?([-−△▲+]?)([\d,]+)(\.\d+)?円?$/.exec(t);
  if (!m || (m[1] !== '' && m[2] !== '')) return why(TYPED_WHY.other);
  const [, before, after, digits, fraction] = m;
  if (!/^(\d{1,3}(,\d{3})*|\d+)$/.test(digits)) return why(TYPED_WHY.grouping);
  if (fraction && !/^\.0+$/.test(fraction)) return why(TYPED_WHY.fraction);
  const amount = Number(digits.replace(/,/g, ''));
  if (!Number.isSafeInteger(amount)) return why(TYPED_WHY.other);
  const negative = /[-−△▲]/.test(before + after);
  return { kind: 'amount', amount: negative && amount !== 0 ? -amount : amount };
}

export const TYPED_WHY = {
  approximate: '「約」「万」などの概数は、通帳の残高と比べられません',
  fraction: '円未満の端数があります。残高は円単位です',
  parentheses: 'かっこ書きは、マイナスなのか内訳なのか決められません',
  formula: '数式ではなく、残高の数字だけを入れてください',
  date: '日付になっています',
  grouping: 'カンマの位置が 3 桁ごとになっていません',
  other: '金額として読めません',
} as const;

/** What to type instead, after the reason. */
export const TYPED_HOW =
  '1,234,567 や ¥1,234,567、1234567円 のように円単位の数字で入れ直してください（マイナスは -1,234 か △1,234）。';

/** A row's identity on 残高照合: its 口座 (as 台帳 口座 compare) and 月末. */
export const balanceKey = (account: string, monthEnd: string) => `${normalizeText(account)}\u0000${monthEnd}`;

export const BALANCE_TEXT = {
  csvBalance: (asOf: string, complete: boolean) =>
    complete
      ? `CSV の残高（${asOf} の行のあと）`
      : `CSV の残高（CSV は ${asOf} まで。月末までの明細が揃っていない可能性）`,
} as const;

/**
 * At a CSV import: each month end's balance from the file on the 残高照合 rows of the source (added when
 * missing). 通帳残高 and everything else on the rows stays.
 */
export function withStatementBalances(
  rows: readonly BalanceRecord[],
  account: string,
  points: readonly MonthEndBalance[],
): BalanceRecord[] {
  const out = rows.map((r) => ({ ...r }));
  const index = new Map(out.map((r, i) => [balanceKey(String(r.口座), String(r.月末)), i]));
  for (const p of points) {
    const i = index.get(balanceKey(account, p.monthEnd));
    const note = BALANCE_TEXT.csvBalance(p.asOf, p.complete);
    if (i === undefined) {
      out.push({
        ...emptyBalanceRecord(),
        口座: account,
        月末: p.monthEnd,
        明細の残高: p.balance,
        説明: note,
      });
      index.set(balanceKey(account, p.monthEnd), out.length - 1);
    } else {
      out[i].明細の残高 = p.balance;
      out[i].説明 = note;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reading MF's trial balance

export interface TbRowLike {
  name: string;
  type: string;
  values: (number | null)[];
  rows: TbRowLike[] | null;
}

export interface TbLike {
  columns: string[];
  rows: TbRowLike[];
}

export interface MfBalance {
  balance: number;
  /** Under 資産 (debit-natured) in the report; null when the account is not in it (every figure 0). */
  asset: boolean | null;
  /** True when the figure is the account less its sub-accounts (a CSV source with no 補助科目). */
  remainder: boolean;
}

/**
 * The balance of an account (and sub-account) at the report's end date: closing_balance of its row,
 * found by name. MF leaves out rows whose every figure is 0, so a missing row is 0. An account asked
 * without a sub-account while MF lists sub-accounts under it is what is booked on none of them.
 */
export function balanceFromTrialBalance(
  tb: TbLike,
  accountName: string,
  subName: string,
  hasSubs: boolean,
): MfBalance {
  const closing = tb.columns.indexOf('closing_balance');
  const value = (r: TbRowLike) => Number(r.values[closing >= 0 ? closing : 3] ?? 0);
  const want = normalizeText(accountName);
  let found: { row: TbRowLike; asset: boolean } | null = null;
  const walk = (rows: readonly TbRowLike[] | null, asset: boolean) => {
    for (const r of rows ?? []) {
      if (found) return;
      if (r.type === 'account' && normalizeText(r.name) === want) found = { row: r, asset };
      else walk(r.rows, asset);
    }
  };
  for (const top of tb.rows) walk([top], top.type === 'assets');
  const hit = found as { row: TbRowLike; asset: boolean } | null;
  if (!hit) return { balance: 0, asset: null, remainder: false };
  const subs = (hit.row.rows ?? []).filter((r) => r.type === 'sub_account');
  if (subName.trim() !== '') {
    const sub = subs.find((r) => normalizeText(r.name) === normalizeText(subName));
    return { balance: sub ? value(sub) : 0, asset: hit.asset, remainder: false };
  }
  if (hasSubs && subs.length > 0) {
    const inSubs = subs.reduce((n, r) => n + value(r), 0);
    return { balance: value(hit.row) - inSubs, asset: hit.asset, remainder: true };
  }
  return { balance: value(hit.row), asset: hit.asset, remainder: false };
}

// ---------------------------------------------------------------------------------------------
// The table

export interface OpenLine {
  date: string;
  /** + for money in, − for money out (as the bank sees it). */
  signed: number;
}

export interface BalanceInput {
  accounts: readonly OwnAccount[];
  monthEnds: readonly string[];
  /** MF's balance of an account at a month end, or null when that month end is outside every period. */
  mfBalance(account: OwnAccount, monthEnd: string): MfBalance | null;
  /** Debit-natured (an asset) when MF's report does not say: from the account's group. */
  isAsset(account: OwnAccount): boolean;
  existing: readonly BalanceRecord[];
  ledger: readonly LedgerRow[];
  /** MF lines not journalized, dated outside the import window, by connected account label. */
  outsideWindow: ReadonlyMap<string, readonly OpenLine[]>;
  window: { start: string; end: string };
}

const SETTLED = new Set(['完了', '除外']);
const yen = (n: number) => `${n < 0 ? '−' : n > 0 ? '+' : ''}${Math.abs(n).toLocaleString('ja-JP')} 円`;

export const BALANCE_MSG = {
  match: '一致しています。',
  noStatement: (csv: boolean) =>
    csv
      ? 'CSV に残高の列がないか、この月の行がありません。通帳残高の列に月末の残高を入れると、次の残高照合で差額を出します。'
      : '通帳残高の列に月末の残高（通帳・ネットバンクの残高）を入れると、次の残高照合で差額を出します。',
  outsidePeriod: 'この月末は MF の会計期間の外です（MF で会計期間を確かめてください）。',
  pending: (n: number, states: string, sum: number) =>
    `台帳にまだ MF へ登録していない明細が ${n} 件（${states}）あり、登録すると MF の残高は ${yen(sum)}変わります。`,
  outside: (n: number, sum: number, start: string, end: string) =>
    `取込期間（${start}〜${end}）の外に MF で未仕訳の明細が ${n} 件あり、仕訳すると MF の残高は ${yen(sum)}変わります。`,
  explained: '差額はこれで説明できます。',
  rest: (n: number) => `残り ${yen(n)}は説明できません。`,
  unexplained:
    '説明できない差額です。明細の抜けや二重（メニュー「重複点検」）、手入力の仕訳、別の口座への誤った記帳を確かめてください。',
  constant:
    '同じ差額が続いているので、その月から明細が抜けているか、MF の開始残高（期首残高）が違う可能性があります。',
  remainder: '（MF の残高は、この勘定科目のうち補助科目のない分です）',
  unreadable: (text: string, why: string) =>
    `通帳残高「${text}」は読めないため、比べていません（${why}）。${TYPED_HOW}`,
  typedWins: (csv: number) => `通帳残高で比べています（CSV の残高は ${csv.toLocaleString('ja-JP')} 円）。`,
} as const;

/** Every (口座, 月末) row: the month ends asked now for every account, plus rows kept from before. */
export function balanceRecords(input: BalanceInput): BalanceRecord[] {
  const kept = new Map(input.existing.map((r) => [balanceKey(String(r.口座), String(r.月末)), r]));
  const out: BalanceRecord[] = [];
  const done = new Set<string>();
  for (const a of input.accounts) {
    const diffs: { monthEnd: string; rest: number }[] = [];
    const rows: BalanceRecord[] = [];
    for (const monthEnd of input.monthEnds) {
      const key = balanceKey(a.label, monthEnd);
      done.add(key);
      const prev = kept.get(key);
      const csv = amountOf(prev?.明細の残高);
      const entered = readTypedBalance(prev?.通帳残高);
      const typed = entered.kind === 'amount' ? entered.amount : null;
      const mf = input.mfBalance(a, monthEnd);
      const record: BalanceRecord = {
        ...emptyBalanceRecord(),
        口座: a.label,
        勘定科目: a.accountName,
        補助科目: a.subName,
        月末: monthEnd,
        MFの残高: mf ? mf.balance : '',
        明細の残高: csv ?? '',
        // As read: the sheet's writer never writes this column (what a person typed stays as typed).
        通帳残高: prev?.通帳残高 ?? '',
      };
      const statement = typed ?? csv;
      const notes: string[] = [];
      if (!mf) notes.push(BALANCE_MSG.outsidePeriod);
      // A balance the person meant but kicho cannot read is not replaced by the CSV's: say so instead.
      else if (entered.kind === 'unreadable') notes.push(BALANCE_MSG.unreadable(entered.text, entered.why));
      else if (statement === null) notes.push(BALANCE_MSG.noStatement(a.kind === 'csv'));
      else {
        const diff = mf.balance - statement;
        record.差額 = diff;
        const asset = mf.asset ?? input.isAsset(a);
        const nature = asset ? 1 : -1;
        if (typed !== null && csv !== null && typed !== csv) notes.push(BALANCE_MSG.typedWins(csv));
        if (diff === 0) notes.push(BALANCE_MSG.match);
        else {
          const pending = input.ledger.filter(
            (r) =>
              normalizeText(r.record.口座) === normalizeText(a.label) &&
              r.record.取引日 <= monthEnd &&
              !SETTLED.has(r.record.状態),
          );
          const pendingSum = pending.reduce(
            (n, r) => n + nature * (r.record.入出金 === '入金' ? 1 : -1) * Number(r.record.金額 || 0),
            0,
          );
          let explained = 0;
          if (pending.length > 0) {
            const states = new Map<string, number>();
            for (const r of pending) states.set(r.record.状態, (states.get(r.record.状態) ?? 0) + 1);
            notes.push(
              BALANCE_MSG.pending(
                pending.length,
                [...states].map(([s, n]) => `${s} ${n} 件`).join('、'),
                pendingSum,
              ),
            );
            explained += pendingSum;
          }
          const outside = (input.outsideWindow.get(a.label) ?? []).filter((l) => l.date <= monthEnd);
          if (outside.length > 0) {
            const sum = outside.reduce((n, l) => n + nature * l.signed, 0);
            notes.push(BALANCE_MSG.outside(outside.length, sum, input.window.start, input.window.end));
            explained += sum;
          }
          const rest = mf.balance + explained - statement;
          if (explained !== 0 && rest === 0) notes.push(BALANCE_MSG.explained);
          else {
            if (explained !== 0) notes.push(BALANCE_MSG.rest(rest));
            else notes.push(BALANCE_MSG.unexplained);
            diffs.push({ monthEnd, rest });
          }
        }
        if (mf.remainder) notes.push(BALANCE_MSG.remainder);
      }
      record.説明 = notes.join(' ');
      rows.push(record);
    }
    // The same unexplained difference every month is a start that differs, not a line.
    if (diffs.length >= 2 && diffs.every((d) => d.rest === diffs[0].rest)) {
      for (const r of rows)
        if (diffs.some((d) => d.monthEnd === r.月末)) r.説明 = `${r.説明} ${BALANCE_MSG.constant}`;
    }
    out.push(...rows);
  }
  // Rows of other months (a CSV imported earlier, a balance typed for a month not asked now) stay.
  for (const r of input.existing)
    if (!done.has(balanceKey(String(r.口座), String(r.月末)))) out.push({ ...r });
  return out.sort(
    (x, y) =>
      String(x.口座).localeCompare(String(y.口座), 'ja') || String(x.月末).localeCompare(String(y.月末)),
  );
}

/** Month ends (yyyy-MM-dd) from start's month to end, those on or before end. */
export function monthEndsBetween(start: string, end: string): string[] {
  const out: string[] = [];
  let y = Number(start.slice(0, 4));
  let m = Number(start.slice(5, 7));
  for (;;) {
    const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
    const d = `${y}-${String(m).padStart(2, '0')}-${String(last).padStart(2, '0')}`;
    if (d > end) return out;
    out.push(d);
    m += 1;
    if (m === 13) {
      m = 1;
      y += 1;
    }
  }
}

/**
 * The chart's block: one row per month end, one column per account that has a difference in some month
 * (an account with no statement balance yet would only add an empty series).
 */
export function differenceSeries(
  records: readonly BalanceRecord[],
  monthEnds: readonly string[],
  names: readonly string[],
): (string | number)[][] {
  const byKey = new Map(records.map((r) => [balanceKey(String(r.口座), String(r.月末)), r]));
  const accounts = names.filter((a) =>
    monthEnds.some((m) => typeof byKey.get(balanceKey(a, m))?.差額 === 'number'),
  );
  return [
    ['月末（差額のグラフ）', ...accounts.map((a) => `差額: ${a}`)],
    ...monthEnds.map((m) => [m, ...accounts.map((a) => byKey.get(balanceKey(a, m))?.差額 ?? '')]),
  ];
}
