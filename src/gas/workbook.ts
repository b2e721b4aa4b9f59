import { headerIndex, missingHeaders } from '../core/headers';
import { SHEET_SPECS } from '../core/schema';
import { setCells, toCells } from './cells';
import { forgetSnapshots } from './sheet-snapshot';

/**
 * Thin adapter over SpreadsheetApp for whole-sheet work. One read or one write per call:
 * callers batch, this module never loops over rows with service calls.
 */
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export function activeBook(): GoogleAppsScript.Spreadsheet.Spreadsheet {
  return SpreadsheetApp.getActiveSpreadsheet();
}

/** A sheet's whole values (one read), or null when there is no such sheet; never creates it. */
export function readSheetValues(name: string): unknown[][] | null {
  const sheet = activeBook().getSheetByName(name);
  return sheet ? sheet.getDataRange().getValues() : null;
}

/** Applies every pending sheet write now (Apps Script otherwise batches them until the execution ends). */
export function flush(): void {
  SpreadsheetApp.flush();
}

/** A builder for one conditional-format rule (the caller says what it matches and how it looks). */
export function newConditionalFormatRule(): GoogleAppsScript.Spreadsheet.ConditionalFormatRuleBuilder {
  return SpreadsheetApp.newConditionalFormatRule();
}

/** A builder for one data-validation rule. */
export function newDataValidation(): GoogleAppsScript.Spreadsheet.DataValidationBuilder {
  return SpreadsheetApp.newDataValidation();
}

/** The kind of protection that covers a range (not a whole sheet). */
export function rangeProtectionType(): GoogleAppsScript.Spreadsheet.ProtectionType {
  return SpreadsheetApp.ProtectionType.RANGE;
}

/** The column chart type, for a sheet's chart builder. */
export function columnChartType(): GoogleAppsScript.Charts.ChartType {
  return Charts.ChartType.COLUMN;
}

/** The builders src/ui's formatters take (src/ui imports only the core, so src/app hands these in). */
export const FORMAT_BUILDERS = { newConditionalFormatRule, newDataValidation, rangeProtectionType };

/** Returns the sheet, creating it (at the end) when missing. */
export function ensureSheet(name: string): { sheet: Sheet; created: boolean } {
  const book = activeBook();
  const existing = book.getSheetByName(name);
  if (existing) return { sheet: existing, created: false };
  return { sheet: book.insertSheet(name, book.getSheets().length), created: true };
}

/**
 * A sheet only kicho writes (マスタ, 要確認, ドライラン, ログ): created when missing, and its headers put
 * back when row 1 lost them — its rows are rewritten from the 台帳 or MF, so nothing of a person's is
 * at stake (the sheets people keep data in are checked by preflight instead).
 */
export function systemSheet(name: string, headers: readonly string[]): Sheet {
  return systemSheetAndHeader(name, headers).sheet;
}

/** systemSheet, with its header row as read when nothing had to be added (a writer needs no second read). */
export function systemSheetAndHeader(
  name: string,
  headers: readonly string[],
): { sheet: Sheet; header?: unknown[] } {
  const { sheet, created } = ensureSheet(name);
  const header = readHeaderRow(sheet);
  const missing = missingHeaders(header, headers);
  if (missing.length === 0) return { sheet, header };
  forgetSnapshots();
  if (header.every((h) => String(h).trim() === '')) {
    sheet.getRange(1, 1, 1, headers.length).setValues([headers.slice()]);
  } else {
    appendHeaders(sheet, missing);
  }
  if (created) formatHeaderRow(sheet, headers.length);
  return { sheet };
}

/** Row 1 as written, trimmed of trailing empty cells. */
export function readHeaderRow(sheet: Sheet): unknown[] {
  // One call for the whole row (not getLastColumn and a read), then the empty cells at its end cut.
  const row = sheet.getRange('1:1').getValues()[0] ?? [];
  let width = row.length;
  while (width > 0 && (row[width - 1] === '' || row[width - 1] === null)) width--;
  return row.slice(0, width);
}

/** Writes `headers` into row 1 right after the last used header cell, in one call. */
export function appendHeaders(sheet: Sheet, headers: readonly string[]): void {
  if (headers.length === 0) return;
  forgetSnapshots();
  const start = sheet.getLastColumn() + 1;
  sheet.getRange(1, start, 1, headers.length).setValues([headers.slice()]);
}

export function formatHeaderRow(sheet: Sheet, width: number): void {
  sheet.setFrozenRows(1);
  sheet.getRange(1, 1, 1, width).setFontWeight('bold');
}

/** Values under `header` (rows 2..last), or [] when the sheet or the header is empty. */
export function readColumn(sheet: Sheet, header: string): unknown[] {
  const col = headerIndex(readHeaderRow(sheet)).get(header);
  const last = sheet.getLastRow();
  if (col === undefined || last < 2) return [];
  return sheet
    .getRange(2, col + 1, last - 1, 1)
    .getValues()
    .map((r) => r[0]);
}

/** Rows with each record's values under its header (people may reorder columns). */
function rowsUnderHeaders(
  sheet: Sheet,
  records: ReadonlyArray<Record<string, unknown>>,
  header: readonly unknown[] = readHeaderRow(sheet),
): unknown[][] {
  const index = headerIndex(header);
  const width = Math.max(0, ...index.values()) + 1;
  return records.map((record) => {
    const row: unknown[] = new Array(width).fill('');
    for (const [header, value] of Object.entries(record)) {
      const col = index.get(header);
      if (col !== undefined) row[col] = value;
    }
    return row;
  });
}

/** Writing below the sheet's last row is an error in Sheets: make room first. */
export function ensureRows(sheet: Sheet, lastNeeded: number): void {
  const max = sheet.getMaxRows();
  if (lastNeeded > max) sheet.insertRowsAfter(max, lastNeeded - max);
}

/** Appends records below the last used row, under their headers: one header read, one write. */
export function appendRecords(sheet: Sheet, records: ReadonlyArray<Record<string, unknown>>): void {
  appendRows(sheet, rowsUnderHeaders(sheet, records));
}

/**
 * Inserts records right under the header (newest first), under their headers, and keeps at most
 * `keep` data rows by dropping the oldest at the bottom: an insert, a write and at most one delete.
 */
export function prependRecords(
  sheet: Sheet,
  records: ReadonlyArray<Record<string, unknown>>,
  keep: number,
  /** Row 1 as the caller just read it (else read here). */
  header?: readonly unknown[],
): void {
  const rows = rowsUnderHeaders(sheet, records, header ?? readHeaderRow(sheet));
  if (rows.length === 0) return;
  sheet.insertRowsBefore(2, rows.length);
  setCells(sheet.getRange(2, 1, rows.length, rows[0].length), toCells(rows));
  const last = sheet.getLastRow();
  if (last - 1 > keep) sheet.deleteRows(keep + 2, last - 1 - keep);
}

/** Appends rows below the last used row, in one write. */
export function appendRows(sheet: Sheet, rows: unknown[][]): void {
  if (rows.length === 0) return;
  const first = sheet.getLastRow() + 1;
  ensureRows(sheet, first + rows.length - 1);
  setCells(sheet.getRange(first, 1, rows.length, rows[0].length), toCells(rows));
}

/**
 * Replaces every data row of a system-owned sheet (マスタ, ドライラン, 要確認) with `records`,
 * under its headers: one clear and one write.
 */
export function replaceDataRows(name: string, records: ReadonlyArray<Record<string, unknown>>): void {
  const sheet = systemSheet(name, SHEET_SPECS.find((spec) => spec.name === name)?.headers ?? []);
  const width = sheet.getLastColumn();
  const last = sheet.getLastRow();
  forgetSnapshots();
  if (last > 1 && width > 0) sheet.getRange(2, 1, last - 1, width).clearContent();
  const rows = rowsUnderHeaders(sheet, records);
  if (rows.length === 0) return;
  ensureRows(sheet, rows.length + 1);
  setCells(sheet.getRange(2, 1, rows.length, rows[0].length), toCells(rows));
}
