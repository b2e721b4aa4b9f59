/**
 * 古い行をアーカイブ (archiveLedger) and アーカイブから戻す (bringBackFromArchive), issue 18.
 *
 * The archive run is core/archive-move.ts, an instance of the exactly-once skeleton; this file gives it
 * its Sheets ports (src/gas/archive-sheet.ts) and runs it under the script lock.
 */
import {
  ARCHIVE_MSG,
  ARCHIVE_SHEET,
  archiveCutoff,
  BRING_BACK,
  FINAL_STATES,
  troubleMessage,
} from '../core/archive';
import { type ArchivePass, moveOldRows } from '../core/archive-move';
import type { ArchiveMovePorts, ArchiveSheetPort, GridPort } from '../core/archive-ports';
import { tagDigits } from '../core/keys';
import { parseLedger } from '../core/ledger';
import { LOST_LEDGER_MSG, ledgerLooksLost } from '../core/lost-ledger';
import type { LockPort } from '../core/ports';
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
  readCheckedIndex,
  readGrid,
  writeArchiveIndex,
} from '../gas/archive-sheet';
import { today } from '../gas/clock';
import { ledgerSheet } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { lastLedgerRows, recordLedgerRows } from '../gas/run-state';
import { activeBook, readSheetValues } from '../gas/workbook';
import { doneCountsWithArchive, settleDoubleCounted, watchDoneRows } from '../services/done-rows';
import { preflight, settingsFor } from '../services/preflight';
import { type RunContext, type RunResult, runEntry } from '../services/run';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/**
 * The skeleton's lock for the archive: the script lock runArchive already holds for the whole pass. The
 * archive's act is a Sheets write (the copy), not a call to MF, so holding the lock through it is the
 * point, not a fault: no other run may see a row half moved. Taking it is a no-op, and so is releasing
 * it (no flush either: each step that must be durable before the next flushes itself).
 */
const HELD_SCRIPT_LOCK: LockPort = {
  acquire: () => true,
  flushAndRelease: () => {},
};

function gridPort(sheet: () => Sheet): GridPort {
  return {
    read: () => readGrid(sheet()),
    deleteRows: (before, rows, keyCol) => deleteRowsChecked(sheet(), before, rows, keyCol),
  };
}

/** The move's ports over Sheets. The 台帳 sheet is looked up on first use, where the run first reads it. */
function archivePorts(): ArchiveMovePorts {
  let ledger: Sheet | null = null;
  const ledgerOnce = () => {
    ledger ??= ledgerSheet();
    return ledger;
  };
  return {
    lock: HELD_SCRIPT_LOCK,
    index: {
      read: () => readCheckedIndex(true),
      write: writeArchiveIndex,
      countCopies: countArchivedCopies,
      finish: finishArchiveRun,
      unfinished: archiveRunUnfinished,
    },
    ledger: gridPort(ledgerOnce),
    openArchive(ledgerHeader): ArchiveSheetPort {
      const sheet = archiveSheet(ledgerHeader, true) as Sheet;
      return {
        ...gridPort(() => sheet),
        lastRow: () => sheet.getLastRow(),
        appendAndReadBack: (rows, width) => appendAndReadBack(sheet, rows, width),
      };
    },
    duplicates: () => readSheetValues(SHEET.duplicates),
    watchDoneRows,
    recordCounts(table, doubled) {
      recordLedgerRows(table.rows.length);
      settleDoubleCounted(doneCountsWithArchive(table), doubled);
    },
  };
}

function archivePass(cutoff: string): ArchivePass {
  const now = new Date().toISOString();
  return moveOldRows(archivePorts(), cutoff, now);
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
