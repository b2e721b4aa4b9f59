/**
 * 古い行をアーカイブ (archiveLedger) and アーカイブから戻す (bringBackFromArchive), issue 18.
 *
 * The archive run, all under the script lock (no HTTP call in it):
 *   1. settle what an earlier run left — a row in both places (a run stopped between copy and removal,
 *      or a bring-back between its append and its index write): the 台帳 copy wins, the archive copy
 *      is deleted first, then its index entry; an archive row no index entry accounts for is a copy a
 *      run left before indexing it (deleted: its 台帳 row is there) or a row a person put there
 *      (indexed when it is a 完了・除外 row with a sound key the 台帳 does not hold);
 *   2. add the old 完了・除外 rows' keys to the index (one write, flushed; its counts mirrored), then
 *      copy the rows to 台帳アーカイブ in one write, flush, read them back and compare cell by cell —
 *      intent before action, so an archived row is never outside the index;
 *   3. take out of the index any copy that did not read back (its 台帳 row stays);
 *   4. read the 台帳 again, and delete by key, in blocks, the rows that still hold exactly what was
 *      copied (a row a person edited since stays, and the next run moves what they typed); read it
 *      again and put back any row a sort under the deletion took by mistake;
 *   5. record the counts the lost-ledger guard and the sent-rows mark compare with (台帳 + archive).
 * A kill anywhere leaves each row on the 台帳, in the archive or both, and never posts one: only 完了 and
 * 除外 rows move, the archive is never read for posting, and every import asks the index first.
 */
import {
  ARCHIVE_MSG,
  ARCHIVE_ROWS_PER_RUN,
  ARCHIVE_SHEET,
  ARCHIVED_AT,
  type ArchiveIndex,
  archiveCutoff,
  BRING_BACK,
  cellForm,
  countsOf,
  FINAL_STATES,
  formatIndex,
  kindOf,
  planArchive,
  removableReimport,
  rowForm,
  sameRow,
  troubleMessage,
  unbackedReleasable,
} from '../core/archive';
import { deletionHold } from '../core/duplicates/sheet';
import { keyProblem } from '../core/key-check';
import { mfKey, tagDigits } from '../core/keys';
import { indexByKey, type LedgerRow, type LedgerTable, parseLedger } from '../core/ledger';
import { LOST_LEDGER_MSG, ledgerLooksLost } from '../core/lost-ledger';
import { SHEET } from '../core/schema';
import { SETTING_NEEDS } from '../core/settings';
import {
  appendAndReadBack,
  archivedRows,
  archiveRunUnfinished,
  archiveSheet,
  columnsOf,
  countArchivedCopies,
  deleteRowsChecked,
  finishArchiveRun,
  type MirrorMark,
  readCheckedIndex,
  readGrid,
  writeArchiveIndex,
} from '../gas/archive-sheet';
import { today } from '../gas/clock';
import { ledgerSheet } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { lastLedgerRows, recordLedgerRows } from '../gas/run-state';
import { activeBook, readSheetValues } from '../gas/workbook';
import {
  type DoneCounts,
  doneCountsWithArchive,
  settleDoubleCounted,
  watchDoneRows,
} from '../services/done-rows';
import { preflight, settingsFor } from '../services/preflight';
import { type RunContext, type RunResult, runEntry } from '../services/run';

type Grid = unknown[][];

interface Pass {
  refused?: string;
  moved: number;
  messages: string[];
}

/** The index written, and how many cells it now takes (a shorter one clears the rest next time). */
function saveIndex(index: ArchiveIndex, cells: number, mark?: MirrorMark): number {
  writeArchiveIndex(index, cells, mark);
  return formatIndex(index).length;
}

/** Step 1's outcome: the index's cells, counts to take off the sent-rows mark, and 台帳 rows to remove. */
interface Settled {
  cells: number;
  doubled: DoneCounts;
  /** Keys of re-imported 台帳 rows never sent, whose archived row holds the decision (step 1b). */
  reimported: Set<string>;
}

/**
 * Step 1: rows in both places and archive rows no index entry accounts for. A key on the 台帳 and in the
 * archive is either one row in two places (an archive run or a bring-back stopped half-way: core sameRow)
 * — the 台帳 row wins and the archive copy goes — or the line imported again beside its archived row (the
 * index was missing when it came back). Then the archived row is the decision and stays, indexed: a
 * re-import never removes it (DESIGN §9.2, §9.8). The 台帳 row that was never sent goes (step 1b); one
 * that was sent stays, listed in the summary, and is never sent again (posting's guard).
 */
function settle(
  table: LedgerTable,
  tags: readonly string[],
  index: ArchiveIndex,
  archive: GoogleAppsScript.Spreadsheet.Sheet,
  cells: number,
  pending: boolean,
  messages: string[],
): Settled {
  const doubled: DoneCounts = { mf: 0, csv: 0 };
  const reimported = new Set<string>();
  // Archive keys the 台帳 also holds: by the row's key, or for an MF line by its 明細ID (a person may
  // have changed the key of the 台帳 copy meanwhile; the next import gives it back).
  const both = new Set<string>();
  table.rows.forEach((r, i) => {
    const key = r.record.キー;
    if (index.entries.has(tags[i])) both.add(key);
    const id = r.record.明細ID.trim();
    if (id !== '' && mfKey(id) !== key && index.entries.has(tagDigits(mfKey(id)))) both.add(mfKey(id));
  });
  const archiveRows = Math.max(0, archive.getLastRow() - 1);
  if (both.size === 0 && archiveRows === index.sheetRows) return { cells, doubled, reimported };
  // The 台帳 rows of each key (an MF line's also under mf:<明細ID>), to tell a copy from a re-import.
  const liveRows = new Map<string, LedgerRow[]>();
  const addLive = (key: string, row: LedgerRow) => {
    const list = liveRows.get(key);
    if (list) list.push(row);
    else liveRows.set(key, [row]);
  };
  for (const r of table.rows) {
    addLive(r.record.キー, r);
    const id = r.record.明細ID.trim();
    if (id !== '' && mfKey(id) !== r.record.キー) addLive(mfKey(id), r);
  }
  const grid = readGrid(archive);
  const keyCol = columnsOf(grid).get('キー') ?? 0;
  const records = new Map(parseLedger(grid).rows.map((r) => [r.rowNumber, r.record]));
  const drop = new Set<number>();
  const adopt = new Map<string, ReturnType<typeof kindOf>>();
  const strays: number[] = [];
  const seen = new Set<string>();
  // Keys whose archived row stays beside a re-imported 台帳 row (their entry stays too).
  const kept = new Set<string>();
  const listed = new Set<string>();
  let orphans = 0;
  for (let g = 1; g < grid.length; g++) {
    if (rowForm(grid[g]) === '') continue;
    const record = records.get(g + 1);
    const key = String(grid[g][keyCol] ?? '').trim();
    const hex = tagDigits(key);
    const live = key === '' ? [] : (liveRows.get(key) ?? []);
    // One row in two places when every 台帳 row of the key is this row (by 初回検知 or journal).
    const same = !!record && live.length > 0 && live.every((r) => sameRow(r.record, record));
    if (key !== '' && both.has(key)) {
      if (same) drop.add(g);
      else {
        kept.add(key);
        seen.add(hex);
        for (const r of live) {
          if (removableReimport(r.record) && r.record.キー === key) reimported.add(key);
          else listed.add(`${r.rowNumber} 行目（${r.record.キー || key}、${r.record.状態 || '状態なし'}）`);
        }
      }
    } else if (key !== '' && index.entries.has(hex)) {
      seen.add(hex);
    } else if (key !== '' && live.length > 0 && same) {
      // No entry, key on the 台帳: a copy a run wrote and then took out of the index (it did not read
      // back). It goes only when it is that 台帳 row's own copy; a row a person put back into the archive
      // beside a re-import of its line is indexed below, and the next run settles the two as above.
      drop.add(g);
      orphans += 1;
    } else if (
      record &&
      key !== '' &&
      FINAL_STATES.has(record.状態) &&
      keyProblem(record) === null &&
      !adopt.has(hex)
    ) {
      adopt.set(hex, kindOf(record));
      seen.add(hex);
    } else strays.push(g + 1);
  }
  const bothTags = new Set([...both].filter((k) => !kept.has(k)).map(tagDigits));
  // The copies go first: killed here, the index still holds every key.
  const deletion = deleteRowsChecked(archive, grid, drop, keyCol);
  for (const hex of bothTags) {
    const kind = index.entries.get(hex);
    if (kind === 'm') doubled.mf += 1;
    if (kind === 'c') doubled.csv += 1;
    index.entries.delete(hex);
  }
  for (const [hex, kind] of adopt) index.entries.set(hex, kind);
  // After a run stopped between its index write and its copy, entries no row backs are that run's
  // intent for rows a person then deleted from the 台帳: the releasable ones leave the index, so the
  // import or 台帳を復元 brings those lines back. Otherwise (a person deleted archive rows) they stay.
  const released = pending ? unbackedReleasable(index, seen) : [];
  for (const hex of released) index.entries.delete(hex);
  const missing = [...index.entries.keys()].filter((h) => !seen.has(h)).length;
  index.sheetRows = Math.max(0, deletion.after.length - 1);
  const written = saveIndex(index, cells, { pending: false });
  const resolved = both.size - kept.size;
  if (resolved > 0) messages.push(ARCHIVE_MSG.resolved(resolved));
  if (orphans > 0) messages.push(ARCHIVE_MSG.orphansDropped(orphans));
  if (adopt.size > 0) messages.push(ARCHIVE_MSG.adopted(adopt.size));
  if (strays.length > 0) messages.push(ARCHIVE_MSG.strays(strays));
  if (released.length > 0) messages.push(ARCHIVE_MSG.released(released.length));
  if (missing > 0) messages.push((pending ? ARCHIVE_MSG.keptUnbacked : ARCHIVE_MSG.missingRows)(missing));
  if (deletion.putBack > 0) messages.push(ARCHIVE_MSG.putBack(deletion.putBack));
  if (listed.size > 0) messages.push(ARCHIVE_MSG.reimportedKept([...listed]));
  return { cells: written, doubled, reimported };
}

/**
 * Step 1b: the re-imported 台帳 rows that were never sent leave the 台帳, found again by key in a fresh
 * read and only while they still hold what step 1 read (a row a person changed since waits for the next
 * run), in blocks with the sort check. Their line's archived row is its record: the decision a person
 * made (除外) or the journal it has (完了). Returns the 台帳 as it is afterwards, or null when nothing went.
 */
function dropReimported(
  ledger: GoogleAppsScript.Spreadsheet.Sheet,
  before: Grid,
  keys: ReadonlySet<string>,
  keyCol: number,
  messages: string[],
): Grid | null {
  if (keys.size === 0) return null;
  const now = readGrid(ledger);
  const fresh = indexByKey(parseLedger(now).rows);
  const was = indexByKey(parseLedger(before).rows);
  const remove = new Set<number>();
  const names: string[] = [];
  for (const key of keys) {
    const at = fresh.get(key) ?? [];
    const then = was.get(key) ?? [];
    if (at.length !== 1 || then.length !== 1) continue;
    if (rowForm(now[at[0].rowNumber - 1]) !== rowForm(before[then[0].rowNumber - 1])) continue;
    if (!removableReimport(at[0].record)) continue;
    remove.add(at[0].rowNumber - 1);
    names.push(`${at[0].rowNumber} 行目（${key}、${at[0].record.状態}）`);
  }
  if (remove.size === 0) return null;
  const deletion = deleteRowsChecked(ledger, now, remove, keyCol);
  messages.push(ARCHIVE_MSG.reimportedDropped(names));
  if (deletion.putBack > 0) messages.push(ARCHIVE_MSG.putBack(deletion.putBack));
  return deletion.after;
}

/** Whether a copy read back as written (the archive's own column aside). */
function sameCells(
  header: readonly string[],
  written: readonly unknown[],
  back: readonly unknown[],
): boolean {
  return header.every((h, j) => h === ARCHIVED_AT || cellForm(written[j]) === cellForm(back[j]));
}

function archivePass(cutoff: string): Pass {
  const messages: string[] = [];
  const now = new Date().toISOString();
  // The index and the archive sheet as one whole (issue 25): with the index gone, unreadable or cut
  // short, the settle below would take archived rows for leftovers and delete them.
  const read = readCheckedIndex(true);
  if (read.trouble) return { refused: troubleMessage(read.trouble), moved: 0, messages };
  const index = read.index;
  const ledger = ledgerSheet();
  const first = readGrid(ledger);
  const firstTable = parseLedger(first);
  const gone = watchDoneRows(firstTable);
  if (gone) messages.push(gone);
  const lcols = columnsOf(first);
  const keyCol = lcols.get('キー') ?? 0;
  const firstTags = firstTable.rows.map((r) => tagDigits(r.record.キー));
  const archive = archiveSheet(first[0] ?? [], true) as GoogleAppsScript.Spreadsheet.Sheet;
  const settled = settle(firstTable, firstTags, index, archive, read.cells, archiveRunUnfinished(), messages);
  let cells = settled.cells;
  // 1b. Re-imported rows never sent leave the 台帳; the plan is made from the 台帳 as it is then.
  const grid = dropReimported(ledger, first, settled.reimported, keyCol, messages) ?? first;
  const table = grid === first ? firstTable : parseLedger(grid);
  const tags = grid === first ? firstTags : table.rows.map((r) => tagDigits(r.record.キー));

  // 2'. Rows whose journal 重複を削除 is deleting stay until its settle has found them (seed 199).
  const hold = deletionHold(readSheetValues(SHEET.duplicates));
  if (hold.missing) return { refused: ARCHIVE_MSG.duplicateHeaders(hold.missing), moved: 0, messages };
  const plan = planArchive(table, tags, index, cutoff, ARCHIVE_ROWS_PER_RUN, hold.hold);
  let moved = 0;
  let after: Grid = grid;
  if (plan.move.length > 0) {
    // 2. Copy, under the archive's headers (people's own 台帳 columns came along in archiveSheet).
    const header = (readGrid(archive)[0] ?? []).map((h) => String(h ?? '').trim());
    const copies = plan.move.map((row) =>
      header.map((h) => {
        if (h === ARCHIVED_AT) return now;
        const c = lcols.get(h);
        return c === undefined ? '' : grid[row.rowNumber - 1][c];
      }),
    );
    // 2a. The keys go into the index before their copies exist (intent first, as 処理中 before a send):
    //     killed after this, each key is still live on the 台帳 and indexed, and the next run keeps the
    //     台帳 copy; killed after the copy, no archived row is ever outside the index — so a 台帳 a person
    //     deletes meanwhile cannot make an archived event or CSV row look new. The mirror keeps counting
    //     only what the archive holds until the copies read back (the rows are still on the 台帳, and
    //     counted twice they would hide rows a person deletes meanwhile from the sent-rows watch).
    const held = countsOf(index);
    for (const row of plan.move) index.entries.set(tagDigits(row.record.キー), kindOf(row.record));
    index.sheetRows += plan.move.length;
    cells = saveIndex(index, cells, { pending: true, counts: held });
    const { first, back } = appendAndReadBack(archive, copies, header.length);
    const verified = plan.move.filter((_, i) => back[i] && sameCells(header, copies[i], back[i]));
    // 3. A copy that did not read back leaves the index again (its 台帳 row stays; the archive's row
    //    count then differs from the index's, so the next run finds that copy and deletes it).
    const ok = new Set(verified);
    const failed = plan.move.filter((row) => !ok.has(row));
    for (const row of failed) index.entries.delete(tagDigits(row.record.キー));
    const rowsNow = first - 2 + verified.length;
    if (failed.length > 0 || rowsNow !== index.sheetRows) {
      index.sheetRows = rowsNow;
      cells = saveIndex(index, cells);
    } else countArchivedCopies(index);
    if (failed.length > 0) messages.push(ARCHIVE_MSG.notVerified(failed.length));
    // 4. Remove from the 台帳 by key, only rows that still hold what was copied.
    const now2 = readGrid(ledger);
    const fresh = indexByKey(parseLedger(now2).rows);
    const remove = new Set<number>();
    let edited = 0;
    for (const row of verified) {
      const at = fresh.get(row.record.キー) ?? [];
      if (at.length === 1 && rowForm(now2[at[0].rowNumber - 1]) === rowForm(grid[row.rowNumber - 1]))
        remove.add(at[0].rowNumber - 1);
      else edited += 1;
    }
    const deletion = deleteRowsChecked(ledger, now2, remove, keyCol);
    after = deletion.after;
    moved = remove.size;
    if (edited > 0) messages.push(ARCHIVE_MSG.editedMeanwhile(edited));
    if (deletion.putBack > 0) messages.push(ARCHIVE_MSG.putBack(deletion.putBack));
  }
  // 5. The counts the guards compare with: 台帳 + archive, as they are now; the run is finished.
  finishArchiveRun(index);
  const finalTable = after === grid ? table : parseLedger(after);
  recordLedgerRows(finalTable.rows.length);
  settleDoubleCounted(doneCountsWithArchive(finalTable), settled.doubled);
  const total = countsOf(index).rows;
  messages.unshift(moved > 0 ? ARCHIVE_MSG.moved(moved, cutoff, total) : ARCHIVE_MSG.none(cutoff));
  if (plan.held > 0) messages.push(ARCHIVE_MSG.deletionInFlight(plan.held));
  if (plan.deferred > 0) messages.push(ARCHIVE_MSG.deferred(plan.deferred));
  return { moved, messages };
}

export function runArchive(ctx: RunContext): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings);
  if (refused) return refused;
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.archive);
  if (refusal) return refusal;
  if (settings.archiveMonths === null)
    return { ok: ctx.fromTrigger, count: 0, messages: [ARCHIVE_MSG.off, ...notes], off: true };
  // Rows missing since the last run: moving more would muddle what the guard and 台帳を復元 rely on.
  const rowsNow = Math.max(0, ledgerSheet().getLastRow() - 1);
  const last = lastLedgerRows() - archivedRows();
  if (ledgerLooksLost(rowsNow, last))
    return {
      ok: false,
      count: 0,
      messages: [`${LOST_LEDGER_MSG.shrunk(last, rowsNow)} アーカイブも止めます。`, ...notes],
    };
  const cutoff = archiveCutoff(today(), settings.archiveMonths);
  const done = underScriptLock(() => archivePass(cutoff));
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE, ...notes], busy: true };
  const pass = done.value;
  if (pass.refused) return { ok: false, count: 0, messages: [pass.refused, ...pass.messages, ...notes] };
  return { count: pass.moved, messages: [...pass.messages, ...notes], archived: pass.moved, cutoff };
}

export function archiveLedger(e?: unknown) {
  return runEntry('古い行のアーカイブ', e, (ctx) => runArchive(ctx));
}

const BROUGHT_BACK_MEMO = (at: string) => `アーカイブから戻しました（${at}）。`;

function bringBackPass(): { refused?: string; count: number; messages: string[] } {
  const messages: string[] = [];
  const now = new Date().toISOString();
  const read = readCheckedIndex(true);
  if (read.trouble) return { refused: troubleMessage(read.trouble), count: 0, messages };
  const index = read.index;
  const ledger = ledgerSheet();
  const lgrid = readGrid(ledger);
  const archive = archiveSheet(lgrid[0] ?? [], false);
  if (!archive) return { refused: ARCHIVE_MSG.noArchive, count: 0, messages };
  const agrid = readGrid(archive);
  const acols = columnsOf(agrid);
  const akey = acols.get('キー') ?? 0;
  const records = parseLedger(agrid).rows;
  const marked = records.filter((r) => r.record.操作.normalize('NFKC').trim() === BRING_BACK);
  if (marked.length === 0) return { refused: ARCHIVE_MSG.noneMarked, count: 0, messages };
  const live = new Set(parseLedger(lgrid).rows.map((r) => r.record.キー));
  const ok = marked.filter((r) => {
    const key = r.record.キー;
    if (!FINAL_STATES.has(r.record.状態)) messages.push(ARCHIVE_MSG.notFinal(r.rowNumber, r.record.状態));
    else if (!index.entries.has(tagDigits(key))) messages.push(ARCHIVE_MSG.notIndexed(r.rowNumber));
    else if (live.has(key)) messages.push(ARCHIVE_MSG.alreadyLive(r.rowNumber));
    else return true;
    return false;
  });
  if (ok.length === 0) return { count: 0, messages };
  // 1. Append to the 台帳 under its own headers, with 操作 cleared and 更新日時 now (so the row stays
  //    there for the setting's months), and read back.
  const lheader = (lgrid[0] ?? []).map((h) => String(h ?? '').trim());
  const rows = ok.map((r) =>
    lheader.map((h) => {
      if (h === '操作') return '';
      if (h === '更新日時') return now;
      if (h === 'メモ') return BROUGHT_BACK_MEMO(now);
      const c = acols.get(h);
      return h === '' || c === undefined ? '' : agrid[r.rowNumber - 1][c];
    }),
  );
  const lkey = lheader.indexOf('キー');
  const { back } = appendAndReadBack(ledger, rows, lheader.length);
  const landed = ok.filter((r, i) => String(back[i]?.[lkey] ?? '') === r.record.キー);
  if (landed.length < ok.length) messages.push(ARCHIVE_MSG.readBackShort(ok.length, landed.length));
  if (landed.length === 0) return { count: 0, messages };
  // 2. The keys leave the index (a kill before this: in both places, and the next archive run keeps the
  //    台帳 copy); 3. the archive rows go, found again by key.
  for (const r of landed) index.entries.delete(tagDigits(r.record.キー));
  const keys = new Set(landed.map((r) => r.record.キー));
  const agrid2 = readGrid(archive);
  const drop = new Set<number>();
  for (let g = 1; g < agrid2.length; g++) if (keys.has(String(agrid2[g][akey] ?? ''))) drop.add(g);
  index.sheetRows = Math.max(0, agrid2.length - 1 - drop.size);
  writeArchiveIndex(index, read.cells);
  const deletion = deleteRowsChecked(archive, agrid2, drop, akey);
  if (deletion.putBack > 0) messages.push(ARCHIVE_MSG.putBack(deletion.putBack));
  recordLedgerRows(Math.max(0, ledger.getLastRow() - 1));
  messages.unshift(ARCHIVE_MSG.broughtBack(landed.length));
  return { count: landed.length, messages };
}

export function runBringBack(_ctx: RunContext): RunResult {
  const refused = preflight(SHEET.ledger);
  if (refused) return refused;
  const done = underScriptLock(() => bringBackPass());
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE], busy: true };
  const pass = done.value;
  if (pass.refused) return { ok: false, count: 0, messages: [pass.refused, ...pass.messages] };
  return { ...(pass.count === 0 ? { ok: false } : {}), count: pass.count, messages: pass.messages };
}

export function bringBackFromArchive(e?: unknown) {
  return runEntry('アーカイブから戻す', e, (ctx) => runBringBack(ctx));
}

/** ヘルプ's link: opens 台帳アーカイブ (or says there is none yet). */
export function showArchive(): string {
  const sheet = activeBook().getSheetByName(ARCHIVE_SHEET);
  if (!sheet) return ARCHIVE_MSG.noArchive;
  activeBook().setActiveSheet(sheet);
  return `シート「${ARCHIVE_SHEET}」を開きました（${archivedRows()} 行）。`;
}
