/**
 * The 重複点検 sheet: one read of the whole table, a rewrite in one clear and one write, and outcome
 * writes batched per column over the span of changed rows (calls do not grow with rows).
 */
import type { DuplicateChange, DuplicateSheetPort } from '../core/duplicates/deletion-ports';
import {
  DUPLICATE_OPERATIONS,
  DUPLICATE_PEOPLE_COLUMNS,
  type DuplicateRecord,
  type DuplicateTable,
  parseDuplicateSheet,
} from '../core/duplicates/sheet';
import { columnLetter, headerIndex, missingHeaders } from '../core/headers';
import { DUPLICATE_HEADERS, SHEET } from '../core/schema';
import { type CellBlock, type CellInput, setCellBlocks, toCell } from './cells';
import { appendHeaders, ensureSheet, formatHeaderRow, readHeaderRow, replaceDataRows } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Columns whose text must stay as written (ids, keys, outside text). */

export function duplicateSheet(): Sheet {
  const { sheet, created } = ensureSheet(SHEET.duplicates);
  const missing = missingHeaders(readHeaderRow(sheet), DUPLICATE_HEADERS);
  appendHeaders(sheet, missing);
  if (created || missing.length > 0) formatDuplicateSheet(sheet);
  return sheet;
}

export function readDuplicateTable(sheet: Sheet = duplicateSheet()): DuplicateTable {
  return parseDuplicateSheet(sheet.getDataRange().getValues());
}

/** Every data row replaced by `records`, under their headers: one clear, one write. */
export function replaceDuplicateRows(records: readonly DuplicateRecord[]): void {
  duplicateSheet();
  replaceDataRows(SHEET.duplicates, records);
}

/**
 * Writes `changes` column by column over the span of changed rows; unchanged cells in the span are written
 * back as read (all of them system columns: 操作 and メモ are never written here).
 */
export function writeDuplicateChanges(
  table: DuplicateTable,
  changes: readonly DuplicateChange[],
  sheet: Sheet = duplicateSheet(),
): void {
  if (changes.length === 0) return;
  const byRow = new Map<number, Partial<DuplicateRecord>>();
  for (const c of changes) byRow.set(c.rowNumber, { ...byRow.get(c.rowNumber), ...c.patch });
  const first = Math.min(...byRow.keys());
  const last = Math.max(...byRow.keys());
  const rows = new Map(table.rows.map((r) => [r.rowNumber, r.record]));
  const headers = new Set<string>();
  for (const patch of byRow.values()) for (const h of Object.keys(patch)) headers.add(h);
  const blocks: CellBlock[] = [];
  for (const h of headers) {
    if (DUPLICATE_PEOPLE_COLUMNS.has(h)) continue;
    const col = table.columns.get(h);
    if (col === undefined) continue;
    const cells: CellInput[][] = [];
    for (let n = first; n <= last; n++) {
      const patch = byRow.get(n) as Record<string, unknown> | undefined;
      const record = rows.get(n) as Record<string, unknown> | undefined;
      cells.push([toCell(patch && h in patch ? patch[h] : (record?.[h] ?? ''))]);
    }
    blocks.push({ row: first, column: col + 1, cells });
  }
  // The shared writer: quoted text only into automatic-format cells (DESIGN §9.4).
  setCellBlocks(sheet, blocks);
}

export function duplicateSheetPort(): DuplicateSheetPort {
  const sheet = duplicateSheet();
  return {
    read: () => readDuplicateTable(sheet),
    write: (table, changes) => writeDuplicateChanges(table, changes, sheet),
  };
}

/** The 操作 dropdown, plain-text columns, and colours for 提案 and 状態 (idempotent). */
export function formatDuplicateSheet(sheet: Sheet): void {
  const width = sheet.getLastColumn();
  if (width === 0) return;
  formatHeaderRow(sheet, width);
  const columns = headerIndex(sheet.getRange(1, 1, 1, width).getValues()[0]);
  const rows = Math.max(1, sheet.getMaxRows() - 1);
  const amount = columns.get('金額');
  if (amount !== undefined) sheet.getRange(2, amount + 1, rows, 1).setNumberFormat('#,##0');
  const op = columns.get('操作');
  if (op !== undefined) {
    const rule = SpreadsheetApp.newDataValidation()
      .requireValueInList([...DUPLICATE_OPERATIONS], true)
      .setAllowInvalid(false)
      .setHelpText('残す・削除 から選びます。削除はメニュー「重複を削除」で確認してから MF に送ります。')
      .build();
    sheet.getRange(2, op + 1, rows, 1).setDataValidation(rule);
  }
  const proposal = columns.get('提案');
  const state = columns.get('状態');
  const whole = sheet.getRange(2, 1, rows, width);
  const rules: GoogleAppsScript.Spreadsheet.ConditionalFormatRule[] = [];
  if (state !== undefined) {
    rules.push(
      SpreadsheetApp.newConditionalFormatRule()
        .whenFormulaSatisfied(`=$${columnLetter(state)}2="削除済み"`)
        .setBackground('#eeeeee')
        .setFontColor('#666666')
        .setRanges([whole])
        .build(),
    );
  }
  if (proposal !== undefined) {
    rules.push(
      SpreadsheetApp.newConditionalFormatRule()
        .whenFormulaSatisfied(`=$${columnLetter(proposal)}2="削除候補"`)
        .setBackground('#fce8e6')
        .setFontColor('#a50e0e')
        .setRanges([whole])
        .build(),
    );
  }
  // The sheet is ours: replacing its rules keeps exactly these however often this runs.
  sheet.setConditionalFormatRules(rules);
}
