/**
 * The 台帳 sheet: one read of the whole table, writes batched per column, appends in one call.
 */

import { headerIndex } from '../core/headers';
import { keyProblem } from '../core/key-check';
import { csvKey, mfKey as mfKeyOf } from '../core/keys';
import {
  type ColumnWrite,
  cellText,
  columnWrites,
  indexByKey,
  keyCellText,
  type LedgerRecord,
  type LedgerTable,
  type PeopleWrite,
  parseLedger,
  peopleEdited,
  peopleWrites,
  type RowChange,
  setField,
  splitByOwner,
} from '../core/ledger';
import { isDebris, occurrenceKeys, rowsMoved, WriteRepair, withPatchedKeys } from '../core/ledger-repair';
import { describeShapeProblems } from '../core/ledger-shape';
import { SAFETY } from '../core/safety';
import { LEDGER_HEADERS, type LedgerHeader, PEOPLE_COLUMNS, SHEET } from '../core/schema';
import {
  type CellBlock,
  type FormatCache,
  ledgerTextChecked,
  setCellBlocks,
  toCell,
  unlikeWritten,
} from './cells';
import { appendRecords, readHeaderRow } from './workbook';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * The 台帳, never created here: a missing 台帳 is a person's deletion or rename, and a new empty one
 * would hide it (runs stop in preflight before they get here; 初期設定 is the one that creates it).
 */
export function ledgerSheet(): Sheet {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(SHEET.ledger);
  if (!sheet)
    throw new Error(
      describeShapeProblems([{ kind: 'missing-sheet', sheet: SHEET.ledger, lookalikes: [] }]).join(' '),
    );
  return sheet;
}

/** The whole 台帳 in one getValues. */
export function readLedger(sheet: Sheet = ledgerSheet()): LedgerTable {
  return parseLedger(sheet.getDataRange().getValues());
}

/** How many times a write is redone when people keep moving rows under it. */
const REPAIR_ROUNDS = 3;

function writeBlocks(writes: readonly ColumnWrite[], sheet: Sheet, formats?: FormatCache): void {
  const blocks = writes.map((w) => ({
    row: w.firstRow,
    column: w.column,
    cells: w.values.map((r) => r.map(toCell)),
  }));
  // Values read and written back: before 初期設定's repair, leave an earlier version's '@' cells be.
  setCellBlocks(sheet, blocks, ledgerTextChecked() !== null, [], formats);
}

/** The columns (1-based) the blocks cover, or null for none. */
function blockColumns(blocks: readonly CellBlock[]): { left: number; right: number } | null {
  if (blocks.length === 0) return null;
  return {
    left: Math.min(...blocks.map((b) => b.column)),
    right: Math.max(...blocks.map((b) => b.column + b.cells[0].length - 1)),
  };
}

/** People-owned cells through the same writer: runs as blocks, scattered rows as one range list each. */
function writePeople(writes: readonly PeopleWrite[], sheet: Sheet): void {
  const blocks = writes.flatMap((w) =>
    w.kind === 'run' ? [{ row: w.firstRow, column: w.column, cells: w.values.map((v) => [toCell(v)]) }] : [],
  );
  const lists = writes.flatMap((w) =>
    w.kind === 'list' ? [{ column: w.column, rows: w.rows, value: toCell(w.value) }] : [],
  );
  setCellBlocks(sheet, blocks, ledgerTextChecked() !== null, lists);
}

/**
 * The キー column as the sheet holds it now (one call), over the rows a write touched (`span`) or, without
 * one, every row `table` was read from: a block write covers its span and nothing else, so rows that
 * moved outside it cannot have received our cells. Returned from row 2 (cells above the span empty).
 */
function keysNow(
  table: LedgerTable,
  sheet: Sheet,
  span?: { first: number; last: number },
  also?: ReadBack,
): unknown[] {
  const col = table.columns.get('キー');
  const lastRead = table.rows.length ? table.rows[table.rows.length - 1].rowNumber : 1;
  const first = span ? span.first : 2;
  const last = span ? span.last : lastRead;
  if (col === undefined || last < 2 || last < first) return [];
  // Wider when blocks written on reused formats are to be checked too: the same call reads them.
  const cols = also?.columns;
  const left = Math.min(col + 1, cols?.left ?? col + 1);
  const right = Math.max(col + 1, cols?.right ?? col + 1);
  const grid = sheet.getRange(first, left, last - first + 1, right - left + 1).getValues();
  if (also) also.seen = { grid, row: first, column: left };
  const keys = grid.map((r) => keyCellText(r[col + 1 - left]));
  return [...new Array<unknown>(first - 2).fill(undefined), ...keys];
}

/** A read-back that also covers written columns, and what it saw (for the check of reused formats). */
interface ReadBack {
  columns: { left: number; right: number } | null;
  seen?: { grid: unknown[][]; row: number; column: number };
}

/** The rows a write of `changes` covers, and `table` cut to them (for the read-back). */
function written(
  table: LedgerTable,
  changes: readonly RowChange[],
): LedgerTable & { span: { first: number; last: number } } {
  const numbers = changes.map((c) => c.rowNumber);
  const span = { first: Math.min(...numbers), last: Math.max(...numbers) };
  return {
    ...table,
    rows: table.rows.filter((r) => r.rowNumber >= span.first && r.rowNumber <= span.last),
    span,
  };
}

/** What a write did: changes held back because a person edited the row's own cells meanwhile. */
export interface LedgerWrite {
  withheld: RowChange[];
}

export interface WriteOptions {
  /**
   * Hold back the change of any row whose people-owned cells changed since the read, even a change of
   * system cells only (the claim: a row must not be sent on what a person has just corrected). Without
   * it only changes that write people-owned cells are checked (an outcome is always recorded).
   */
  yieldRows?: boolean | ((change: RowChange) => boolean);
  /**
   * The 台帳's number formats as an earlier write of this execution read them (the posting loop's lock
   * sections): system cells are written on them without a read, and checked in the read-back.
   */
  formats?: FormatCache;
}

/**
 * Writes changes column by column over the span of changed rows: calls do not grow with rows.
 *
 * People-owned cells (勘定科目 … 操作) are written last and only where a change means them, after the
 * cells are read once more: a row whose people-owned cells changed since `table` was read (a person
 * typed while the run worked) keeps what the person typed, and its whole change is held back — its
 * system cells written a moment before are put back as read — so the next run decides on the person's
 * input (DESIGN §4: a human decision is never overwritten). Sheets has no conditional write: what is
 * left is the one call between that read and the write.
 *
 * Then reads the キー column back (the read applies our writes) and checks that no row moved under
 * the write (a person sorting or inserting rows while we hold the lock); if one did, rewrites every
 * touched row by key (ledger-repair.ts).
 */
export function writeLedgerChanges(
  table: LedgerTable,
  changes: readonly RowChange[],
  sheet: Sheet = ledgerSheet(),
  options: WriteOptions = {},
): LedgerWrite {
  if (changes.length === 0) return { withheld: [] };
  const formats = options.formats;
  if (formats) formats.reused = [];
  const first = columnWrites(table, changes);
  writeBlocks(first, sheet, formats);
  // Every block that goes out by position, for the repair should rows move under it.
  const sent: [LedgerTable, ColumnWrite[]][] = [[table, first]];
  let repair: WriteRepair | null = null;
  const repairOf = (applied: readonly RowChange[]): WriteRepair => {
    if (!repair) {
      repair = new WriteRepair(table, applied);
      for (const [t, w] of sent) repair.wrote(t, w);
    }
    return repair;
  };
  /** Puts `now` (the whole 台帳, read after rows moved) right: system cells, then people's if asked. */
  const repairOn = (now: LedgerTable, applied: readonly RowChange[], people: boolean): void => {
    const r = repairOf(applied);
    const fixes = r.repairs(now, new Date().toISOString());
    const writes = columnWrites(now, fixes);
    r.wrote(now, writes);
    writeBlocks(writes, sheet);
    if (people) writePeople(peopleWrites(now, splitByOwner(fixes).people), sheet);
  };
  const back: ReadBack = { columns: blockColumns(formats?.reused ?? []) };
  const peopleRows = new Set(splitByOwner(changes).people.map((c) => c.rowNumber));
  const yields = options.yieldRows;
  const checked = changes.filter(
    (c) => peopleRows.has(c.rowNumber) || (typeof yields === 'function' ? yields(c) : !!yields),
  );
  let applied: readonly RowChange[] = changes;
  let withheld: RowChange[] = [];
  // The re-read of people's cells came after every write and found each row holding its key.
  let verified = false;
  if (!SAFETY.yieldToPeople) writePeople(peopleWrites(table, changes), sheet);
  else if (checked.length > 0) {
    // One read, as late as possible (it also applies our pending writes): the keys where we write, to
    // see whether rows moved under us, and the people-owned cells of those rows.
    const fresh = readKeysAndPeople(table, changes, sheet, back);
    const moved = fresh === null;
    const view = fresh ?? readLedger(sheet);
    const viewRow = rowMap(table, changes, view, moved);
    const recordAt = new Map(view.rows.map((r) => [r.rowNumber, r.record]));
    const readAt = new Map(table.rows.map((r) => [r.rowNumber, r.record]));
    const edited = new Set<number>();
    for (const c of checked) {
      const now = recordAt.get(viewRow.get(c.rowNumber) ?? -1);
      const then = readAt.get(c.rowNumber);
      if (now && then && peopleEdited(then, now)) edited.add(c.rowNumber);
    }
    withheld = changes.filter((c) => edited.has(c.rowNumber));
    applied = changes.filter((c) => !edited.has(c.rowNumber));
    const toView = (cs: readonly RowChange[]) =>
      cs.flatMap((c) => {
        const row = viewRow.get(c.rowNumber);
        return row === undefined ? [] : [{ ...c, rowNumber: row }];
      });
    const people = peopleWrites(view, toView(applied));
    writePeople(people, sheet);
    verified = !moved && people.length === 0 && withheld.length === 0;
    // Rows moved: the repair puts every row right by key, a held-back row as it was read.
    if (withheld.length > 0 && !moved) {
      // Their system cells went out first: put back what was read (we hold the lock, so only a person
      // could have changed them since, and those are system-owned).
      const restore = withheld.map((c) => {
        const then = readAt.get(c.rowNumber) as LedgerRecord;
        const patch: Partial<LedgerRecord> = {};
        for (const h of Object.keys(c.patch) as LedgerHeader[])
          if (!PEOPLE_COLUMNS.has(h)) setField(patch, h, then[h]);
        return { ...c, patch };
      });
      const restored = columnWrites(view, toView(restore));
      writeBlocks(restored, sheet, formats);
      sent.push([view, restored]);
    }
    if (moved) {
      formats?.forget();
      repairOn(view, applied, false);
    }
  }
  if (!SAFETY.reorderCheck) {
    if (formats) checkReused(sheet, formats, back);
    return { withheld };
  }
  back.columns = blockColumns(formats?.reused ?? []);
  // No flush first: the read-back itself applies our pending writes before it reads (gas-platform.md
  // §2.2, "a later read that forces them"), and the lock's release flushes (one flush per section).
  let current = withPatchedKeys(table, applied);
  let repaired = false;
  // The first check reads back only the span written (at 200,000 rows the whole column is 0.2 M cells).
  const firstCheck = written(current, changes);
  // When the re-read of people's cells was the last call after our writes, it was the read-back.
  const moved = (round: number) =>
    round === 0
      ? !verified && rowsMoved(firstCheck, keysNow(firstCheck, sheet, firstCheck.span, back))
      : rowsMoved(current, keysNow(current, sheet));
  for (let round = 0; moved(round); round++) {
    if (round === REPAIR_ROUNDS) {
      throw new Error(
        '書き込み中に台帳の行が何度も並べ替えられたため中断しました。並べ替えをやめてから、もう一度実行してください。',
      );
    }
    formats?.forget();
    current = readLedger(sheet);
    repairOn(current, applied, true);
    SpreadsheetApp.flush();
    repaired = true;
  }
  if (repaired) clearDebris(sheet);
  else if (formats) checkReused(sheet, formats, back);
  return { withheld };
}

export const TEXT_FORMAT_CHANGED =
  '台帳に書き込んだ値が、セルの表示形式「書式なしテキスト」のため正しく残らなかったので中断しました。台帳の表示形式を「自動」に戻してから、もう一度実行してください（送信中の行は照合で確かめます）。';

/**
 * The blocks written on reused formats (issue 18) as the read-back saw them: a cell a person formatted
 * '@' since the formats were read keeps the apostrophe in some Sheets (sim/gas README, `kept`), so quoted
 * text reads back unlike what was written. Those blocks are written again on fresh formats (the writer
 * turns the '@' cells back to automatic) and read back once more; no wrong value is left behind silently.
 */
function checkReused(sheet: Sheet, formats: FormatCache, back: ReadBack): void {
  const blocks = formats.reused;
  formats.reused = [];
  if (blocks.length === 0) return;
  const readBox = (bs: readonly CellBlock[]) => {
    const cols = blockColumns(bs) as { left: number; right: number };
    const row = Math.min(...bs.map((b) => b.row));
    const bottom = Math.max(...bs.map((b) => b.row + b.cells.length - 1));
    const grid = sheet.getRange(row, cols.left, bottom - row + 1, cols.right - cols.left + 1).getValues();
    return { grid, row, column: cols.left };
  };
  // A block the read-back did not cover counts as unlike: written again too (same values, harmless).
  const bad = back.seen ? unlikeWritten(blocks, back.seen.grid, back.seen) : blocks;
  if (bad.length === 0) return;
  formats.forget();
  setCellBlocks(sheet, bad, true);
  const after = readBox(bad);
  if (unlikeWritten(bad, after.grid, after).length > 0) throw new Error(TEXT_FORMAT_CHANGED);
}

/**
 * Rows deleted under a write leave what it wrote below the rows that moved up: cells of ours (状態,
 * 更新日時 …) on a row with no line in it. They are cleared, so no keyless "row" is left behind.
 */
function clearDebris(sheet: Sheet): void {
  const now = readLedger(sheet);
  // No key and none of a line's own fields: only a write could have put cells there (a block bridging
  // through 明細ID writes it back too, so its 明細ID may be set).
  const debris = now.rows.filter((r) => isDebris(r.record));
  if (debris.length === 0) return;
  // Every system cell of such a row: the block writes bridged some (初回検知 …) with what they read.
  const patch: Partial<LedgerRecord> = {};
  for (const h of LEDGER_HEADERS) if (!PEOPLE_COLUMNS.has(h)) patch[h] = '';
  writeBlocks(
    columnWrites(
      now,
      debris.map((r) => ({ key: '', rowNumber: r.rowNumber, patch })),
    ),
    sheet,
  );
  SpreadsheetApp.flush();
}

/**
 * Row number in `view` of each row of `before` a change touches: the same row when nothing moved,
 * else found by key (and occurrence, for a key on two rows) in the fresh read.
 */
function rowMap(
  before: LedgerTable,
  changes: readonly RowChange[],
  view: LedgerTable,
  moved: boolean,
): Map<number, number> {
  const out = new Map<number, number>();
  if (!moved) {
    for (const c of changes) out.set(c.rowNumber, c.rowNumber);
    return out;
  }
  const beforeKeys = occurrenceKeys(withPatchedKeys(before, changes));
  const rowOf = new Map<string, number>();
  for (const [row, k] of occurrenceKeys(view)) rowOf.set(k, row);
  for (const c of changes) {
    const row = rowOf.get(beforeKeys.get(c.rowNumber) as string);
    if (row !== undefined) out.set(c.rowNumber, row);
  }
  return out;
}

/**
 * `table` with the people-owned cells of the rows `changes` touch as the sheet holds them now — one
 * read of the rectangle spanning those rows and the キー and people-owned columns — or null when a row
 * there no longer holds the key it was read with (rows moved: the caller reads the whole 台帳).
 */
function readKeysAndPeople(
  table: LedgerTable,
  changes: readonly RowChange[],
  sheet: Sheet,
  back?: ReadBack,
): LedgerTable | null {
  const keyCol = table.columns.get('キー');
  const cols = [...PEOPLE_COLUMNS]
    .map((h) => [h, table.columns.get(h)] as const)
    .filter((e): e is readonly [string, number] => e[1] !== undefined);
  if (keyCol === undefined) return null;
  const touched = changes.map((c) => c.rowNumber);
  const first = Math.min(...touched);
  const last = Math.max(...touched);
  // Also the columns written on reused formats, when there are any: this read is their read-back.
  const written = back?.columns;
  const left = Math.min(keyCol, ...cols.map(([, c]) => c), ...(written ? [written.left - 1] : []));
  const right = Math.max(keyCol, ...cols.map(([, c]) => c), ...(written ? [written.right - 1] : []));
  const grid = sheet.getRange(first, left + 1, last - first + 1, right - left + 1).getValues();
  if (back) back.seen = { grid, row: first, column: left + 1 };
  const expected = withPatchedKeys(table, changes);
  for (const r of expected.rows) {
    if (r.rowNumber < first || r.rowNumber > last) continue;
    if (String(grid[r.rowNumber - first]?.[keyCol - left] ?? '') !== r.record.キー) return null;
  }
  const rows = table.rows.map((r) => {
    if (r.rowNumber < first || r.rowNumber > last) return r;
    const cells = grid[r.rowNumber - first] ?? [];
    const record = { ...r.record };
    for (const [h, c] of cols)
      setField(record, h as LedgerHeader, cellText(cells[c - left], h as LedgerHeader));
    return { rowNumber: r.rowNumber, record };
  });
  return { ...table, rows };
}

/**
 * Appends records under their headers in one write, then reads the キー column of the new rows back
 * (one call): the count returned is what the sheet holds, so a summary never counts rows that were not
 * written (DESIGN §9.7).
 */
export function appendLedgerRecords(records: readonly LedgerRecord[], sheet: Sheet = ledgerSheet()): number {
  if (records.length === 0) return 0;
  const keyCol = headerIndex(readHeaderRow(sheet)).get('キー');
  const first = sheet.getLastRow() + 1;
  appendRecords(sheet, records);
  if (keyCol === undefined) return 0;
  SpreadsheetApp.flush();
  const back = sheet.getRange(first, keyCol + 1, records.length, 1).getValues();
  const wanted = new Set(records.map((r) => r.キー));
  return back.filter((r) => wanted.has(String(r[0]))).length;
}

/** The key a row's own data gives it (an MF line by its 明細ID, a CSV line by its content), or null. */
function ownKey(record: LedgerRecord, taken: ReadonlyMap<string, unknown>): string | null {
  const id = record.明細ID.trim();
  if (id !== '') return mfKeyOf(id);
  const amount = Number(record.金額);
  if (!Number.isInteger(amount)) return null;
  for (let n = 1; n <= 1000; n++) {
    const k = csvKey(record.口座, record.取引日, amount, record.摘要, n);
    if (!taken.has(k)) return k;
  }
  return null;
}

/** Rounds of write-and-check for key restores (a person sorting all the while). */
const KEY_ROUNDS = 4;

/**
 * Gives rows their keys back (a person changed or cleared a キー; intake and reconcile prove which key
 * is right). The other fields of these changes are written first, by the key the row has now. The key
 * is the row's identity, which the move check relies on, so it is written by itself, a cell at a time
 * right after a fresh read, and checked after: a row that a sort moved under the write, and that now
 * holds a key not its own, gets its own key back (from its 明細ID or content). Rare: a few calls.
 * Returns how many of the keys are back on the rows they belong to.
 */
export function restoreKeys(
  table: LedgerTable,
  changes: readonly RowChange[],
  sheet: Sheet = ledgerSheet(),
): { restored: number; withheld: RowChange[] } {
  const rest: RowChange[] = changes.map((c) => {
    const { キー: _key, ...patch } = c.patch;
    return { ...c, patch };
  });
  const { withheld } = writeLedgerChanges(
    table,
    rest.filter((c) => Object.keys(c.patch).length > 0),
    sheet,
  );
  const held = new Set(withheld.map((c) => c.rowNumber));
  const wanted = changes
    .filter((c) => typeof c.patch.キー === 'string' && !held.has(c.rowNumber))
    .map((c) => ({ from: c.key, to: String(c.patch.キー) }));
  const col = table.columns.get('キー');
  if (wanted.length === 0 || col === undefined) return { restored: 0, withheld };
  const fits = (r: LedgerRecord) => keyProblem(r) === null;
  let restored = 0;
  for (let round = 0; round <= KEY_ROUNDS; round++) {
    const now = readLedger(sheet);
    const byKey = indexByKey(now.rows);
    const writes = new Map<number, string>();
    // A row a sort put under one of our writes holds a key that is not its own: give it its own.
    for (const w of wanted) {
      for (const row of byKey.get(w.to) ?? []) {
        if (fits(row.record)) continue;
        const own = ownKey(row.record, byKey);
        if (own) writes.set(row.rowNumber, own);
      }
    }
    restored = wanted.filter((w) => (byKey.get(w.to) ?? []).some((r) => fits(r.record))).length;
    for (const w of wanted) {
      if ((byKey.get(w.to) ?? []).some((r) => fits(r.record))) continue;
      const row = (byKey.get(w.from) ?? []).find((r) => !writes.has(r.rowNumber));
      if (row && fits({ ...row.record, キー: w.to })) writes.set(row.rowNumber, w.to);
    }
    if (writes.size === 0 || round === KEY_ROUNDS) break;
    // One cell each (a block over the span would write rows a sort may have moved), one writer.
    setCellBlocks(
      sheet,
      [...writes].map(([rowNumber, key]) => ({ row: rowNumber, column: col + 1, cells: [[toCell(key)]] })),
      ledgerTextChecked() !== null,
    );
    SpreadsheetApp.flush();
  }
  return { restored, withheld };
}
