/**
 * The audit's record (core/duplicates/record.ts) on the hidden sheet 重複点検記録 (column A, read in one
 * call) and its stamp in script property KICHO_DUPLICATE_AUDIT. The cells are written and flushed before the
 * stamp: a run killed between the two leaves a stamp that does not match, and nothing is deleted until the
 * next audit — never a record that vouches for cells it does not have.
 */
import {
  type AuditRecord,
  DUPLICATE_RECORD_PROPERTY,
  DUPLICATE_RECORD_SHEET,
  formatRecord,
  parseRecord,
  parseStamp,
  type RecordProblem,
  type RecordView,
} from '../core/duplicates/record';
import { setCellBlocks, toCell } from './cells';
import { ensureRows } from './workbook';

/** The last audit's record, or why there is none (one property read, then one read of column A). */
export function readAuditRecord(): RecordView | RecordProblem {
  const stamp = parseStamp(PropertiesService.getScriptProperties().getProperty(DUPLICATE_RECORD_PROPERTY));
  if (!stamp) return 'none';
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(DUPLICATE_RECORD_SHEET);
  const last = sheet ? sheet.getLastRow() : 0;
  const cells =
    sheet && last > 0
      ? sheet
          .getRange(1, 1, last, 1)
          .getValues()
          .map((r) => r[0])
      : null;
  const parsed = parseRecord(cells, stamp);
  return 'view' in parsed ? parsed.view : parsed.problem;
}

/** Writes the record (one write, cells beyond it cleared in the same write), flushes, then the stamp. */
export function writeAuditRecord(record: AuditRecord): void {
  const { cells, stamp } = formatRecord(record);
  const book = SpreadsheetApp.getActiveSpreadsheet();
  let sheet = book.getSheetByName(DUPLICATE_RECORD_SHEET);
  if (!sheet) {
    sheet = book.insertSheet(DUPLICATE_RECORD_SHEET, book.getSheets().length);
    sheet.hideSheet();
  }
  const values: unknown[] = [...cells];
  while (values.length < sheet.getLastRow()) values.push('');
  ensureRows(sheet, values.length);
  setCellBlocks(sheet, [{ row: 1, column: 1, cells: values.map((c) => [toCell(c)]) }]);
  SpreadsheetApp.flush();
  PropertiesService.getScriptProperties().setProperty(DUPLICATE_RECORD_PROPERTY, JSON.stringify(stamp));
}
