/**
 * The 残高照合 sheet: the table under its headers (one read, one clear and one write), and beside it the
 * differences by month as a block and a column chart drawn from that block (the previous chart replaced).
 */
import { type BalanceRecord, parseBalanceSheet } from '../core/balances';
import { headerIndex, missingHeaders } from '../core/headers';
import { BALANCE_HEADERS, SHEET } from '../core/schema';
import { setCells, toCells } from './cells';
import { appendHeaders, ensureRows, ensureSheet, formatHeaderRow, readHeaderRow } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export function balanceSheet(): Sheet {
  const { sheet, created } = ensureSheet(SHEET.balances);
  const missing = missingHeaders(readHeaderRow(sheet), BALANCE_HEADERS);
  appendHeaders(sheet, missing);
  if (created) formatHeaderRow(sheet, BALANCE_HEADERS.length);
  return sheet;
}

export function readBalanceRecords(sheet: Sheet = balanceSheet()): BalanceRecord[] {
  return parseBalanceSheet(sheet.getDataRange().getValues());
}

/** The table's width: its headers, not the chart block to the right. */
function tableWidth(header: readonly unknown[]): number {
  const index = headerIndex(header);
  return Math.max(0, ...BALANCE_HEADERS.map((h) => index.get(h) ?? -1)) + 1;
}

/**
 * Rewrites the table (and, when `series` is given, the chart block and its chart). Everything below the
 * header is the system's except 通帳残高, which the records carry as read.
 */
export function writeBalanceSheet(records: readonly BalanceRecord[], series?: (string | number)[][]): void {
  const sheet = balanceSheet();
  const header = readHeaderRow(sheet);
  const index = headerIndex(header);
  const width = tableWidth(header);
  const last = sheet.getLastRow();
  const lastColumn = sheet.getLastColumn();
  if (last > 1 && width > 0) sheet.getRange(2, 1, last - 1, width).clearContent();
  const rows = records.map((r) => {
    const row: unknown[] = new Array(width).fill('');
    for (const h of BALANCE_HEADERS) {
      const c = index.get(h);
      if (c !== undefined) row[c] = r[h];
    }
    return row;
  });
  if (rows.length > 0) {
    ensureRows(sheet, rows.length + 1);
    setCells(sheet.getRange(2, 1, rows.length, width), toCells(rows));
  }
  for (const h of ['MFの残高', '明細の残高', '通帳残高', '差額']) {
    const c = index.get(h);
    if (c !== undefined)
      sheet.getRange(2, c + 1, Math.max(1, sheet.getMaxRows() - 1), 1).setNumberFormat('#,##0');
  }
  if (!series) return;
  // The block starts one empty column after the table; what a previous run left there is cleared first.
  const first = width + 2;
  if (lastColumn >= first)
    sheet.getRange(1, first, Math.max(1, sheet.getLastRow()), lastColumn - first + 1).clearContent();
  for (const chart of sheet.getCharts()) sheet.removeChart(chart);
  if (series.length < 2 || series[0].length < 2) return;
  ensureRows(sheet, series.length);
  setCells(sheet.getRange(1, first, series.length, series[0].length), toCells(series));
  const chart = sheet
    .newChart()
    .setChartType(Charts.ChartType.COLUMN)
    .addRange(sheet.getRange(1, first, series.length, series[0].length))
    .setPosition(series.length + 3, first, 0, 0)
    .setOption('title', '月末の差額（MFの残高 − 明細の残高）')
    .setOption('legend', { position: 'bottom' })
    .build();
  sheet.insertChart(chart);
}
