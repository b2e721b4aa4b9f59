/** 取込元: one read; a new source is appended under the headers in one write. */
import { type CsvSource, sourcesFromRecords } from '../core/csv/sources';
import { headerIndex } from '../core/headers';
import { SHEET } from '../core/schema';
import { normalizeText } from '../core/text';
import { setCells, toCells } from './cells';
import { forgetSnapshots, sheetValues } from './sheet-snapshot';
import { appendHeaders, appendRecords, ensureSheet, readHeaderRow } from './workbook';

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
    {
      名前: source.name,
      勘定科目: source.勘定科目,
      補助科目: source.補助科目,
      取込形式: source.取込形式 ?? '',
    },
  ]);
}

/**
 * 「この形式を保存」: writes the layout into the source's 取込形式 cell (one read, one write; the header is
 * added first when 初期設定 has not run since the column was introduced). Returns the row written, or null
 * when the source is not on the sheet.
 */
export function saveSourceLayout(name: string, text: string): number | null {
  const sheet = ensureSheet(SHEET.sources).sheet;
  const values = sheetValues(sheet, SHEET.sources);
  let columns = headerIndex(values[0] ?? []);
  if (!columns.has('取込形式')) {
    appendHeaders(sheet, ['取込形式']);
    columns = headerIndex(readHeaderRow(sheet));
  }
  const nameCol = columns.get('名前');
  const col = columns.get('取込形式');
  if (nameCol === undefined || col === undefined) return null;
  const wanted = normalizeText(name);
  const at = values.slice(1).findIndex((r) => normalizeText(String(r[nameCol] ?? '')) === wanted);
  if (at < 0) return null;
  forgetSnapshots();
  setCells(sheet.getRange(at + 2, col + 1, 1, 1), toCells([[text]]));
  return at + 2;
}
