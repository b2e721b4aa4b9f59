/**
 * The archive move's recover step (archive-move.ts): what an earlier run, a bring-back or a person left
 * half done, settled before anything new is planned —
 *   1. rows in both places, archive rows no index entry accounts for, and entries no row backs (settle);
 *   1b. re-imported 台帳 rows never sent, whose archived row holds the decision (dropReimported).
 */
import {
  ARCHIVE_MSG,
  type ArchiveIndex,
  FINAL_STATES,
  formatIndex,
  kindOf,
  removableReimport,
  rowForm,
  sameRow,
  unbackedReleasable,
} from './archive';
import type { ArchiveIndexPort, ArchiveSheetPort, DoneCounts, GridPort, MirrorMark } from './archive-ports';
import { headerIndex } from './headers';
import { keyProblem } from './key-check';
import { mfKey, tagDigits } from './keys';
import { indexByKey, type LedgerRow, type LedgerTable, parseLedger } from './ledger';

type Grid = unknown[][];

/** The index written, and how many cells it now takes (a shorter one clears the rest next time). */
export function saveIndex(
  port: ArchiveIndexPort,
  index: ArchiveIndex,
  cells: number,
  mark?: MirrorMark,
): number {
  port.write(index, cells, mark);
  return formatIndex(index).length;
}

/** Step 1's outcome: the index's cells, counts to take off the sent-rows mark, and 台帳 rows to remove. */
export interface Settled {
  cells: number;
  doubled: DoneCounts;
  /** Keys of re-imported 台帳 rows never sent, whose archived row holds the decision (step 1b). */
  reimported: Set<string>;
}

/**
 * Step 1: rows in both places and archive rows no index entry accounts for. A key on the 台帳 and in the
 * archive is either one row in two places (an archive run or a bring-back stopped half-way: sameRow)
 * — the 台帳 row wins and the archive copy goes — or the line imported again beside its archived row (the
 * index was missing when it came back). Then the archived row is the decision and stays, indexed: a
 * re-import never removes it (DESIGN §9.2, §9.8). The 台帳 row that was never sent goes (step 1b); one
 * that was sent stays, listed in the summary, and is never sent again (posting's guard).
 * `pending`: an earlier run wrote its index entries and did not finish.
 */
export function settleLeftovers(
  table: LedgerTable,
  tags: readonly string[],
  index: ArchiveIndex,
  indexPort: ArchiveIndexPort,
  archive: ArchiveSheetPort,
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
  const archiveRows = Math.max(0, archive.lastRow() - 1);
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
  const grid = archive.read();
  const keyCol = headerIndex(grid[0] ?? []).get('キー') ?? 0;
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
  const deletion = archive.deleteRows(grid, drop, keyCol);
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
  const written = saveIndex(indexPort, index, cells, { pending: false });
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
export function dropReimported(
  ledger: GridPort,
  before: Grid,
  keys: ReadonlySet<string>,
  keyCol: number,
  messages: string[],
): Grid | null {
  if (keys.size === 0) return null;
  const now = ledger.read();
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
  const deletion = ledger.deleteRows(now, remove, keyCol);
  messages.push(ARCHIVE_MSG.reimportedDropped(names));
  if (deletion.putBack > 0) messages.push(ARCHIVE_MSG.putBack(deletion.putBack));
  return deletion.after;
}
