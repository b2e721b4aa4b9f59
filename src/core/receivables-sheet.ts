/**
 * The 売掛金 sheet's rows under RECEIVABLE_HEADERS: open items first (what needs chasing), then the
 * totals per 取引先 and per aging bucket, then the settled history. One record list, so the sheet is
 * written in one call; section titles sit in the 取引先 column.
 */
import type { OpenReceivable } from './deposit-match';
import { headerIndex } from './headers';
import type { PartnerTotal, ReceivableItem, ReceivablesReport } from './receivables';
import { dateText } from './settings';

export const RECEIVABLE_SECTIONS = {
  partners: '■ 取引先別の合計',
  buckets: '■ 経過日数別の残高（未回収分）',
  closed: '■ 回収済・取消',
  total: '合計',
  noOpen: '未回収の売掛金はありません。',
} as const;

type Row = Record<string, string | number>;

function itemRow(i: ReceivableItem): Row {
  return {
    取引先: i.partner,
    発生日: i.date,
    金額: i.amount,
    回収済: i.collected,
    残高: i.balance,
    経過日数: i.amount > 0 ? i.days : '',
    区分: i.bucket,
    状態: i.status,
    '値引・返品': i.cancelled || '',
    手数料差額: i.feeDifference || '',
    説明: i.notes.join(' '),
  };
}

/** A line of 取引先別の合計 (one partner, or the 合計 of them all). */
function totalsRow(t: PartnerTotal): Row {
  return {
    取引先: t.partner,
    金額: t.amount,
    回収済: t.collected,
    残高: t.balance,
    状態: `未回収 ${t.openCount} 件・期日超過 ${t.overdueCount} 件`,
    '値引・返品': t.cancelled,
    手数料差額: t.feeDifference,
  };
}

export function receivableSheetRows(report: ReceivablesReport): Row[] {
  const rows: Row[] = report.open.map(itemRow);
  if (rows.length === 0) rows.push({ 取引先: RECEIVABLE_SECTIONS.noOpen });
  rows.push({}, { 取引先: RECEIVABLE_SECTIONS.partners });
  const sum: PartnerTotal = {
    partner: RECEIVABLE_SECTIONS.total,
    amount: 0,
    collected: 0,
    cancelled: 0,
    feeDifference: 0,
    balance: 0,
    openCount: 0,
    overdueCount: 0,
  };
  for (const p of report.partners) {
    rows.push(totalsRow(p));
    sum.amount += p.amount;
    sum.collected += p.collected;
    sum.cancelled += p.cancelled;
    sum.feeDifference += p.feeDifference;
    sum.balance += p.balance;
    sum.openCount += p.openCount;
    sum.overdueCount += p.overdueCount;
  }
  rows.push(totalsRow(sum));
  rows.push({}, { 取引先: RECEIVABLE_SECTIONS.buckets });
  for (const b of report.buckets) rows.push({ 区分: b.bucket, 残高: b.balance, 状態: `${b.count} 件` });
  if (report.closed.length > 0) {
    rows.push({}, { 取引先: RECEIVABLE_SECTIONS.closed });
    // Newest first: last month's settlements are what a person checks against the bank.
    rows.push(
      ...[...report.closed].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0)).map(itemRow),
    );
  }
  return rows;
}

/**
 * The open invoices on a 売掛金 sheet written by receivableSheetRows: the rows above the first blank
 * row that have a 発生日 and a positive 残高 (unapplied money and section rows are not invoices).
 */
export function openReceivablesFromValues(values: readonly (readonly unknown[])[]): OpenReceivable[] {
  const columns = headerIndex(values[0] ?? []);
  const at = (row: readonly unknown[], header: string) => {
    const c = columns.get(header);
    return c === undefined ? '' : row[c];
  };
  const out: OpenReceivable[] = [];
  for (const row of values.slice(1)) {
    if (row.every((v) => v === '' || v === null)) break;
    const partner = String(at(row, '取引先')).trim();
    const date = dateText(at(row, '発生日'));
    const balance = Number(at(row, '残高'));
    const amount = Number(at(row, '金額'));
    if (partner && date && Number.isInteger(balance) && balance > 0 && amount > 0)
      out.push({ partner, date, balance });
  }
  return out;
}
