/** 設定, ルール and マスタ sheets: one read each. */
import { columnLetter, headerIndex } from '../core/headers';
import { type Masters, mastersFromRecords, mastersToRows } from '../core/masters';
import { MASTER_HEADERS, SHEET } from '../core/schema';
import {
  parseSettings,
  type SettingProblem,
  type SettingRow,
  type Settings,
  settingsSheetProblems,
} from '../core/settings';
import { setCells, toCell } from './cells';
import { sheetValues } from './sheet-snapshot';
import { appendRecords, ensureSheet, replaceDataRows } from './workbook';

/** The whole sheet in one read; a missing sheet reads as empty (preflight stops the runs that need it). */
function allValues(name: string): unknown[][] {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(name);
  return sheet ? sheetValues(sheet, name) : [];
}

/** 設定 parsed, with every problem of its values and of the sheet itself (repeated, unknown, missing items). */
export function readSettings(): { settings: Settings; problems: SettingProblem[] } {
  const { rows, itemColumn, valueColumn } = readSettingRows();
  const parsed = parseSettings(rows, columnLetter(valueColumn));
  return {
    settings: parsed.settings,
    problems: [...settingsSheetProblems(rows, columnLetter(itemColumn)), ...parsed.problems],
  };
}

export function readRuleValues(): unknown[][] {
  return allValues(SHEET.rules);
}

/** The sheet 取引先インボイス (issue 27); none when the sheet is missing (it is optional). */
export function readInvoicePartnerValues(): unknown[][] {
  return allValues(SHEET.invoicePartners);
}

export function readMasters(): Masters {
  const values = allValues(SHEET.masters);
  const columns = headerIndex(values[0] ?? []);
  const records = values.slice(1).map((row) => {
    const record: Record<string, unknown> = {};
    for (const [h, i] of columns) record[h] = row[i];
    return record;
  });
  return mastersFromRecords(records);
}

/** Replaces the マスタ data rows (the sheet is system-owned). */
export function writeMasters(masters: Masters): void {
  const rows = mastersToRows(masters);
  replaceDataRows(
    SHEET.masters,
    rows.map((row) => Object.fromEntries(MASTER_HEADERS.map((h, i) => [h, row[i]]))),
  );
}

/** The 設定 rows as read (item, value, row number) and the column of 値, for the editor dialog. */
export function readSettingRows(): { rows: SettingRow[]; itemColumn: number; valueColumn: number } {
  const values = allValues(SHEET.settings);
  const columns = headerIndex(values[0] ?? []);
  const itemColumn = columns.get('項目') ?? 0;
  const valueColumn = columns.get('値') ?? 1;
  const rows: SettingRow[] = values.slice(1).map((r, i) => ({
    item: String(r[itemColumn] ?? ''),
    value: r[valueColumn] ?? '',
    rowNumber: i + 2,
  }));
  return { rows, itemColumn, valueColumn };
}

/** Writes one 設定 value (the row of its 項目, or a new row): for a value kicho itself adjusts. */
export function writeSetting(item: string, value: string): void {
  const { rows, valueColumn } = readSettingRows();
  const { sheet } = ensureSheet(SHEET.settings);
  const row = rows.find((r) => r.item.trim() === item);
  if (row) setCells(sheet.getRange(row.rowNumber, valueColumn + 1), [[toCell(value)]]);
  else appendRecords(sheet, [{ 項目: item, 値: value }]);
}
