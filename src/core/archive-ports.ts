/**
 * What the archive's move (archive-move.ts) runs over: the 台帳 and 台帳アーカイブ as grids, the hidden index
 * アーカイブ索引 with its counts mirror, 重複点検 as read, and the sent-rows counts — each a port src/app fills
 * with Sheets calls (src/gas/archive-sheet.ts) and a unit test with fakes.
 */
import type { ArchivedCounts, ArchiveIndex, IndexTrouble } from './archive';
import type { LedgerTable } from './ledger';
import type { LockPort } from './ports';

export type Grid = unknown[][];

/** What a checked deletion did: rows deleted, rows a sort under it took and that were put back, the sheet after. */
export interface Deletion {
  deleted: number;
  /** Rows a sort under the deletion took by mistake, appended again. */
  putBack: number;
  after: Grid;
}

/**
 * What the counts mirror says: `pending` as given, or as it says now when undefined (a bring-back keeps it);
 * the counts of the index, or `counts` when given (an archive run's intent write keeps the counts of the
 * rows the archive holds, so the sent-rows watch never counts a row on the 台帳 twice).
 */
export interface MirrorMark {
  pending?: boolean;
  counts?: ArchivedCounts;
}

/** A sheet as grid I/O: every cell in one read, and rows deleted in blocks with the sort check. */
export interface GridPort {
  /** Every cell, header row first (one call). */
  read(): Grid;
  /** Deletes rows of `before` (0-based indexes into it) in blocks, then puts back what a sort took. */
  deleteRows(before: Grid, rows: ReadonlySet<number>, keyCol: number): Deletion;
}

/** 台帳アーカイブ: a grid that also tells its last row and takes an append read back. */
export interface ArchiveSheetPort extends GridPort {
  /** The sheet's last row (header included), without reading it. */
  lastRow(): number;
  /** Appends `rows` below the last row in one write, flushes, and reads them back in one call. */
  appendAndReadBack(rows: Grid, width: number): { first: number; back: Grid };
}

/** The hidden index and its counts mirror (script property). */
export interface ArchiveIndexPort {
  /** The index in one read, the cells it takes, and why it cannot be trusted (or null). */
  read(): { index: ArchiveIndex; cells: number; trouble: IndexTrouble | null };
  /** The index in one write (cells beyond it cleared), flushed, then the counts mirrored. */
  write(index: ArchiveIndex, previousCells: number, mark?: MirrorMark): void;
  /** The copies read back: the mirror counts them (the run is still unfinished). */
  countCopies(index: ArchiveIndex): void;
  /** The run finished: the mirror's pending mark goes. */
  finish(index: ArchiveIndex): void;
  /** Whether an earlier run wrote index entries and did not finish (the mirror's pending mark). */
  unfinished(): boolean;
}

/** Sent rows by kind of line, as the sent-rows watch counts them (services/done-rows). */
export interface DoneCounts {
  mf: number;
  csv: number;
}

export interface ArchiveMovePorts {
  /**
   * The skeleton's lock: the script lock the caller already holds for the whole pass (the move has no
   * HTTP call; other runs must not see it half done).
   */
  lock: LockPort;
  index: ArchiveIndexPort;
  ledger: GridPort;
  /** 台帳アーカイブ, created when missing, with the archive's headers and any the 台帳 has beyond ours. */
  openArchive(ledgerHeader: readonly unknown[]): ArchiveSheetPort;
  /** 重複点検 as read (null when there is none), for the rows a delete in flight holds. */
  duplicates(): unknown[][] | null;
  /** The sent-rows watch on the 台帳 as first read: a message when sent rows went missing since. */
  watchDoneRows(table: LedgerTable): string | null;
  /** The counts the guards compare with, from the 台帳 as it is after the run (`doubled`: taken off the mark). */
  recordCounts(table: LedgerTable, doubled: DoneCounts): void;
}
