/**
 * The 残高照合 sheet: one read of the whole sheet, kicho's own columns written in place (one write per run
 * of adjacent own columns), new rows appended, and beside the table the differences by month as a block
 * with a column chart drawn from it (kicho's previous chart replaced). Where things go is decided in
 * core/balance-sheet.ts; 通帳残高 and people's own columns are never written.
 */

import { type BalanceTable, blockColumn, planBalanceWrite, readBalanceTable } from '../core/balance-sheet';
import type { BalanceRecord } from '../core/balances';
import { describeShapeProblems, shapeProblems } from '../core/ledger-shape';
import { BALANCE_HEADERS, SHEET } from '../core/schema';
import { setCellBlocks, toCells } from './cells';
import { activeBook, ensureRows, ensureSheet, formatHeaderRow, readHeaderRow } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const CHART_TITLE = '月末の差額（MFの残高 − 明細の残高）';

/**
 * The sheet, ready to read and write, or what stops the run (DESIGN §3): a missing or renamed header
 * of a sheet that holds rows is never re-added beside them (that is how typed balances were lost); the
 * run stops before it reads or writes and says which header and that 初期設定 puts it back. A sheet that
 * is not there, or is empty, gets its headers: nothing of a person's is on it.
 */
export function openBalanceSheet(): { sheet: Sheet; created: boolean } | { problems: string[] } {
  const existing = activeBook().getSheetByName(SHEET.balances);
  const { sheet, created } = existing ? { sheet: existing, created: false } : ensureSheet(SHEET.balances);
  const header = created ? [] : readHeaderRow(sheet);
  if (header.length === 0 && (created || sheet.getLastRow() === 0)) {
    setCellBlocks(sheet, [{ row: 1, column: 1, cells: toCells([BALANCE_HEADERS.slice()]) }]);
    formatHeaderRow(sheet, BALANCE_HEADERS.length);
    return { sheet, created: true };
  }
  const problems = balanceShapeProblems(header);
  return problems ? { problems } : { sheet, created: false };
}

/** The refusal lines when row 1 lacks a header of 残高照合, else null. */
export function balanceShapeProblems(header: readonly unknown[]): string[] | null {
  const problems = shapeProblems([SHEET.balances], new Map([[SHEET.balances, header]]));
  return problems.length > 0 ? describeShapeProblems(problems) : null;
}

/** The whole sheet in one read, as a table (or the refusal when a header went missing meanwhile). */
export function readBalanceSheet(sheet: Sheet): { table: BalanceTable } | { problems: string[] } {
  const values = sheet.getDataRange().getValues();
  const problems = balanceShapeProblems(values[0] ?? []);
  return problems ? { problems } : { table: readBalanceTable(values) };
}

/**
 * Writes `records` (every row of `table`, updated, plus new ones) and, when `series` is given, the chart
 * block and its chart. Returns how many rows were added.
 */
export function writeBalanceSheet(
  sheet: Sheet,
  table: BalanceTable,
  records: readonly BalanceRecord[],
  series?: (string | number)[][],
): number {
  const plan = planBalanceWrite(table, records);
  const blocks = plan.blocks.map((b) => ({ row: b.row, column: b.column, cells: toCells(b.cells) }));
  if (plan.appended) {
    const a = plan.appended;
    ensureRows(sheet, a.row + a.cells.length - 1);
    blocks.push({ row: a.row, column: a.column, cells: toCells(a.cells) });
  }
  setCellBlocks(sheet, blocks);
  const last = table.lastRow + (plan.appended?.cells.length ?? 0);
  for (const h of ['MFの残高', '明細の残高', '差額']) {
    const c = table.columns.get(h);
    if (c !== undefined && last >= 2) sheet.getRange(2, c + 1, last - 1, 1).setNumberFormat('#,##0');
  }
  // 通帳残高 is the person's: only the cells of new rows get the format (a format a person chose stays).
  const typed = table.columns.get('通帳残高');
  if (typed !== undefined && plan.appended)
    sheet.getRange(plan.appended.row, typed + 1, plan.appended.cells.length, 1).setNumberFormat('#,##0');
  if (series) writeChartBlock(sheet, table, series);
  return plan.added;
}

function writeChartBlock(sheet: Sheet, table: BalanceTable, series: (string | number)[][]): void {
  const old = table.block;
  if (old) sheet.getRange(1, old.start + 1, Math.max(1, table.values.length), old.width).clearContent();
  for (const chart of sheet.getCharts())
    if (chart.getOptions().get('title') === CHART_TITLE) sheet.removeChart(chart);
  if (series.length < 2 || series[0].length < 2) return;
  const first = blockColumn(table, series[0].length) + 1;
  ensureRows(sheet, series.length);
  setCellBlocks(sheet, [{ row: 1, column: first, cells: toCells(series) }]);
  const chart = sheet
    .newChart()
    .setChartType(Charts.ChartType.COLUMN)
    .addRange(sheet.getRange(1, first, series.length, series[0].length))
    .setPosition(series.length + 3, first, 0, 0)
    .setOption('title', CHART_TITLE)
    .setOption('legend', { position: 'bottom' })
    .build();
  sheet.insertChart(chart);
}
