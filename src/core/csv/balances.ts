/**
 * A CSV's running balance (its optional 残高 column, issue 16): each line's previous balance plus its
 * amount must give its balance. A break points at a missing line (the balance jumps by the missing
 * amount) or a duplicated one (a line repeated, the balance unchanged), and is reported by file line
 * number when the file is imported. The balance at each month end is what 残高照合 compares with MF. Pure.
 */
import type { CsvLine } from './intake';

export interface BalanceBreak {
  /** File line where the running balance stops adding up. */
  line: number;
  /** The line before it (in time). */
  previousLine: number;
  kind: 'missing' | 'duplicated';
  /** What the balance should be after `line` from the previous balance, and what the file says. */
  expected: number;
  actual: number;
  message: string;
}

export interface MonthEndBalance {
  /** yyyy-MM-dd, the last day of the month. */
  monthEnd: string;
  balance: number;
  /** The date of the last line of that month in the file. */
  asOf: string;
  /** The file goes on past the month end, so no later line of that month can be missing from it. */
  complete: boolean;
}

const yen = (n: number) => `${n.toLocaleString('ja-JP')} 円`;

function signed(l: CsvLine): number {
  return l.side === '入金' ? l.amount : -l.amount;
}

/** Lines with a balance, oldest first: a bank lists newest first as often as oldest first. */
function chronological(lines: readonly CsvLine[]): CsvLine[] {
  const withBalance = lines.filter((l) => l.balance !== null);
  if (withBalance.length < 2) return withBalance;
  const first = withBalance[0].date;
  const last = withBalance[withBalance.length - 1].date;
  if (first > last) return [...withBalance].reverse();
  if (first < last) return withBalance;
  // One day only: the order in which the balances add up.
  const breaks = (ls: readonly CsvLine[]) =>
    ls.filter((l, i) => i > 0 && (ls[i - 1].balance as number) + signed(l) !== l.balance).length;
  const reversed = [...withBalance].reverse();
  return breaks(reversed) < breaks(withBalance) ? reversed : withBalance;
}

export const BALANCE_MSG = {
  missing: (b: { line: number; previousLine: number; expected: number; actual: number }) =>
    `${b.line} 行目: 残高が合いません。${b.previousLine} 行目の残高にこの行の金額を足すと ${yen(b.expected)}ですが、CSV の残高は ${yen(b.actual)}です（差 ${yen(b.actual - b.expected)}）。この間に ${yen(Math.abs(b.actual - b.expected))}の${b.actual > b.expected ? '入金' : '出金'}の明細が抜けている可能性があります。銀行のサイトで期間を確かめて CSV を保存し直してください。`,
  duplicated: (b: { line: number; previousLine: number }) =>
    `${b.line} 行目: ${b.previousLine} 行目と同じ明細で、残高が変わっていません。同じ明細が二重に入っている可能性があります（取り込むと台帳に 2 行できます。二重なら片方を「除外」にしてください）。`,
} as const;

export function balanceBreaks(lines: readonly CsvLine[]): BalanceBreak[] {
  const ls = chronological(lines);
  const out: BalanceBreak[] = [];
  for (let i = 1; i < ls.length; i++) {
    const prev = ls[i - 1];
    const cur = ls[i];
    const expected = (prev.balance as number) + signed(cur);
    const actual = cur.balance as number;
    if (expected === actual) continue;
    const repeated =
      actual === prev.balance &&
      cur.date === prev.date &&
      cur.amount === prev.amount &&
      cur.side === prev.side &&
      cur.description.normalize('NFKC').trim() === prev.description.normalize('NFKC').trim();
    const b = { line: cur.line, previousLine: prev.line, expected, actual };
    out.push({
      ...b,
      kind: repeated ? 'duplicated' : 'missing',
      message: repeated ? BALANCE_MSG.duplicated(b) : BALANCE_MSG.missing(b),
    });
  }
  return out;
}

function monthEndOf(date: string): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${date.slice(0, 7)}-${String(last).padStart(2, '0')}`;
}

/** The balance after the last line of each month the file covers. */
export function monthEndBalances(lines: readonly CsvLine[]): MonthEndBalance[] {
  const ls = chronological(lines);
  const byMonth = new Map<string, CsvLine>();
  for (const l of ls) byMonth.set(monthEndOf(l.date), l);
  const lastDate = ls.length > 0 ? ls[ls.length - 1].date : '';
  return [...byMonth].map(([monthEnd, l]) => ({
    monthEnd,
    balance: l.balance as number,
    asOf: l.date,
    complete: lastDate > monthEnd || l.date === monthEnd,
  }));
}
