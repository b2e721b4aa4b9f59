/** 取込元: one read; a new source is appended under the headers in one write. */
import { type CsvSource, sourcesFromRecords } from '../core/csv/sources';
import { headerIndex } from '../core/headers';
import { SHEET } from '../core/schema';
import { sheetValues } from './sheet-snapshot';
import { appendRecords, ensureSheet } from './workbook';

/** The sources listed; a missing sheet reads as none (preflight stops the runs that need it). */
export function readSources(): CsvSource[] {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(SHEET.sources);
  const values = sheet ? sheetValues(sheet, SHEET.sources) : [];
  const columns = headerIndex(values[0] ?? []);
  const records = values.slice(1).map((row) => {
    const record: Record<string, unknown> = {};
    for (const [h, i] of columns) record[h] = row[i];
    return record;
  });
  return sourcesFromRecords(records);
}

export function appendSource(source: CsvSource): void {
  appendRecords(ensureSheet(SHEET.sources).sheet, [
    { 名前: source.name, 勘定科目: source.勘定科目, 補助科目: source.補助科目 },
  ]);
}
