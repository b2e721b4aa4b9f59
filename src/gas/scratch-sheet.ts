/**
 * A temporary hidden sheet for checks that must write real cells (本番前チェック, 初期設定's probe):
 * created at the end, hidden, and deleted afterwards — also when the check throws.
 */
import { recordTextObservation, type TextObservation } from './cells';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export const SCRATCH_PREFIX = 'kicho一時 ';

export function createScratchSheet(): Sheet {
  const book = SpreadsheetApp.getActiveSpreadsheet();
  const name = `${SCRATCH_PREFIX}${Utilities.getUuid().slice(0, 8)}`;
  const sheet = book.insertSheet(name, book.getSheets().length);
  sheet.hideSheet();
  return sheet;
}

export function deleteScratchSheet(sheet: Sheet): void {
  SpreadsheetApp.getActiveSpreadsheet().deleteSheet(sheet);
}

export function withScratchSheet<T>(fn: (sheet: Sheet) => T): T {
  const sheet = createScratchSheet();
  try {
    return fn(sheet);
  } finally {
    deleteScratchSheet(sheet);
  }
}

/**
 * What this Sheets does with text in '@' cells — the two undocumented questions — asked on `sheet`
 * (row `row`, columns 1–2): an apostrophe written into an '@' cell, and `=1+1` written into one.
 */
export function probePlainText(sheet: Sheet, row = 1): TextObservation {
  const range = sheet.getRange(row, 1, 1, 2);
  range.setNumberFormat('@');
  // Written as they are on purpose: this is the question, not kicho's way of writing text.
  range.setValues([["'kicho", '=1+1']]);
  SpreadsheetApp.flush();
  const [quoted, formula] = range.getValues()[0];
  const formulas = range.getFormulas()[0];
  return {
    apostrophe: quoted === "'kicho" ? 'kept' : quoted === 'kicho' ? 'stripped' : 'other',
    formulas: formulas[1] !== '' || formula === 2 ? 'formula' : formula === '=1+1' ? 'text' : 'other',
    at: new Date().toISOString(),
  };
}

/** Probes on a scratch sheet and stores what it saw for the writer (cells.ts). */
export function observePlainText(): TextObservation {
  const seen = withScratchSheet((sheet) => probePlainText(sheet));
  recordTextObservation(seen);
  return seen;
}
