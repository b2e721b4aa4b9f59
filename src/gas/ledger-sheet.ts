/**
 * The 台帳 sheet: one read of the whole table, writes batched per column, appends in one call.
 */

import {
  columnWrites,
  type LedgerRecord,
  type LedgerTable,
  parseLedger,
  type RowChange,
} from '../core/ledger';
import { SHEET } from '../core/schema';
import { toCell } from './cells';
import { appendRecords, ensureSheet } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export function ledgerSheet(): Sheet {
  return ensureSheet(SHEET.ledger).sheet;
}

/** The whole 台帳 in one getValues. */
export function readLedger(sheet: Sheet = ledgerSheet()): LedgerTable {
  return parseLedger(sheet.getDataRange().getValues());
}

/** Writes changes column by column over the span of changed rows: calls do not grow with rows. */
export function writeLedgerChanges(
  table: LedgerTable,
  changes: readonly RowChange[],
  sheet: Sheet = ledgerSheet(),
): void {
  if (changes.length === 0) return;
  for (const w of columnWrites(table, changes)) {
    sheet
      .getRange(w.firstRow, w.column, w.values.length, w.values[0].length)
      .setValues(w.values.map((r) => r.map(toCell)));
  }
}

/** Appends records under their headers, in one write. */
export function appendLedgerRecords(records: readonly LedgerRecord[], sheet: Sheet = ledgerSheet()): void {
  appendRecords(sheet, records);
}
