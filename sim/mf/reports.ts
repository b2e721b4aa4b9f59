// GET /reports/trial_balance_bs: the balance sheet's trial balance (残高試算表 貸借対照表) computed from the
// books. The document [D] fixes the shape (TBResponse: columns opening_balance, debit_amount, credit_amount,
// closing_balance, ratio; nested TBRow totals → accounts → sub-accounts), that accounts and sub-accounts
// whose every figure is 0 are left out, that unrealized journals are not counted, and the parameters. How
// MF groups accounts into statement items, and how opening_balance is formed when start_date is inside a
// period, are ours [I] (difference `trial-balance-figures`): kicho reads only account and sub-account rows
// by name and their closing_balance, asked from a period's first day.

import type { ApiContext } from './context';
import { addDays } from './dates';
import { ApiError, jsonResponse } from './errors';
import type {
  Account,
  AccountingPeriod,
  HttpResponse,
  JournalRecord,
  JournalType,
  StoredSide,
} from './types';

const JOURNAL_TYPES: readonly JournalType[] = ['journal_entry', 'adjusting_entry'];
export const TB_COLUMNS = ['opening_balance', 'debit_amount', 'credit_amount', 'closing_balance', 'ratio'];

/** The document's TrialBalanceError texts. */
export const TB_MESSAGES = {
  months: 'The given months are not matching with any accounting periods.',
  combination:
    'The combination of date parameters combined with month and fiscal year parameters is invalid.',
} as const;

interface TbRow {
  name: string;
  type: string;
  values: (number | null)[];
  rows: TbRow[] | null;
}

/** Statement items an account's category belongs to: [section item, group item] (our grouping [I]). */
const ITEMS: Readonly<Record<string, readonly [string, string]>> = {
  CASH_AND_DEPOSITS: ['流動資産合計', '現金及び預金合計'],
  TRADE_RECEIVABLES: ['流動資産合計', '売上債権合計'],
  OTHER_CURRENT_ASSETS: ['流動資産合計', 'その他流動資産合計'],
  OTHER_CURRENT_LIABILITIES: ['流動負債合計', 'その他流動負債合計'],
  CAPITAL_STOCK: ['株主資本合計', '資本金合計'],
  RETAINED_EARNINGS_BROUGHT_FORWARD: ['株主資本合計', '利益剰余金合計'],
};

function tbError(code: string, message: string): ApiError {
  return new ApiError(400, code, message);
}

/** The first day of the month after `date`'s. */
function nextMonth(date: string): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7));
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
}

/** `month` (1–12) of a term as a range of dates inside it; refused when the term has no such month. */
function monthRange(period: AccountingPeriod, month: number): { from: string; to: string } {
  for (let first = `${period.start_date.slice(0, 8)}01`; first <= period.end_date; first = nextMonth(first)) {
    if (Number(first.slice(5, 7)) !== month) continue;
    const last = addDays(nextMonth(first), -1);
    // Dates as text compare in calendar order; a term may begin or end inside a month.
    const [from, to] = [[first, period.start_date].sort()[1], [last, period.end_date].sort()[0]];
    return { from, to };
  }
  throw tbError('invalid_query_parameter_value', TB_MESSAGES.months);
}

/** The range asked: dates, or fiscal_year with months, or the latest term (the document's defaults). */
function range(ctx: ApiContext): { period: AccountingPeriod; from: string; to: string } {
  const q = ctx.query;
  const periods = ctx.store.office.accounting_periods;
  const startDate = q.date('start_date');
  const endDate = q.date('end_date');
  const fiscalYear = q.integer('fiscal_year', { min: 0, max: 9999 });
  const startMonth = q.integer('start_month', { min: 1, max: 12 });
  const endMonth = q.integer('end_month', { min: 1, max: 12 });
  const byDate = startDate !== undefined || endDate !== undefined;
  const byMonth = fiscalYear !== undefined || startMonth !== undefined || endMonth !== undefined;
  if (byDate && byMonth) throw tbError('invalid_query_parameter_combination', TB_MESSAGES.combination);
  if (byDate) {
    const anchor = (startDate ?? endDate) as string;
    const period = periods.find((p) => p.start_date <= anchor && anchor <= p.end_date);
    const from = startDate ?? period?.start_date ?? anchor;
    const to = endDate ?? period?.end_date ?? anchor;
    // One term per report [I]: a range reaching into another term, or outside every term, is refused.
    if (!period || from > to || to > period.end_date || from < period.start_date) {
      throw tbError('invalid_query_parameter_value', TB_MESSAGES.months);
    }
    return { period, from, to };
  }
  const period =
    fiscalYear === undefined
      ? [...periods].sort((a, b) => b.start_date.localeCompare(a.start_date))[0]
      : periods.find((p) => p.fiscal_year === fiscalYear);
  if (!period) throw tbError('invalid_query_parameter_value', TB_MESSAGES.months);
  const from = startMonth === undefined ? period.start_date : monthRange(period, startMonth).from;
  const to = endMonth === undefined ? period.end_date : monthRange(period, endMonth).to;
  if (from > to) throw tbError('invalid_query_parameter_value', TB_MESSAGES.months);
  return { period, from, to };
}

interface Totals {
  opening: number;
  debit: number;
  credit: number;
}

function zero(): Totals {
  return { opening: 0, debit: 0, credit: 0 };
}

/** Debit-natured for assets: opening and closing are debit minus credit; credit minus debit otherwise. */
function closing(t: Totals, debitNature: boolean): number {
  return debitNature ? t.opening + t.debit - t.credit : t.opening + t.credit - t.debit;
}

function isZero(t: Totals): boolean {
  return t.opening === 0 && t.debit === 0 && t.credit === 0;
}

export function trialBalanceBs(ctx: ApiContext): HttpResponse {
  const q = ctx.query;
  q.allowOnly(
    [
      'fiscal_year',
      'start_month',
      'end_month',
      'start_date',
      'end_date',
      'with_sub_accounts',
      'include_tax',
      'office_code',
    ],
    ['journal_types'],
  );
  const { period, from, to } = range(ctx);
  const withSubs = q.boolean('with_sub_accounts') ?? false;
  q.boolean('include_tax');
  const types = q.allOneOf('journal_types', JOURNAL_TYPES);
  const { store } = ctx;
  const leaf = ctx.settings.trialBalanceLeafRows === 'null' ? null : [];

  const bsAccounts = store.accounts.filter((a) =>
    ['ASSET', 'LIABILITY', 'CAPITAL'].includes(a.account_group),
  );
  const byAccount = new Map<string, Totals>();
  const bySub = new Map<string, Totals>();
  const add = (side: StoredSide, field: 'debit' | 'credit', opening: boolean, debitSide: boolean) => {
    const account = store.account(side.account_id);
    if (!account || !bsAccounts.includes(account)) return;
    const debitNature = account.account_group === 'ASSET';
    const targets = [byAccount, ...(side.sub_account_id ? [bySub] : [])];
    for (const map of targets) {
      const key = map === byAccount ? side.account_id : (side.sub_account_id as string);
      const t = map.get(key) ?? zero();
      if (opening) t.opening += (debitSide === debitNature ? 1 : -1) * side.value;
      else t[field] += side.value;
      map.set(key, t);
    }
  };
  const counted = (j: JournalRecord) =>
    j.is_realized &&
    j.term_period === period.fiscal_year &&
    (types.length === 0 || types.includes(j.journal_type)) &&
    j.transaction_date >= period.start_date &&
    j.transaction_date <= to;
  for (const j of store.journals()) {
    if (!counted(j)) continue;
    // The term's opening journal and everything before the range make up opening_balance [I].
    const opening = j.entered_by === 'JOURNAL_TYPE_OPENING' || j.transaction_date < from;
    for (const b of j.branches) {
      add(b.debitor, 'debit', opening, true);
      add(b.creditor, 'credit', opening, false);
    }
  }

  const accountRow = (account: Account): TbRow | null => {
    const t = byAccount.get(account.id);
    if (!t || isZero(t)) return null;
    const debitNature = account.account_group === 'ASSET';
    const subs = withSubs
      ? account.sub_accounts
          .map((s) => ({ s, t: bySub.get(s.id) }))
          .filter((x): x is { s: (typeof account.sub_accounts)[number]; t: Totals } => !!x.t && !isZero(x.t))
          .map(
            ({ s, t: st }): TbRow => ({
              name: s.name,
              type: 'sub_account',
              values: [st.opening, st.debit, st.credit, closing(st, debitNature), null],
              rows: leaf,
            }),
          )
      : [];
    return {
      name: account.name,
      type: 'account',
      values: [t.opening, t.debit, t.credit, closing(t, debitNature), null],
      rows: subs.length > 0 ? subs : leaf,
    };
  };

  const section = (name: string, type: string, groups: readonly string[]): TbRow => {
    const items = new Map<string, Map<string, TbRow[]>>();
    for (const account of bsAccounts.filter((a) => groups.includes(a.account_group))) {
      const row = accountRow(account);
      if (!row) continue;
      const [outer, inner] = ITEMS[account.category] ?? ['その他合計', 'その他合計'];
      const byInner = items.get(outer) ?? new Map<string, TbRow[]>();
      byInner.set(inner, [...(byInner.get(inner) ?? []), row]);
      items.set(outer, byInner);
    }
    const total = (rows: readonly TbRow[]) =>
      [0, 1, 2, 3].map((i) => rows.reduce((sum, r) => sum + Number(r.values[i] ?? 0), 0));
    const outerRows: TbRow[] = [...items].map(([outer, byInner]) => {
      const innerRows: TbRow[] = [...byInner].map(([inner, accounts]) => ({
        name: inner,
        type: 'financial_statement_item',
        values: [...total(accounts), null],
        rows: accounts,
      }));
      return {
        name: outer,
        type: 'financial_statement_item',
        values: [...total(innerRows), null],
        rows: innerRows,
      };
    });
    return { name, type, values: [...total(outerRows), null], rows: outerRows };
  };

  const assets = section('資産の部合計', 'assets', ['ASSET']);
  const liabilities = section('負債の部合計', 'liabilities', ['LIABILITY']);
  const netAssets = section('純資産の部合計', 'net_assets', ['CAPITAL']);
  const right: TbRow = {
    name: '負債・純資産の部合計',
    type: 'liabilities_net_assets',
    values: [...[0, 1, 2, 3].map((i) => Number(liabilities.values[i]) + Number(netAssets.values[i])), null],
    rows: [liabilities, netAssets],
  };
  // 構成比: each row's closing balance as a share of its side's total, null when the total is 0 [D].
  const ratio = (row: TbRow, denominator: number) => {
    row.values[4] = denominator === 0 ? null : Math.round((Number(row.values[3]) / denominator) * 1000) / 10;
    for (const child of row.rows ?? []) ratio(child, denominator);
  };
  ratio(assets, Number(assets.values[3]));
  ratio(right, Number(right.values[3]));
  return jsonResponse(200, {
    report_type: 'trial_balance_bs',
    fiscal_year: period.fiscal_year,
    start_month: Number(from.slice(5, 7)),
    end_month: Number(to.slice(5, 7)),
    start_date: from,
    end_date: to,
    created_at: new Date(ctx.nowMs).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
    columns: TB_COLUMNS,
    rows: [assets, right],
  });
}
