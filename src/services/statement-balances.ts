/**
 * A CSV's month-end balances, written by the CSV import onto the sheet 残高照合 (where app/balances.ts
 * compares them with MF): refused up front when the sheet lacks a header, written under the import's lock.
 */
import { withStatementBalances } from '../core/balances';
import type { MonthEndBalance } from '../core/csv/balances';
import { openBalanceSheet, readBalanceSheet, writeBalanceSheet } from '../gas/balance-sheet';

/** Said by the CSV import (its summary) when the balances found no header to go under. */
export const CSV_BALANCES_SKIPPED =
  'CSV の月末の残高は、シート「残高照合」に書いていません（見出しが足りないため）。メニュー「記帳 > 接続と設定 > 初期設定」で見出しを戻してから、同じ CSV をもう一度取り込むと書きます（取込済みの明細は二重になりません）。';

/**
 * At a CSV import, before it reads or writes anything: what stops it when the file has balances and the
 * 残高照合 sheet lacks a header (the balances would have nowhere safe to go).
 */
export function statementBalancesRefusal(points: readonly MonthEndBalance[]): string[] | null {
  if (points.length === 0) return null;
  const opened = openBalanceSheet();
  return 'problems' in opened ? opened.problems : null;
}

/**
 * At a CSV import (under its lock): the file's month-end balances on the source's rows. A message when
 * they could not be written (a header went missing since the import began), else null.
 */
export function recordStatementBalances(source: string, points: readonly MonthEndBalance[]): string | null {
  if (points.length === 0) return null;
  const opened = openBalanceSheet();
  if ('problems' in opened) return CSV_BALANCES_SKIPPED;
  const read = readBalanceSheet(opened.sheet);
  if ('problems' in read) return CSV_BALANCES_SKIPPED;
  const existing = read.table.rows.map((r) => r.record);
  writeBalanceSheet(opened.sheet, read.table, withStatementBalances(existing, source, points));
  return null;
}
