/**
 * The archive's sheets (core/archive.ts): 台帳アーカイブ (the rows, under the 台帳's headers) and the
 * hidden アーカイブ索引 (the key index, one column read in one call), plus a mirror of the index's counts
 * in script property KICHO_ARCHIVE so the lost-ledger guard and the sent-rows mark read them without a
 * Sheets call. Writes go through cells.ts like every other writer.
 */
import {
  ARCHIVE_HEADERS,
  ARCHIVE_INDEX_SHEET,
  ARCHIVE_MSG,
  ARCHIVE_SHEET,
  ARCHIVED_AT,
  type ArchivedCounts,
  type ArchiveIndex,
  countsOf,
  deletionBlocks,
  emptyIndex,
  formatIndex,
  type IndexTrouble,
  indexTrouble,
  lostRows,
  parseCounts,
  parseIndex,
  unbackedReleasable,
} from '../core/archive';
import type { Deletion, MirrorMark } from '../core/archive-ports';
import { headerIndex } from '../core/headers';
import { tagDigits } from '../core/keys';
import { setCellBlocks, toCell } from './cells';
import { appendHeaders, ensureRows, readHeaderRow } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;
type Grid = unknown[][];

const COUNTS = 'KICHO_ARCHIVE';

/** The index's counts as last written (no Sheets call): zero when nothing was ever archived. */
export function archivedCounts(): ArchivedCounts {
  return parseCounts(PropertiesService.getScriptProperties().getProperty(COUNTS));
}

/** Archived rows, for the lost-ledger guard's count (台帳 rows + this). */
export function archivedRows(): number {
  return archivedCounts().rows;
}

function mirror(index: ArchiveIndex, mark: MirrorMark = {}): void {
  const flag = mark.pending ?? archivedCounts().pending === true;
  const counts = mark.counts ?? countsOf(index);
  const value = JSON.stringify({
    rows: counts.rows,
    mf: counts.mf,
    csv: counts.csv,
    ...(flag ? { pending: true } : {}),
  });
  const props = PropertiesService.getScriptProperties();
  if (props.getProperty(COUNTS) !== value) props.setProperty(COUNTS, value);
}

export interface IndexRead {
  index: ArchiveIndex;
  /** Unreadable cells (a person typed in the hidden sheet). */
  problems: number;
  /** Cells column A holds now (a shorter index clears the rest). */
  cells: number;
}

/** The whole index in one getValues (two more calls to find the sheet and its last row). */
export function readArchiveIndex(): IndexRead {
  const { read } = readIndexCells();
  return read;
}

/** Column A in one read (no getLastRow first: the sheet has few rows, and an empty one reads as none). */
function readIndexCells(): { read: IndexRead; sheet: boolean; raw: unknown[][] } {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(ARCHIVE_INDEX_SHEET);
  const none = { index: emptyIndex(), problems: 0, cells: 0 };
  if (!sheet) return { read: none, sheet: false, raw: [] };
  const column = sheet.getRange('A:A').getValues();
  let last = column.length;
  while (last > 0 && String(column[last - 1]?.[0] ?? '') === '') last -= 1;
  if (last === 0) return { read: none, sheet: true, raw: [] };
  const raw = column.slice(0, last);
  const { index, problems } = parseIndex(raw);
  return { read: { index, problems, cells: last }, sheet: true, raw };
}

export interface CheckedIndex extends IndexRead {
  /** Why the index cannot be trusted, or null (core indexTrouble; stopsLookups says whether it stops a lookup). */
  trouble: IndexTrouble | null;
}

/**
 * The index read once, with its health (issue 25): the same getValues as readArchiveIndex and a look for
 * 台帳アーカイブ by name; its last row and the counts mirror only when the index holds nothing. The sheets are searched for a
 * renamed archive only when it is missing and something says there was one (and, for no-archive, only
 * when `named`: a run that stops on it says where the sheet may be).
 */
export function readCheckedIndex(named = false): CheckedIndex {
  const { read, sheet, raw } = readIndexCells();
  const archive = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(ARCHIVE_SHEET);
  const trouble = indexTrouble({
    indexSheet: sheet,
    cells: raw,
    archiveSheet: archive !== null,
    archiveRows: () => (archive ? Math.max(0, archive.getLastRow() - 1) : 0),
    mirrorRows: () => archivedCounts().rows,
  });
  // Named only where the message is shown (a lookup goes on past no-archive: it need not search).
  if (trouble && (trouble.kind === 'lost' || (named && trouble.kind === 'no-archive')) && !archive) {
    const lookalike = archiveLookalike();
    if (lookalike) trouble.lookalike = lookalike;
  }
  return { ...read, trouble };
}

/** A sheet whose row 1 holds キー and アーカイブ日時 (a renamed 台帳アーカイブ), or null. */
function archiveLookalike(): string | null {
  for (const s of SpreadsheetApp.getActiveSpreadsheet().getSheets()) {
    const width = s.getLastColumn();
    if (s.getName() === ARCHIVE_SHEET || width === 0) continue;
    const header = s
      .getRange(1, 1, 1, width)
      .getValues()[0]
      .map((h) => String(h ?? '').trim());
    if (header.includes('キー') && header.includes(ARCHIVED_AT)) return s.getName();
  }
  return null;
}

/** The counts mirror set to nothing archived (初期設定, after a person confirmed the archive is gone). */
export function forgetArchive(): void {
  PropertiesService.getScriptProperties().setProperty(COUNTS, JSON.stringify({ rows: 0, mf: 0, csv: 0 }));
}

/**
 * The index into column A in one write (cells beyond the new length cleared in the same write),
 * flushed, then the counts mirrored: the mirror never counts an entry that is not on the sheet.
 */
export function writeArchiveIndex(index: ArchiveIndex, previousCells: number, mark: MirrorMark = {}): void {
  const book = SpreadsheetApp.getActiveSpreadsheet();
  let sheet = book.getSheetByName(ARCHIVE_INDEX_SHEET);
  if (!sheet) {
    sheet = book.insertSheet(ARCHIVE_INDEX_SHEET, book.getSheets().length);
    sheet.hideSheet();
  }
  const cells: unknown[] = formatIndex(index);
  while (cells.length < previousCells) cells.push('');
  ensureRows(sheet, cells.length);
  setCellBlocks(sheet, [{ row: 1, column: 1, cells: cells.map((c) => [toCell(c)]) }]);
  SpreadsheetApp.flush();
  mirror(index, mark);
}

/** The archive run's copies read back: the mirror counts them (the run is still unfinished). */
export function countArchivedCopies(index: ArchiveIndex): void {
  mirror(index);
}

/** The archive run finished: its index entries all have their rows (or left the index again). */
export function finishArchiveRun(index: ArchiveIndex): void {
  mirror(index, { pending: false });
}

/** Whether an archive run wrote index entries and has not finished (the mirror's pending mark). */
export function archiveRunUnfinished(): boolean {
  return archivedCounts().pending === true;
}

/**
 * The index for a lookup (imports, resent events): as read, or — while an archive run is unfinished —
 * without the releasable entries 台帳アーカイブ holds no row for (core unbackedReleasable), so a line whose
 * row was on a 台帳 that went missing in between comes back instead of staying hidden.
 */
export function readIndexForLookup(): { index: ArchiveIndex; trouble: IndexTrouble | null } {
  const { index, trouble } = readCheckedIndex();
  if (index.entries.size === 0 || !archiveRunUnfinished()) return { index, trouble };
  const held = new Set([...archivedKeys()].map(tagDigits));
  for (const hex of unbackedReleasable(index, held)) index.entries.delete(hex);
  return { index, trouble };
}

/** 台帳アーカイブ, created when missing, with the archive's headers and any header the 台帳 has beyond ours. */
export function archiveSheet(ledgerHeader: readonly unknown[], create: boolean): Sheet | null {
  const book = SpreadsheetApp.getActiveSpreadsheet();
  let sheet = book.getSheetByName(ARCHIVE_SHEET);
  if (!sheet) {
    if (!create) return null;
    sheet = book.insertSheet(ARCHIVE_SHEET, book.getSheets().length);
  }
  const wanted = [...ARCHIVE_HEADERS];
  for (const h of ledgerHeader) {
    const t = String(h ?? '').trim();
    if (t !== '' && !wanted.includes(t)) wanted.push(t);
  }
  const header = readHeaderRow(sheet).map((h) => String(h ?? '').trim());
  const missing = wanted.filter((h) => !header.includes(h));
  if (header.every((h) => h === '')) {
    setCellBlocks(sheet, [{ row: 1, column: 1, cells: [wanted.map((h) => toCell(h))] }]);
    sheet.setFrozenRows(1);
  } else if (missing.length > 0) {
    appendHeaders(sheet, missing);
  }
  return sheet;
}

/** Every cell of a sheet in one call (header row first). */
export function readGrid(sheet: Sheet): Grid {
  return sheet.getDataRange().getValues();
}

/** Header text → 0-based column, from a grid's first row. */
export function columnsOf(grid: Grid): Map<string, number> {
  return headerIndex(grid[0] ?? []);
}

/**
 * Appends rows (cells as read or built) below the last row in one write, flushes, and reads them back
 * in one call: what is returned is what the sheet holds.
 */
export function appendAndReadBack(sheet: Sheet, rows: Grid, width: number): { first: number; back: Grid } {
  const first = sheet.getLastRow() + 1;
  if (rows.length === 0) return { first, back: [] };
  ensureRows(sheet, first + rows.length - 1);
  const cells = rows.map((r) => Array.from({ length: width }, (_, i) => toCell(r[i])));
  setCellBlocks(sheet, [{ row: first, column: 1, cells }]);
  SpreadsheetApp.flush();
  return { first, back: sheet.getRange(first, 1, rows.length, width).getValues() };
}

/**
 * Deletes data rows of `before` (the grid read just now, header first; `rows` are 0-based indexes into
 * it) in blocks, bottom first — one call a block, never one a row — then reads the sheet again: a row
 * that should have stayed and is gone (a person sorted between two block deletions) is appended back.
 * Keyed rows are matched by key, others by their cells.
 */
export function deleteRowsChecked(
  sheet: Sheet,
  before: Grid,
  rows: ReadonlySet<number>,
  keyCol: number,
): Deletion {
  if (rows.size === 0) return { deleted: 0, putBack: 0, after: before };
  // Sheets refuses to delete every row below the frozen ones: keep one empty row under the data.
  if (rows.size >= before.length - 1 && sheet.getMaxRows() <= before.length)
    sheet.insertRowsAfter(sheet.getMaxRows(), 1);
  for (const b of deletionBlocks([...rows].map((i) => i + 1))) sheet.deleteRows(b.start, b.count);
  SpreadsheetApp.flush();
  let after = readGrid(sheet);
  const gone = new Set([...rows].map((g) => g - 1));
  const back = lostRows(before.slice(1), after.slice(1), gone, keyCol);
  if (back.length > 0) {
    appendAndReadBack(sheet, back, Math.max(...back.map((r) => r.length)));
    after = readGrid(sheet);
  }
  return { deleted: rows.size, putBack: back.length, after };
}

/** Header cells of a sheet (row 1). */
export function headerOf(sheet: Sheet): unknown[] {
  return readHeaderRow(sheet);
}

/**
 * Journal id (decoded, as core/duplicates compares them) → キー of the archived row naming it in MF仕訳ID,
 * from one read of 台帳アーカイブ. Throws when the index has rows but the sheet is gone: a caller about to
 * delete a journal must not take "no sheet" for "no holder".
 */
export function archivedJournalHolders(canonicalId: (id: string) => string): Map<string, string> {
  const out = new Map<string, string>();
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(ARCHIVE_SHEET);
  if (!sheet) throw new Error(ARCHIVE_MSG.noArchive);
  const grid = readGrid(sheet);
  const cols = columnsOf(grid);
  const key = cols.get('キー');
  const journal = cols.get('MF仕訳ID');
  if (key === undefined || journal === undefined) throw new Error(ARCHIVE_MSG.noArchive);
  for (const row of grid.slice(1)) {
    const id = String(row[journal] ?? '').trim();
    if (id !== '') out.set(canonicalId(id), String(row[key] ?? '').trim());
  }
  return out;
}

/**
 * The keys 台帳アーカイブ holds, from one read of its キー column (two small calls find it): for a caller
 * that must know a row is really there, not only indexed (a run killed between its index write and its
 * copy leaves index entries ahead of the sheet). Empty when there is no archive sheet.
 */
export function archivedKeys(): Set<string> {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(ARCHIVE_SHEET);
  const out = new Set<string>();
  if (!sheet) return out;
  const key = headerIndex(readHeaderRow(sheet)).get('キー');
  const last = sheet.getLastRow();
  if (key === undefined || last < 2) return out;
  for (const [v] of sheet.getRange(2, key + 1, last - 1, 1).getValues()) {
    const k = String(v ?? '').trim();
    if (k !== '') out.add(k);
  }
  return out;
}
