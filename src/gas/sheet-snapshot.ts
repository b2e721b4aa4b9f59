/**
 * 設定, マスタ and 取込元 read once an execution (issue 18): preflight checks their header rows and the
 * run then reads them whole — one read serves both. Any write through the one writer (cells.ts) or a
 * clear (workbook.ts) forgets every snapshot, so nothing is read stale after kicho changed a sheet; a
 * person's edit during the run is seen by the next run, as with one read.
 */
import { columnLetter, missingHeaders } from '../core/headers';
import { SHEET, SHEET_SPECS } from '../core/schema';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const SMALL: ReadonlySet<string> = new Set([SHEET.settings, SHEET.masters, SHEET.sources]);
// Each execution is a fresh global scope: the snapshots live for one execution at most.
const snapshots = new Map<string, unknown[][]>();

/** Columns read beside a small sheet's own headers (a person's note column; its emptiness is checked). */
const SPARE_COLUMNS = 2;

export function isSnapshotSheet(name: string): boolean {
  return SMALL.has(name);
}

const blank = (v: unknown) => v === '' || v === null || v === undefined;

/**
 * The sheet as getDataRange().getValues() gives it, for what the readers use, in one call instead of two
 * (getDataRange asks for the sheet's extent first): an open-ended read of the first columns (every row,
 * so no row is missed), its trailing empty rows and columns cut. The readers find their columns by
 * header in row 1 (the first of a name wins), so when every header of the sheet is within those columns
 * and the last of them is empty, nothing further right can change what they read; otherwise (a person
 * moved a header out, filled the spare column, or the sheet has fewer columns) the data range is read.
 */
function readSmall(sheet: Sheet, name: string): unknown[][] {
  const headers = SHEET_SPECS.find((s) => s.name === name)?.headers ?? [];
  const width = headers.length + SPARE_COLUMNS;
  let grid: unknown[][] | null = null;
  try {
    grid = sheet.getRange(`A:${columnLetter(width - 1)}`).getValues();
  } catch (_e) {
    grid = null; // fewer columns than that: the data range is all there is
  }
  if (
    !grid ||
    grid.length === 0 ||
    missingHeaders(grid[0], headers).length > 0 ||
    grid.some((r) => !blank(r[width - 1]))
  )
    return sheet.getDataRange().getValues();
  let rows = grid.length;
  while (rows > 1 && grid[rows - 1].every(blank)) rows--;
  let cols = width;
  while (cols > 1 && grid.slice(0, rows).every((r) => blank(r[cols - 1]))) cols--;
  return grid.slice(0, rows).map((r) => r.slice(0, cols));
}

/** The sheet's data range as getValues returns it, read at most once until the next write. */
export function sheetValues(sheet: Sheet, name: string): unknown[][] {
  if (!SMALL.has(name)) return sheet.getDataRange().getValues();
  const known = snapshots.get(name);
  if (known) return known;
  const values = readSmall(sheet, name);
  snapshots.set(name, values);
  return values;
}

export function forgetSnapshots(): void {
  snapshots.clear();
}
