/**
 * The 台帳 sheet: one read of the whole table, writes batched per column, appends in one call.
 */

import {
  columnWrites,
  keyCellText,
  type LedgerRecord,
  type LedgerTable,
  parseLedger,
  type RowChange,
} from '../core/ledger';
import { repairChanges, rowsMoved } from '../core/ledger-repair';
import { SAFETY } from '../core/safety';
import { SHEET } from '../core/schema';
import { ledgerTextChecked, setCellBlocks, toCell } from './cells';
import { appendRecords, ensureSheet } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export function ledgerSheet(): Sheet {
  return ensureSheet(SHEET.ledger).sheet;
}

/** The whole 台帳 in one getValues. */
export function readLedger(sheet: Sheet = ledgerSheet()): LedgerTable {
  return parseLedger(sheet.getDataRange().getValues());
}

/** How many times a write is redone when people keep moving rows under it. */
const REPAIR_ROUNDS = 3;

function writeBlocks(table: LedgerTable, changes: readonly RowChange[], sheet: Sheet): void {
  const blocks = columnWrites(table, changes).map((w) => ({
    row: w.firstRow,
    column: w.column,
    cells: w.values.map((r) => r.map(toCell)),
  }));
  // Values read and written back: before 初期設定's repair, leave an earlier version's '@' cells be.
  setCellBlocks(sheet, blocks, ledgerTextChecked() !== null);
}

/** The キー column over the rows `table` was read from, as the sheet holds it now (one call). */
function keysNow(table: LedgerTable, sheet: Sheet): unknown[] {
  const col = table.columns.get('キー');
  const last = table.rows.length ? table.rows[table.rows.length - 1].rowNumber : 1;
  if (col === undefined || last < 2) return [];
  return sheet
    .getRange(2, col + 1, last - 1, 1)
    .getValues()
    .map((r) => keyCellText(r[0]));
}

/**
 * Writes changes column by column over the span of changed rows: calls do not grow with rows.
 * Then flushes and checks that no row moved under the write (a person sorting or inserting rows
 * while we hold the lock); if one did, rewrites every touched row by key (ledger-repair.ts).
 */
export function writeLedgerChanges(
  table: LedgerTable,
  changes: readonly RowChange[],
  sheet: Sheet = ledgerSheet(),
): void {
  if (changes.length === 0) return;
  writeBlocks(table, changes, sheet);
  if (!SAFETY.reorderCheck) return;
  SpreadsheetApp.flush();
  let current = table;
  for (let round = 0; rowsMoved(current, keysNow(current, sheet)); round++) {
    if (round === REPAIR_ROUNDS) {
      throw new Error(
        '書き込み中に台帳の行が何度も並べ替えられたため中断しました。並べ替えをやめてから、もう一度実行してください。',
      );
    }
    current = readLedger(sheet);
    writeBlocks(current, repairChanges(table, changes, current), sheet);
    SpreadsheetApp.flush();
  }
}

/** Appends records under their headers, in one write. */
export function appendLedgerRecords(records: readonly LedgerRecord[], sheet: Sheet = ledgerSheet()): void {
  appendRecords(sheet, records);
}
