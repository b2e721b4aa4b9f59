/**
 * What 重複を削除 (deletion.ts) runs over: the 重複点検 sheet, MF's journals and their DELETE, the clock, and
 * the 台帳 — each a port the app fills with Apps Script and the MF client, and a unit test with fakes.
 */
import type { ClockPort, LedgerPort, LockPort } from '../ports';
import type { AuditJournal } from './facts';
import type { RecordProblem, RecordView } from './record';
import type { DuplicateRecord, DuplicateTable } from './sheet';

/** One change to the 重複点検 row holding a journal. */
export interface DuplicateChange {
  journalId: string;
  rowNumber: number;
  patch: Partial<DuplicateRecord>;
}

export interface DuplicateSheetPort {
  read(): DuplicateTable;
  write(table: DuplicateTable, changes: readonly DuplicateChange[]): void;
}

/** What became of one DELETE, in the core's terms (the app maps MF's answers and Apps Script's refusals). */
export type DeleteResult =
  | { kind: 'deleted' }
  | { kind: 'absent' }
  | { kind: 'rejected'; explanation: string }
  | { kind: 'rate-limited'; retryAfterMs: number | null }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'unknown'; reason: string }
  /** Apps Script refused to send it (quota, permission): nothing left. */
  | { kind: 'not-sent'; reason: string };

/** Dates yyyy-MM-dd, both ends included. */
export interface DateWindow {
  start: string;
  end: string;
}

export interface DeleterPort {
  /** The journal as MF has it now, or null when MF has no such id. Throws when MF cannot be asked. */
  journal(id: string): AuditJournal | null;
  /**
   * The journals dated inside `windows` whose decoded id is in `wanted` (one listing per window and
   * accounting period, paged). Throws when MF cannot be asked.
   */
  journalsIn(windows: readonly DateWindow[], wanted: ReadonlySet<string>): Map<string, AuditJournal>;
  deleteJournal(id: string): DeleteResult;
}

export interface DeletionClock extends ClockPort {
  /** Now as people read it in the script's time zone (yyyy-MM-dd HH:mm). */
  stamp(): string;
}

export interface DeletionInput {
  sheet: DuplicateSheetPort;
  ledger: LedgerPort;
  lock: LockPort;
  deleter: DeleterPort;
  clock: DeletionClock;
  /** The last audit's record (record.ts), read afresh each time it is asked. */
  record: () => RecordView | RecordProblem;
  who: string;
  startedAt: number;
  digest: (text: string) => string;
  leaseMs?: number;
  /**
   * The キー of a row moved to 台帳アーカイブ whose MF仕訳ID is this journal, or null. Such a journal is not
   * deleted: only the 台帳 is settled after a delete, so the archived row would go on naming a journal MF
   * no longer has. Throws when the archive cannot be read (then nothing is deleted).
   */
  archivedHolder?: (journal: AuditJournal) => string | null;
}
