/**
 * ルール and ルール候補 sheets for rule upkeep: one read and at most one write per sheet per pass.
 */
import { headerIndex } from '../core/headers';
import { RULE_CANDIDATE_HEADERS, SHEET } from '../core/schema';
import { type CellBlock, setCellBlocks, setCells, toCells } from './cells';
import { appendHeaders, ensureRows, ensureSheet, formatHeaderRow } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export function rulesSheet(): Sheet {
  return ensureSheet(SHEET.rules).sheet;
}

/** ルール候補, created with its headers when a book set up before it existed has none yet. */
export function candidatesSheet(): Sheet {
  const { sheet, created } = ensureSheet(SHEET.ruleCandidates);
  if (created) {
    appendHeaders(sheet, RULE_CANDIDATE_HEADERS);
    formatHeaderRow(sheet, RULE_CANDIDATE_HEADERS.length);
    formatCandidateSheet(sheet);
  }
  return sheet;
}

/** The whole sheet in one getValues (header row first). */
export function sheetValues(sheet: Sheet): unknown[][] {
  return sheet.getDataRange().getValues();
}

/**
 * Writes the 診断 column (rows 2 onwards) in one call. `header` is row 1 as read with the cells, so
 * the column is where it was when the diagnosis was computed. No 診断 header: nothing to write.
 */
export function writeDiagnosisColumn(
  sheet: Sheet,
  header: readonly unknown[],
  cells: readonly string[],
): void {
  const col = headerIndex(header).get('診断');
  if (col === undefined || cells.length === 0) return;
  setCells(sheet.getRange(2, col + 1, cells.length, 1), toCells(cells.map((c) => [c])));
}

/**
 * Rewrites our columns of the ルール候補 data rows 2..n+1: one write per run of adjacent columns of
 * ours (one, unless people inserted a column between them). Columns people added are never written,
 * so their formulas and dates stay as they are.
 */
export function writeCandidateRows(
  sheet: Sheet,
  columns: ReadonlyMap<string, number>,
  rows: readonly unknown[][],
): void {
  if (rows.length === 0) return;
  const ours = RULE_CANDIDATE_HEADERS.map((h) => columns.get(h))
    .filter((c): c is number => c !== undefined)
    .sort((x, y) => x - y);
  ensureRows(sheet, rows.length + 1);
  const blocks: CellBlock[] = [];
  let start = 0;
  for (let i = 1; i <= ours.length; i++) {
    if (i < ours.length && ours[i] === ours[i - 1] + 1) continue;
    const from = ours[start];
    const to = ours[i - 1];
    const block = rows.map((r) => Array.from({ length: to - from + 1 }, (_, k) => r[from + k] ?? ''));
    blocks.push({ row: 2, column: from + 1, cells: toCells(block) });
    start = i;
  }
  setCellBlocks(sheet, blocks);
}

/** 採用 as checkboxes down the sheet (idempotent; setup runs it again after people move columns). */
export function formatCandidateSheet(sheet: Sheet): void {
  const width = sheet.getLastColumn();
  if (width === 0) return;
  const col = headerIndex(sheet.getRange(1, 1, 1, width).getValues()[0]).get('採用');
  if (col === undefined) return;
  const rows = sheet.getMaxRows() - 1;
  if (rows < 1) return;
  const checkbox = SpreadsheetApp.newDataValidation()
    .requireCheckbox()
    .setHelpText('チェックを入れると、次の「判定する」または定期実行でルールに追加します。')
    .build();
  sheet.getRange(2, col + 1, rows, 1).setDataValidation(checkbox);
}
