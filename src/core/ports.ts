/**
 * Every port kicho's logic talks through, in one file: the 台帳, the script lock, the MF sender, the
 * reconciler's lookup, the clock, HTTP and a small key-value store. src/gas implements them over Apps
 * Script; unit tests and the simulation implement them in memory. Pure: no Apps Script here.
 */
import type { LedgerRecord, LedgerTable, RowChange } from './ledger';
import type { Claimed, SendResult } from './posting';

export interface LedgerPort {
  /** One read of the whole 台帳. */
  read(): LedgerTable;
  /**
   * Writes the changes (re-located by the caller) in as few calls as possible. With `yieldRows`, the
   * change of a row a person edited since the read is held back and returned (never sent on stale input);
   * as a predicate, only the changes it accepts yield (a settled outcome never does).
   */
  write(
    table: LedgerTable,
    changes: readonly RowChange[],
    options?: { yieldRows?: boolean | ((change: RowChange) => boolean) },
  ): { withheld: readonly RowChange[] } | undefined;
}

export interface LockPort {
  /** Takes the script lock (retrying LockService's transient errors); false if another run holds it. */
  acquire(): boolean;
  /** Flushes pending sheet writes, then releases: nothing we wrote stays invisible to the next holder. */
  flushAndRelease(): void;
}

/**
 * Runs `fn` under `lock`, then flushes and releases (also when `fn` throws). Returns null, without
 * running `fn`, when another run holds the lock.
 */
export function underLock<T>(lock: LockPort, fn: () => T): { value: T } | null {
  if (!lock.acquire()) return null;
  try {
    return { value: fn() };
  } finally {
    lock.flushAndRelease();
  }
}

export interface SenderPort {
  /** Told each chunk before its first send (the MF sender fetches MF's own lines for the chunk). */
  prepare?(claimed: readonly Claimed[]): void;
  send(claimed: Claimed): SendResult;
}

/** A row reconcile asks MF about (不明, 送信中 or a stray state). */
export interface ReconcileCandidate {
  key: string;
  rowNumber: number;
  record: LedgerRecord;
}

/** What MF says about one candidate. */
export type LookupResult =
  | { kind: 'found'; journalId: string }
  /** No journal, and the line is still 未仕訳 in MF (or, for CSV, no journal carries the tag). */
  | { kind: 'absent' }
  /** MF marks the line journalized but the journal is not listed yet (listing lag): wait. */
  | { kind: 'pending' }
  /** Someone set the line to 対象外 in MF: nothing to post, a person decides. */
  | { kind: 'excluded' }
  /** The row's 取引日 is in none of the office's accounting periods: MF cannot be asked (DESIGN §5). */
  | { kind: 'outside-period' }
  /** MF lists no such line (near the row's 取引日 nor in the import window): a person changed the row, or MF removed the line. */
  | { kind: 'missing' };

/** The reconciler's view of MF: called outside the lock, once per reconcile, for all candidates. */
export interface LookupPort {
  /** One result per candidate (keyed by the candidate: rows whose key was cleared share the key ''). */
  lookUp(candidates: readonly ReconcileCandidate[]): ReadonlyMap<ReconcileCandidate, LookupResult>;
}

/** Time: Apps Script has no setTimeout, so waiting is a port too. */
export interface ClockPort {
  now(): number;
  sleep(ms: number): void;
  /** Now as an ISO timestamp (the 台帳's 更新日時). */
  iso(): string;
}

export interface HttpRequest {
  method: 'get' | 'post' | 'put' | 'delete';
  url: string;
  headers: Record<string, string>;
  /** JSON text or form-encoded text. */
  payload?: string;
  contentType?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request whose outcome is unknown (timeout, connection failure): the server may have acted on it. */
export class HttpTransportError extends Error {
  constructor(
    readonly reason: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'HttpTransportError';
  }
}

/**
 * Apps Script refused the request before anything left (a permission not granted, the day's UrlFetch
 * calls or bandwidth spent): the server never saw it, so it is safe to send again later. `message` is
 * Japanese and quotes nothing from the request.
 */
export class HttpNotSentError extends Error {
  constructor(
    readonly reason: 'permission' | 'quota' | 'bandwidth',
    message: string,
  ) {
    super(message);
    this.name = 'HttpNotSentError';
  }
}

/** Sends one request; HTTP error statuses are returned, transport failures throw HttpTransportError. */
export interface HttpPort {
  send(request: HttpRequest): HttpResponse;
}

/** A small string store (Apps Script properties) for cached tokens. */
export interface KeyValuePort {
  get(key: string): string | null;
  set(key: string, value: string): void;
  delete(key: string): void;
}
