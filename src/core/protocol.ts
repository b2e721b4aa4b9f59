/**
 * The posting protocol as one visible loop (DESIGN §5): claim under the lock → flush → release →
 * send → settle under the lock, in chunks, until the batch limit or the time budget is reached.
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

function claimPhase(
  input: PostingInput,
  limit: number,
  first: boolean,
): Exclude<ClaimOutcome, { kind: 'busy' }> {
  const now = input.clock.iso();
  const table = input.ledger.read();
  const refused = first && input.plan ? input.plan.changed(table) : null;
  if (refused) return { kind: 'refused', message: refused };
  const planned = applyOperations(table.rows, input.masters, input.who, now);
  const afterOps = applyChanges(table, planned);
  const guards = [...guardDuplicateKeys(afterOps.rows, now), ...guardKeys(afterOps.rows, now)];
  const afterGuards = applyChanges(afterOps, guards);
  const claim = planClaim(afterGuards.rows, limit, now, input.plan?.keys);
  const written = input.ledger.write(
    table,
    merge([...planned, ...guards, ...(SAFETY.claimBeforeSend ? claim.changes : [])]),
    { yieldRows: true },
  );
  // A row a person edited since the read is neither claimed nor changed: the next claim sees their input.
  const held = new Set((written?.withheld ?? []).map((c) => c.rowNumber));
  const operations = planned.filter((o) => !held.has(o.rowNumber));
  if (operations.length > 0) input.onOperations?.(table.rows, operations);
  const claimed = claim.claimed.filter((c) => !held.has(c.rowNumber));
  const waiting = afterGuards.rows.filter((r) => r.record.状態 === '送信待ち').length;
  const done = {
    operations: operations.length,
    guarded: guards.filter((g) => !held.has(g.rowNumber)).length,
  };
  return claimed.length === 0 ? { kind: 'nothing', ...done } : { kind: 'claimed', claimed, waiting, ...done };
}

/** Phase 1 as a step of the loop: under the lock, or busy. */
function claimUnderLock(input: PostingInput, limit: number, first: boolean): ClaimOutcome {
  return underLock(input.lock, () => claimPhase(input, limit, first))?.value ?? { kind: 'busy' };
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

/** Phase 3, under the lock: re-locate each row by key and write every outcome in one batch. */
function settlePhase(input: PostingInput, claimed: readonly Claimed[], results: readonly SendResult[]): void {
  const now = input.clock.iso();
  const table = input.ledger.read();
  const located = relocate(table.rows, claimed);
  const changes: RowChange[] = [];
  claimed.forEach((c, i) => {
    const row = located.get(c.key);
    if (row) changes.push({ key: c.key, rowNumber: row.rowNumber, patch: settlePatch(c, results[i], now) });
  });
  input.ledger.write(table, changes);
}

/** Phase 3 as a step of the loop: settled, or busy (our rows stay 送信中 until reconcile looks). */
function settleUnderLock(
  input: PostingInput,
  claimed: readonly Claimed[],
  results: readonly SendResult[],
): 'settled' | 'busy' {
  return underLock(input.lock, () => settlePhase(input, claimed, results)) ? 'settled' : 'busy';
}

/** Counts one chunk's send results into the summary (the one place the outcomes are counted). */
function tally(summary: PostingSummary, results: readonly SendResult[]): void {
  summary.posted += count(results, 'created', 'found');
  summary.unknown += count(results, 'unknown');
  summary.failed += count(results, 'rejected');
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
  for (;;) {
    const size = claimChunk(input.clock.now() - input.startedAt, input.batchLimit - summary.claimed);
    if (size === 0) {
      summary.stoppedBy = summary.claimed >= input.batchLimit ? 'limit' : 'time';
      break;
    }
    const claim = claimUnderLock(input, size, summary.claimed === 0);
    if (claim.kind === 'busy') {
      summary.busy = summary.claimed === 0;
      summary.stoppedBy = 'lock';
      break;
    }
    if (claim.kind === 'refused') {
      summary.stoppedBy = 'plan-changed';
      summary.messages.push(claim.message);
      break;
    }
    summary.operations += claim.operations;
    summary.needsReview += claim.guarded;
    if (claim.kind === 'nothing') break;
    if (summary.claimed === 0) total = Math.min(claim.waiting, input.batchLimit);
    summary.claimed += claim.claimed.length;

    const sent = sendPhase(input, claim.claimed);
    if (settleUnderLock(input, claim.claimed, sent.results) === 'busy') {
      summary.messages.push(PROTOCOL_MSG.lockLostBeforeSettle);
      summary.stoppedBy = 'lock';
      break;
    }
    tally(summary, sent.results);
    input.progress?.(summary.claimed - summary.returned, total);
    if (sent.stoppedBy) {
      summary.stoppedBy = sent.stoppedBy;
      summary.authMessage = sent.authMessage;
      break;
    }
    if (claim.claimed.length < size) break;
  }
  return summary;
}
