/**
 * 古い行をアーカイブ (issue 18) as an instance of the exactly-once skeleton (exactly-once/skeleton.ts owns
 * the loop). The effect that must happen once is a row's move from the 台帳 to 台帳アーカイブ; its key is
 * the row's キー, and the index アーカイブ索引 plays the part 送信中 plays for posting. In the order a run
 * meets it:
 *   recover — 1. rows in both places, unindexed archive rows, entries no row backs; 1b. re-imported rows
 *             never sent (archive-recover.ts)
 *   look    — rows a delete on 重複点検 holds, and the plan of old 完了・除外 rows (planArchive)
 *   claim   — 2a. the rows' keys into the index with the run marked pending, flushed: intent before
 *             action, as 送信中 before a send, so an archived row is never outside the index
 *   act     — 2. the copies appended in one write and read back (startActs); each claim is done when
 *             its copy reads back cell for cell, returned (to the 台帳, for the next run) when not
 *   settle  — 3. copies that did not read back leave the index; 4. the rows delete from the 台帳 by key,
 *             only while they hold what was copied, with the sort check; 5. the counts the guards use
 * One batch per run (ARCHIVE_ROWS_PER_RUN rows at most). Unlike posting and deletion there is no HTTP
 * call: the whole run holds the script lock (the caller's), so no other run sees a move half done, and
 * a kill anywhere leaves each row on the 台帳, in the archive or both — never posted again, since only
 * 完了 and 除外 rows move and every import asks the index first.
 */
import {
  ARCHIVE_MSG,
  ARCHIVE_ROWS_PER_RUN,
  ARCHIVED_AT,
  type ArchiveIndex,
  type ArchivePlan,
  cellForm,
  countsOf,
  kindOf,
  planArchive,
  rowForm,
  troubleMessage,
} from './archive';
import type { ArchiveMovePorts, ArchiveSheetPort, DoneCounts, Grid } from './archive-ports';
import { dropReimported, saveIndex, settleLeftovers } from './archive-recover';
import { deletionHold } from './duplicates/sheet';
import { type OutcomeKind, SETTLES_TO } from './exactly-once/outcomes';
import { type Batch, type ExactlyOnceJob, runExactlyOnce } from './exactly-once/skeleton';
import { headerIndex } from './headers';
import { tagDigits } from './keys';
import { indexByKey, type LedgerRow, type LedgerTable, parseLedger } from './ledger';

export interface ArchivePass {
  refused?: string;
  moved: number;
  messages: string[];
}

/** One row claimed for the move: the 台帳 row as planned, and its copy under the archive's headers. */
export interface Move {
  row: LedgerRow;
  copy: unknown[];
  /** Its place in the batch's one append (and in the read-back). */
  at: number;
}

/** An act's answer: whether the copy read back as written. */
type ReadBack = boolean;

/** Whether a copy read back as written (the archive's own column aside). */
export function sameCells(
  header: readonly string[],
  written: readonly unknown[],
  back: readonly unknown[],
): boolean {
  return header.every((h, j) => h === ARCHIVED_AT || cellForm(written[j]) === cellForm(back[j]));
}

/** A copy's read-back in the skeleton's terms: on the sheet as written, or back to the 台帳 for the next run. */
export function copyOutcome(readBack: ReadBack): OutcomeKind {
  return readBack ? 'done' : 'returned';
}

/** What the run knows as it goes: the 台帳 it planned from, the index and its cells. */
interface MoveState {
  index: ArchiveIndex;
  cells: number;
  archive: ArchiveSheetPort;
  keyCol: number;
  lcols: Map<string, number>;
  /** The 台帳 as first read, and as the plan was made (after step 1b). */
  first: Grid;
  firstTable: LedgerTable;
  grid: Grid;
  table: LedgerTable;
  /** Tag hex of each row of `table`, when already hashed (SHA-256 a key: done once a row). */
  tags: string[] | null;
  doubled: DoneCounts;
  plan: ArchivePlan | null;
  header: string[];
  /** Where the batch's append began, and what it read back (startActs). */
  appended: { first: number; back: Grid } | null;
  moved: number;
  /** The 台帳 after step 4's deletion (the plan's grid when nothing was deleted). */
  after: Grid;
}

/** Steps 1 and 1b, under the caller's lock: the plan is made from the 台帳 as it is afterwards. */
function recover(ports: ArchiveMovePorts, s: MoveState, messages: string[]): 'recovered' {
  const firstTags = s.firstTable.rows.map((r) => tagDigits(r.record.キー));
  const pending = ports.index.unfinished();
  const settled = settleLeftovers(
    s.firstTable,
    firstTags,
    s.index,
    ports.index,
    s.archive,
    s.cells,
    pending,
    messages,
  );
  s.cells = settled.cells;
  s.doubled = settled.doubled;
  const grid = dropReimported(ports.ledger, s.first, settled.reimported, s.keyCol, messages);
  if (grid === null) s.tags = firstTags;
  else {
    s.grid = grid;
    s.table = parseLedger(grid);
  }
  s.after = s.grid;
  return 'recovered';
}

/** 2'. Rows whose journal 重複を削除 is deleting stay until its settle has found them (seed 199); then the plan. */
function look(ports: ArchiveMovePorts, s: MoveState, cutoff: string): string | null {
  const hold = deletionHold(ports.duplicates());
  if (hold.missing) return ARCHIVE_MSG.duplicateHeaders(hold.missing);
  const tags = s.tags ?? s.table.rows.map((r) => tagDigits(r.record.キー));
  s.plan = planArchive(s.table, tags, s.index, cutoff, ARCHIVE_ROWS_PER_RUN, hold.hold);
  return null;
}

/**
 * 2a. The claim: the copies built under the archive's headers (people's own 台帳 columns came along when
 * the sheet was opened), then the keys into the index before the copies exist. Killed after this, each key
 * is still live on the 台帳 and indexed, and the next run keeps the 台帳 copy; killed after the copy, no
 * archived row is ever outside the index — so a 台帳 a person deletes meanwhile cannot make an archived
 * event or CSV row look new. The mirror keeps counting only what the archive holds until the copies read
 * back (the rows are still on the 台帳, and counted twice they would hide rows a person deletes meanwhile
 * from the sent-rows watch).
 */
function claim(ports: ArchiveMovePorts, s: MoveState, rows: readonly LedgerRow[], now: string): Move[] {
  s.header = (s.archive.read()[0] ?? []).map((h) => String(h ?? '').trim());
  const moves = rows.map((row, at) => ({
    row,
    at,
    copy: s.header.map((h) => {
      if (h === ARCHIVED_AT) return now;
      const c = s.lcols.get(h);
      return c === undefined ? '' : s.grid[row.rowNumber - 1][c];
    }),
  }));
  const held = countsOf(s.index);
  for (const row of rows) s.index.entries.set(tagDigits(row.record.キー), kindOf(row.record));
  s.index.sheetRows += rows.length;
  s.cells = saveIndex(ports.index, s.index, s.cells, { pending: true, counts: held });
  return moves;
}

/**
 * 3 and 4. The settle: a copy that did not read back leaves the index again (its 台帳 row stays; the
 * archive's row count then differs from the index's, so the next run finds that copy and deletes it);
 * then the 台帳 read again and the rows that still hold exactly what was copied deleted by key (a row a
 * person edited since stays, and the next run moves what they typed), with the sort check.
 */
function settle(
  ports: ArchiveMovePorts,
  s: MoveState,
  batch: Batch<Move, ReadBack, never>,
  messages: string[],
) {
  const verified = batch.claims.filter((_, i) => SETTLES_TO[batch.outcomes[i].kind] === 'done');
  const failed = batch.claims.filter((_, i) => SETTLES_TO[batch.outcomes[i].kind] !== 'done');
  for (const m of failed) s.index.entries.delete(tagDigits(m.row.record.キー));
  const rowsNow = (s.appended?.first ?? 0) - 2 + verified.length;
  if (failed.length > 0 || rowsNow !== s.index.sheetRows) {
    s.index.sheetRows = rowsNow;
    s.cells = saveIndex(ports.index, s.index, s.cells);
  } else ports.index.countCopies(s.index);
  if (failed.length > 0) messages.push(ARCHIVE_MSG.notVerified(failed.length));
  const now = ports.ledger.read();
  const fresh = indexByKey(parseLedger(now).rows);
  const remove = new Set<number>();
  let edited = 0;
  for (const { row } of verified) {
    const at = fresh.get(row.record.キー) ?? [];
    if (at.length === 1 && rowForm(now[at[0].rowNumber - 1]) === rowForm(s.grid[row.rowNumber - 1]))
      remove.add(at[0].rowNumber - 1);
    else edited += 1;
  }
  const deletion = ports.ledger.deleteRows(now, remove, s.keyCol);
  s.after = deletion.after;
  s.moved = remove.size;
  if (edited > 0) messages.push(ARCHIVE_MSG.editedMeanwhile(edited));
  if (deletion.putBack > 0) messages.push(ARCHIVE_MSG.putBack(deletion.putBack));
}

/** The move as the skeleton's job: the steps above, over a lock the caller already holds. */
function archiveJob(
  ports: ArchiveMovePorts,
  s: MoveState,
  cutoff: string,
  now: string,
  messages: string[],
): ExactlyOnceJob<Move, ReadBack, never> {
  let claimed = false;
  return {
    lock: ports.lock,
    recover: () => recover(ports, s, messages),
    look: () => look(ports, s, cutoff),
    // One batch per run: the plan is bounded by ARCHIVE_ROWS_PER_RUN, the rest go next run.
    room: () => (claimed ? 0 : ARCHIVE_ROWS_PER_RUN),
    lockedPhase(batch) {
      if (batch) {
        settle(ports, s, batch, messages);
        return { kind: 'nothing' };
      }
      const rows = s.plan?.move ?? [];
      if (rows.length === 0) return { kind: 'nothing' };
      claimed = true;
      return { kind: 'claimed', claims: claim(ports, s, rows, now) };
    },
    // The batch's copies in one append, read back in one call; each act then only compares.
    startActs(claims) {
      s.appended = s.archive.appendAndReadBack(
        claims.map((m) => m.copy),
        s.header.length,
      );
    },
    // No time budget: the move is a few Sheets calls, all under the one lock.
    outOfTime: () => false,
    act(m) {
      const back = s.appended?.back[m.at];
      const readBack = !!back && sameCells(s.header, m.copy, back);
      return { kind: copyOutcome(readBack), answer: readBack };
    },
    notActed: () => false,
  };
}

/**
 * One archive run: rows older than `cutoff` move, at `now` (their アーカイブ日時). Call it under the script
 * lock (ports.lock is that lock, already held). A refusal (the index cannot be trusted, 重複点検's headers
 * unreadable) moves nothing.
 */
export function moveOldRows(ports: ArchiveMovePorts, cutoff: string, now: string): ArchivePass {
  const messages: string[] = [];
  // The index and the archive sheet as one whole (issue 25): with the index gone, unreadable or cut
  // short, the settle would take archived rows for leftovers and delete them.
  const read = ports.index.read();
  if (read.trouble) return { refused: troubleMessage(read.trouble), moved: 0, messages };
  const first = ports.ledger.read();
  const firstTable = parseLedger(first);
  const gone = ports.watchDoneRows(firstTable);
  if (gone) messages.push(gone);
  const lcols = headerIndex(first[0] ?? []);
  const s: MoveState = {
    index: read.index,
    cells: read.cells,
    archive: ports.openArchive(first[0] ?? []),
    keyCol: lcols.get('キー') ?? 0,
    lcols,
    first,
    firstTable,
    grid: first,
    table: firstTable,
    tags: null,
    doubled: { mf: 0, csv: 0 },
    plan: null,
    header: [],
    appended: null,
    moved: 0,
    after: first,
  };
  const end = runExactlyOnce(archiveJob(ports, s, cutoff, now, messages));
  if (end.kind === 'refused') return { refused: end.message, moved: 0, messages };
  if (end.kind === 'busy') throw new Error('古い行のアーカイブ: the lock the run holds was found busy');
  // 5. The counts the guards compare with: 台帳 + archive, as they are now; the run is finished.
  ports.index.finish(s.index);
  ports.recordCounts(s.after === s.grid ? s.table : parseLedger(s.after), s.doubled);
  const total = countsOf(s.index).rows;
  messages.unshift(s.moved > 0 ? ARCHIVE_MSG.moved(s.moved, cutoff, total) : ARCHIVE_MSG.none(cutoff));
  const plan = s.plan;
  if (plan && plan.held > 0) messages.push(ARCHIVE_MSG.deletionInFlight(plan.held));
  if (plan && plan.deferred > 0) messages.push(ARCHIVE_MSG.deferred(plan.deferred));
  return { moved: s.moved, messages };
}
