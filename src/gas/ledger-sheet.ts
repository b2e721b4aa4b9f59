/**
 * The 台帳 sheet: one read of the whole table, writes batched per column, appends in one call.
 */

import { headerIndex } from '../core/headers';
import {
  type ColumnWrite,
  columnWrites,
  type LedgerRecord,
  type LedgerTable,
  type PeopleWrite,
  parseLedger,
  type RowChange,
} from '../core/ledger';
import { withPatchedKeys } from '../core/ledger-repair';
import { describeShapeProblems } from '../core/ledger-shape';
import type { ClockPort } from '../core/ports';
import { SAFETY } from '../core/safety';
import { SHEET } from '../core/schema';
import {
  blockColumns,
  type ColumnSpan,
  debrisWrites,
  type GridBox,
  type GridRead,
  KEY_ROUNDS,
  keyRound,
  keysAndPeopleBox,
  keysWanted,
  MoveBack,
  moveBackAgain,
  movedUnderWrite,
  peopleStep,
  planYield,
  readBackBox,
  unlikeWritten,
  withFreshPeople,
  withoutKeys,
  writtenSpan,
} from '../core/settle-plan';
import { type FormatCache, ledgerTextChecked, setCellBlocks, toCell } from './cells';
import { scriptClock } from './clock';
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

function writeBlocks(writes: readonly ColumnWrite[], sheet: Sheet, formats?: FormatCache): void {
  const blocks = writes.map((w) => ({
    row: w.firstRow,
    column: w.column,
    cells: w.values.map((r) => r.map(toCell)),
  }));
  // Values read and written back: before 初期設定's repair, leave an earlier version's '@' cells be.
  setCellBlocks(sheet, blocks, ledgerTextChecked() !== null, [], formats);
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

/** One read of `box`, with where it was read. */
function read(sheet: Sheet, box: GridBox): GridRead {
  const grid = sheet.getRange(box.row, box.column, box.rows, box.columns).getValues();
  return { grid, row: box.row, column: box.column };
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
  /** The clock that dates rows the move-back makes safe (the script's by default). */
  clock?: Pick<ClockPort, 'iso'>;
}

/**
 * Writes changes column by column over the span of changed rows: calls do not grow with rows. The
 * decisions are core/settle-plan.ts's; this makes their calls, in this order:
 *
 * 1. the system cells, one block per run of columns;
 * 2. one read of the changed rows' キー and people-owned cells (as late as possible: it also applies
 *    our pending writes), then the people-owned cells of the changes that stand, and the system cells
 *    of rows left to people put back as read — or, when rows moved, the whole 台帳 read and every
 *    touched row put back by key (DESIGN §4: a human decision is never overwritten). Sheets has no
 *    conditional write: what is left is the span from that read until the people writes reach the
 *    sheet — Sheets holds writes back until the next read or flush (gas-platform.md §2.2), so a person's
 *    edit anywhere in that span, even after our setValues call for the cell, loses to it (simulation seed
 *    981991, --people-anytime: an edit between the インボイス and the 操作 writes; not closed: docs/engineering.md「一度だけ登録する仕組み」);
 * 3. the キー column read back (the read applies our writes): rows moved under the write (a person
 *    sorting or inserting rows while we hold the lock) are put back by key, a few rounds at most.
 */
export function writeLedgerChanges(
  table: LedgerTable,
  changes: readonly RowChange[],
  sheet: Sheet = ledgerSheet(),
  options: WriteOptions = {},
): LedgerWrite {
  if (changes.length === 0) return { withheld: [] };
  const formats = options.formats;
  const clock = options.clock ?? scriptClock();
  if (formats) formats.reused = [];
  const first = columnWrites(table, changes);
  writeBlocks(first, sheet, formats);
  const moveBack = new MoveBack(table);
  moveBack.wrote(table, first);
  /** Puts `now` (the whole 台帳, read after rows moved) right: system cells, then people's if asked. */
  const moveBackOn = (now: LedgerTable, applied: readonly RowChange[], people: boolean): void => {
    const plan = moveBack.plan(now, applied, people, clock.iso());
    writeBlocks(plan.blocks, sheet);
    if (plan.people) writePeople(plan.people, sheet);
  };
  // What the read-backs saw of the blocks written on reused formats (for their check).
  let seen: GridRead | undefined;
  let applied: readonly RowChange[] = changes;
  let withheld: RowChange[] = [];
  let verified = false;
  const step = peopleStep(table, changes, options.yieldRows, SAFETY.yieldToPeople);
  if (step.kind === 'blind') writePeople(step.people, sheet);
  else if (step.kind === 'check') {
    const box = keysAndPeopleBox(table, changes, blockColumns(formats?.reused ?? []));
    const fresh = box ? read(sheet, box) : null;
    if (fresh) seen = fresh;
    const freshTable = fresh ? withFreshPeople(table, changes, fresh) : null;
    const moved = freshTable === null;
    const view = freshTable ?? readLedger(sheet);
    const plan = planYield(table, changes, step.rows, view, moved);
    ({ applied, withheld, verified } = plan);
    writePeople(plan.people, sheet);
    if (plan.restore) {
      writeBlocks(plan.restore, sheet, formats);
      moveBack.wrote(view, plan.restore);
    }
    if (plan.moveBack) {
      formats?.forget();
      moveBackOn(view, applied, false);
    }
  }
  if (!SAFETY.reorderCheck) {
    if (formats) checkReused(sheet, formats, seen);
    return { withheld };
  }
  const reused = blockColumns(formats?.reused ?? []);
  // No flush first: the read-back itself applies our pending writes before it reads (gas-platform.md
  // §2.2, "a later read that forces them"), and the lock's release flushes (one flush per section).
  let current = withPatchedKeys(table, applied);
  let repaired = false;
  // The first check reads back only the span written (at 200,000 rows the whole column is 0.2 M cells).
  const firstCheck = writtenSpan(current, changes);
  const readBack = (box: GridBox | null): GridRead | null => (box ? read(sheet, box) : null);
  // When the re-read of people's cells was the last call after our writes, it was the read-back.
  const moved = (round: number): boolean => {
    if (round > 0) return movedUnderWrite(current, readBack(readBackBox(current)));
    if (verified) return false;
    const back = readBack(readBackBox(firstCheck, firstCheck.span, reused));
    if (back) seen = back;
    return movedUnderWrite(firstCheck, back);
  };
  for (let round = 0; moveBackAgain(round, moved(round)); round++) {
    formats?.forget();
    current = readLedger(sheet);
    moveBackOn(current, applied, true);
    SpreadsheetApp.flush();
    repaired = true;
  }
  if (repaired) clearDebris(sheet);
  else if (formats) checkReused(sheet, formats, seen);
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
function checkReused(sheet: Sheet, formats: FormatCache, seen: GridRead | undefined): void {
  const blocks = formats.reused;
  formats.reused = [];
  if (blocks.length === 0) return;
  // A block the read-back did not cover counts as unlike: written again too (same values, harmless).
  const bad = seen ? unlikeWritten(blocks, seen) : blocks;
  if (bad.length === 0) return;
  formats.forget();
  setCellBlocks(sheet, bad, true);
  const cols = blockColumns(bad) as ColumnSpan;
  const row = Math.min(...bad.map((b) => b.row));
  const bottom = Math.max(...bad.map((b) => b.row + b.cells.length - 1));
  const after = read(sheet, {
    row,
    column: cols.left,
    rows: bottom - row + 1,
    columns: cols.right - cols.left + 1,
  });
  if (unlikeWritten(bad, after).length > 0) throw new Error(TEXT_FORMAT_CHANGED);
}

/** Clears what a write left below rows deleted under it (core/settle-plan.ts debrisWrites). */
function clearDebris(sheet: Sheet): void {
  const writes = debrisWrites(readLedger(sheet));
  if (!writes) return;
  writeBlocks(writes, sheet);
  SpreadsheetApp.flush();
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

/**
 * Gives rows their keys back (a person changed or cleared a キー; intake and reconcile prove which key
 * is right). The other fields of these changes are written first, by the key the row has now. The key
 * is the row's identity, which the move check relies on, so it is written by itself, a cell at a time
 * right after a fresh read, and checked after (core/settle-plan.ts keyRound). Rare: a few calls.
 * Returns how many of the keys are back on the rows they belong to.
 */
export function restoreKeys(
  table: LedgerTable,
  changes: readonly RowChange[],
  sheet: Sheet = ledgerSheet(),
): { restored: number; withheld: RowChange[] } {
  const { withheld } = writeLedgerChanges(table, withoutKeys(changes), sheet);
  const wanted = keysWanted(changes, withheld);
  const col = table.columns.get('キー');
  if (wanted.length === 0 || col === undefined) return { restored: 0, withheld };
  let restored = 0;
  for (let round = 0; round <= KEY_ROUNDS; round++) {
    const plan = keyRound(readLedger(sheet), wanted);
    restored = plan.restored;
    if (plan.writes.size === 0 || round === KEY_ROUNDS) break;
    // One cell each (a block over the span would write rows a sort may have moved), one writer.
    setCellBlocks(
      sheet,
      [...plan.writes].map(([rowNumber, key]) => ({
        row: rowNumber,
        column: col + 1,
        cells: [[toCell(key)]],
      })),
      ledgerTextChecked() !== null,
    );
    SpreadsheetApp.flush();
  }
  return { restored, withheld };
}
