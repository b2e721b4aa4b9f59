/**
 * The posting protocol as one visible loop (DESIGN §5): claim under the lock → flush → release →
 * send → settle under the lock, in chunks, until the batch limit or the time budget is reached. The
 * settle of one chunk and the claim of the next share one lock section (one read, one write).
 * Each phase is a named function with an explicit result; the ports hide Apps Script.
 */
import { claimChunk, STOP_SENDING_AT_MS } from './budget';
import { guardKeys } from './key-check';
import { applyChanges, type LedgerRow, type LedgerTable, merge, type RowChange } from './ledger';
import type { Masters } from './masters';
import { applyOperations } from './operations';
import { type ClockPort, type LedgerPort, type LockPort, type SenderPort, underLock } from './ports';
import {
  type Claimed,
  guardDuplicateKeys,
  planClaim,
  relocate,
  type SendResult,
  settlePatch,
} from './posting';
import { SAFETY } from './safety';

export interface PostingInput {
  ledger: LedgerPort;
  lock: LockPort;
  sender: SenderPort;
  clock: ClockPort;
  masters: Masters;
  who: string;
  /** When the execution started (Apps Script has no API for it: the handler records it on entry). */
  startedAt: number;
  batchLimit: number;
  /**
   * Set when a person runs the plan a dry run showed: the first claim checks, under the lock, that the
   * 台帳 still gives the same plan (a message when not: nothing is claimed), and only its keys are sent.
   */
  plan?: { keys: ReadonlySet<string>; changed(table: LedgerTable): string | null };
  /** Told after each settled chunk: rows sent so far, and how many were waiting when the run began. */
  progress?(sent: number, total: number): void;
  /** Sees the 操作 applied at each claim (rows as read): rule learning needs the approvals. */
  onOperations?(rows: readonly LedgerRow[], operations: readonly RowChange[]): void;
}

export interface PostingSummary {
  busy: boolean;
  claimed: number;
  posted: number;
  unknown: number;
  failed: number;
  returned: number;
  needsReview: number;
  operations: number;
  stoppedBy: 'done' | 'limit' | 'time' | 'unauthorized' | 'refused' | 'lock' | 'plan-changed';
  /** MF's (or the client's) words when authentication failed mid-run. */
  authMessage?: string;
  messages: string[];
}

export const PROTOCOL_MSG = {
  authStopped: 'MFの認証に失敗したため中断',
  refusedStopped: 'Google が送信を止めたため中断',
  timeStopped: '実行時間の上限が近いため',
  lockLostBeforeSettle: '結果の書き込み前に別の実行がロックを持っていました。送信中の行は後で照合します。',
} as const;

function count(results: readonly SendResult[], ...kinds: SendResult['kind'][]): number {
  return results.filter((r) => kinds.includes(r.kind)).length;
}

/** Phase 1, under the lock: pending 操作, the duplicate-key guard, then the claim. */
type ClaimOutcome =
  /** Another run holds the lock. */
  | { kind: 'busy' }
  /** The 台帳 no longer gives the plan the person confirmed: nothing claimed. */
  | { kind: 'refused'; message: string }
  /** 操作 and guards written; no row to send. */
  | { kind: 'nothing'; operations: number; guarded: number }
  | { kind: 'claimed'; claimed: Claimed[]; operations: number; guarded: number; waiting: number };

/** The previous chunk's outcomes, settled in the same lock as the next claim (one read, one write). */
interface Settle {
  claimed: readonly Claimed[];
  results: readonly SendResult[];
}

/** Phase 3's changes: re-locate each row by key (people may have sorted while we sent). */
function settleChanges(table: LedgerTable, settle: Settle, now: string): RowChange[] {
  const located = relocate(table.rows, settle.claimed);
  const changes: RowChange[] = [];
  settle.claimed.forEach((c, i) => {
    const row = located.get(c.key);
    if (row)
      changes.push({ key: c.key, rowNumber: row.rowNumber, patch: settlePatch(c, settle.results[i], now) });
  });
  return changes;
}

/**
 * One lock section: settle the chunk just sent (if any), then — when `limit` > 0 — apply pending 操作,
 * the guards and claim the next chunk, all from one read and in one write. The settle's outcomes are
 * always written (never held back for a person's edit); only the claim's rows yield to people.
 */
function lockedPhase(
  input: PostingInput,
  limit: number,
  first: boolean,
  settle: Settle | null,
): Exclude<ClaimOutcome, { kind: 'busy' }> {
  const now = input.clock.iso();
  const table = input.ledger.read();
  const settled = settle ? settleChanges(table, settle, now) : [];
  if (limit === 0) {
    input.ledger.write(table, settled);
    return { kind: 'nothing', operations: 0, guarded: 0 };
  }
  const refused = first && input.plan ? input.plan.changed(table) : null;
  if (refused) return { kind: 'refused', message: refused };
  // A row just settled is left to the next section (a change merged with its outcome could be held
  // back for a person's edit, and the outcome with it): its outcome is written whatever a person typed.
  const settledRows = new Set(settled.map((c) => c.rowNumber));
  const notSettled = (c: { rowNumber: number }) => !settledRows.has(c.rowNumber);
  const afterSettle = applyChanges(table, settled);
  const planned = applyOperations(afterSettle.rows, input.masters, input.who, now).filter(notSettled);
  const afterOps = applyChanges(afterSettle, planned);
  const guards = [...guardDuplicateKeys(afterOps.rows, now), ...guardKeys(afterOps.rows, now)].filter(
    notSettled,
  );
  const afterGuards = applyChanges(afterOps, guards);
  const planAll = planClaim(afterGuards.rows, limit + settledRows.size, now, input.plan?.keys);
  const claim = {
    claimed: planAll.claimed.filter(notSettled).slice(0, limit),
    changes: planAll.changes.filter(notSettled).slice(0, limit),
  };
  const yielding = merge([...planned, ...guards, ...(SAFETY.claimBeforeSend ? claim.changes : [])]);
  const written = input.ledger.write(table, merge([...settled, ...yielding]), {
    yieldRows: settled.length === 0 ? true : notSettled,
  });
  // A row a person edited since the read is neither claimed nor changed: the next claim sees their input.
  const held = new Set((written?.withheld ?? []).map((c) => c.rowNumber));
  const operations = planned.filter((o) => !held.has(o.rowNumber));
  if (operations.length > 0) input.onOperations?.(afterSettle.rows, operations);
  const claimed = claim.claimed.filter((c) => !held.has(c.rowNumber));
  const waiting = afterGuards.rows.filter((r) => r.record.状態 === '送信待ち').length;
  const done = {
    operations: operations.length,
    guarded: guards.filter((g) => !held.has(g.rowNumber)).length,
  };
  return claimed.length === 0 ? { kind: 'nothing', ...done } : { kind: 'claimed', claimed, waiting, ...done };
}

/** A lock section as a step of the loop: done under the lock, or busy. */
function underLockPhase(
  input: PostingInput,
  limit: number,
  first: boolean,
  settle: Settle | null,
): ClaimOutcome {
  return underLock(input.lock, () => lockedPhase(input, limit, first, settle))?.value ?? { kind: 'busy' };
}

/** Phase 2, outside the lock: one send per claimed row, stopping early on auth failure or time. */
function sendPhase(
  input: PostingInput,
  claimed: readonly Claimed[],
): { results: SendResult[]; stoppedBy?: 'unauthorized' | 'refused' | 'time'; authMessage?: string } {
  const results: SendResult[] = [];
  let stoppedBy: 'unauthorized' | 'refused' | 'time' | undefined;
  let authMessage: string | undefined;
  input.sender.prepare?.(claimed);
  for (const c of claimed) {
    if (stoppedBy === 'unauthorized') {
      results.push({ kind: 'not-sent', reason: PROTOCOL_MSG.authStopped });
      continue;
    }
    if (stoppedBy === 'refused') {
      results.push({ kind: 'not-sent', reason: PROTOCOL_MSG.refusedStopped });
      continue;
    }
    if (input.clock.now() - input.startedAt >= STOP_SENDING_AT_MS) {
      stoppedBy = 'time';
      results.push({ kind: 'not-sent', reason: PROTOCOL_MSG.timeStopped });
      continue;
    }
    const result = input.sender.send(c);
    results.push(result);
    if (result.kind === 'unauthorized') {
      stoppedBy = 'unauthorized';
      authMessage = result.message;
    }
    if (result.kind === 'refused') stoppedBy = 'refused';
    // MF asked us to slow down: back off before the next send (the row itself returns to 送信待ち).
    if (result.kind === 'rate-limited') input.clock.sleep(result.retryAfterMs ?? 1000);
  }
  return { results, stoppedBy, authMessage };
}

/** Counts one chunk's send results into the summary (the one place the outcomes are counted). */
function tally(summary: PostingSummary, results: readonly SendResult[]): void {
  summary.posted += count(results, 'created', 'found');
  summary.unknown += count(results, 'unknown');
  summary.failed += count(results, 'rejected', 'stopped');
  summary.returned += count(results, 'rate-limited', 'unauthorized', 'not-sent', 'refused');
  summary.needsReview += count(results, 'invalid');
  const refused = results.find((r) => r.kind === 'refused');
  if (refused?.kind === 'refused') summary.messages.push(refused.reason);
}

export function postApproved(input: PostingInput): PostingSummary {
  const summary: PostingSummary = {
    busy: false,
    claimed: 0,
    posted: 0,
    unknown: 0,
    failed: 0,
    returned: 0,
    needsReview: 0,
    operations: 0,
    stoppedBy: 'done',
    messages: [],
  };
  let total = 0;
  let settle: Settle | null = null;
  let sentStop: ReturnType<typeof sendPhase> | null = null;
  let lastSize = 0;
  for (;;) {
    // Whether to claim another chunk in this section: not after a stop, a short chunk or the budget.
    const size =
      sentStop?.stoppedBy || (settle && settle.claimed.length < lastSize)
        ? 0
        : claimChunk(input.clock.now() - input.startedAt, input.batchLimit - summary.claimed);
    if (size === 0 && !settle) {
      summary.stoppedBy = summary.claimed >= input.batchLimit ? 'limit' : 'time';
      break;
    }
    const claim = underLockPhase(input, size, summary.claimed === 0, settle);
    if (claim.kind === 'busy') {
      if (settle) summary.messages.push(PROTOCOL_MSG.lockLostBeforeSettle);
      summary.busy = summary.claimed === 0;
      summary.stoppedBy = 'lock';
      break;
    }
    if (settle && sentStop) {
      tally(summary, sentStop.results);
      input.progress?.(summary.claimed - summary.returned, total);
      if (sentStop.stoppedBy) {
        summary.stoppedBy = sentStop.stoppedBy;
        summary.authMessage = sentStop.authMessage;
        break;
      }
    }
    if (claim.kind === 'refused') {
      summary.stoppedBy = 'plan-changed';
      summary.messages.push(claim.message);
      break;
    }
    summary.operations += claim.operations;
    summary.needsReview += claim.guarded;
    if (size === 0 && settle) {
      // Settled the last chunk without claiming: why no further chunk was claimed.
      if (settle.claimed.length >= lastSize)
        summary.stoppedBy = summary.claimed >= input.batchLimit ? 'limit' : 'time';
      break;
    }
    if (claim.kind === 'nothing') break;
    if (summary.claimed === 0) total = Math.min(claim.waiting, input.batchLimit);
    summary.claimed += claim.claimed.length;
    lastSize = size;
    sentStop = sendPhase(input, claim.claimed);
    settle = { claimed: claim.claimed, results: sentStop.results };
  }
  return summary;
}
