/**
 * 設定, マスタ and 取込元 read once an execution (issue 18): preflight checks their header rows and the
 * run then reads them whole — one read serves both. Any write through the one writer (cells.ts) or a
 * clear (workbook.ts) forgets every snapshot, so nothing is read stale after kicho changed a sheet; a
 * person's edit during the run is seen by the next run, as with one read.
 */
import { SHEET } from '../core/schema';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const SMALL: ReadonlySet<string> = new Set([SHEET.settings, SHEET.masters, SHEET.sources]);
// Each execution is a fresh global scope: the snapshots live for one execution at most.
const snapshots = new Map<string, unknown[][]>();

export function isSnapshotSheet(name: string): boolean {
  return SMALL.has(name);
}

/** The sheet's data range as getValues returns it, read at most once until the next write. */
export function sheetValues(sheet: Sheet, name: string): unknown[][] {
  if (!SMALL.has(name)) return sheet.getDataRange().getValues();
  const known = snapshots.get(name);
  if (known) return known;
  const values = sheet.getDataRange().getValues();
  snapshots.set(name, values);
  return values;
}

export function forgetSnapshots(): void {
  snapshots.clear();
}
