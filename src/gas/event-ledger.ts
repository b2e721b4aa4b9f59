/**
 * The 台帳 as the web app needs it (issue 17): the keys, their 状態 and the MF仕訳ID column — three
 * column reads, not the whole table, so a request stays short under the lock with 100,000 rows — and
 * an append whose keys are read back, so each event is answered by what the sheet holds.
 */
import { headerIndex } from '../core/headers';
import { keyCellText, type LedgerRecord } from '../core/ledger';
import { appendRows, readHeaderRow } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

export interface EventLedgerView {
  /** Column (0-based) of each header, as row 1 has them now. */
  index: Map<string, number>;
  /** key → 状態 of its first row. */
  states: Map<string, string>;
  /** Every MF仕訳ID on the 台帳 (events made from kicho's own journals are loops). */
  journalIds: Set<string>;
  rows: number;
}

function column(sheet: Sheet, col: number | undefined, last: number): unknown[] {
  if (col === undefined || last < 2) return [];
  return sheet
    .getRange(2, col + 1, last - 1, 1)
    .getValues()
    .map((r) => r[0]);
}

export function readEventView(sheet: Sheet): EventLedgerView {
  const index = headerIndex(readHeaderRow(sheet));
  const last = sheet.getLastRow();
  const keys = column(sheet, index.get('キー'), last);
  const states = column(sheet, index.get('状態'), last);
  const journals = column(sheet, index.get('MF仕訳ID'), last);
  const view: EventLedgerView = {
    index,
    states: new Map(),
    journalIds: new Set(),
    rows: Math.max(0, last - 1),
  };
  keys.forEach((k, i) => {
    const key = keyCellText(k);
    if (key !== '' && !view.states.has(key)) view.states.set(key, String(states[i] ?? ''));
  });
  for (const j of journals) if (String(j).trim() !== '') view.journalIds.add(String(j).trim());
  return view;
}

/**
 * Appends the records under the headers `view` read (no second header read: the lock is held), in one
 * write through the text writer, flushes, and returns the keys the new rows read back with.
 */
export function appendEventRows(
  records: readonly LedgerRecord[],
  sheet: Sheet,
  view: EventLedgerView,
): Set<string> {
  const back = new Set<string>();
  const keyCol = view.index.get('キー');
  if (records.length === 0 || keyCol === undefined) return back;
  const width = Math.max(...view.index.values()) + 1;
  const rows = records.map((record) => {
    const row: unknown[] = new Array(width).fill('');
    for (const [header, value] of Object.entries(record)) {
      const col = view.index.get(header);
      if (col !== undefined) row[col] = value;
    }
    return row;
  });
  const first = sheet.getLastRow() + 1;
  appendRows(sheet, rows);
  SpreadsheetApp.flush();
  for (const r of sheet.getRange(first, keyCol + 1, records.length, 1).getValues())
    back.add(keyCellText(r[0]));
  return back;
}
