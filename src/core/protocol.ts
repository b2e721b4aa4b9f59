/**
 * Posting (DESIGN §5) as an instance of the exactly-once skeleton (exactly-once/skeleton.ts, which owns
 * the loop, the lock sections, the stops and the budget's checks). What is particular to posting, in the
 * order a run meets it:
 *   1. settleAndClaim — one lock section: the batch just sent settled by key, people's 操作, the key
 *      guards, and 送信待ち rows claimed as 送信中 (one read, one write)
 *   2. send — outside the lock: one POST per claimed row, its answer sorted into an outcome kind
 *   3. postingJob — the two above as the skeleton's job, counting into the summary
 *   4. postApproved — runs it and says why the run ended
 * Which rows to claim and what each answer writes on its row are in posting.ts; the ports hide Apps Script.
 */
import { guardArchivedKeys } from './archive';
import { claimChunk, STOP_SENDING_AT_MS } from './budget';
import {
  type Acted,
  type Batch,
  type ExactlyOnceJob,
  type RunEnd,
  runExactlyOnce,
} from './exactly-once/skeleton';
import { guardKeys } from './key-check';
import { applyChanges, type LedgerRow, type LedgerTable, merge, type RowChange } from './ledger';
import type { Masters } from './masters';
import { applyOperations } from './operations';
import type { ClockPort, LedgerPort, LockPort, SenderPort } from './ports';
import {
  type Claimed,
  guardDuplicateKeys,
  outcomeKind,
  planClaim,
  relocate,
  type SendResult,
  settlePatch,
} from './posting';
import { type AwaitingLookup, awaitingLookup } from './reconcile';
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
  /** Whether a key is archived (the key index): such a 送信待ち row is never claimed (DESIGN §9.8). */
  archived?: (key: string) => boolean;
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
  /** Rows left to 照合 as the first lock section read them (no row of this run is among them). */
  awaiting?: AwaitingLookup;
  messages: string[];
}

export const PROTOCOL_MSG = {
  authStopped: 'MFの認証に失敗したため中断',
  refusedStopped: 'Google が送信を止めたため中断',
  timeStopped: '実行時間の上限が近いため',
  lockLostBeforeSettle: '結果の書き込み前に別の実行がロックを持っていました。送信中の行は後で照合します。',
} as const;

/** An answer that stops the run: MF refused our authentication, or Apps Script refused to send. */
type PostStop = Extract<SendResult, { kind: 'unauthorized' | 'refused' }>;

/** A batch of claimed rows with their send results, as the skeleton hands it to the next lock section. */
type Sent = Batch<Claimed, SendResult, PostStop>;

/** What one lock section did besides settling (the skeleton's section, with posting's counts). */
type Claim =
  /** The 台帳 no longer gives the plan the person confirmed: nothing claimed. */
  | { kind: 'refused'; message: string }
  /** 操作 and guards written; no row to send. */
  | { kind: 'nothing'; operations: number; guarded: number }
  | { kind: 'claimed'; claimed: Claimed[]; operations: number; guarded: number; waiting: number };

/** The settle's changes: each row re-located by key (people may have sorted while we sent). */
function settleChanges(table: LedgerTable, sent: Sent, now: string): RowChange[] {
  const located = relocate(table.rows, sent.claims);
  const changes: RowChange[] = [];
  sent.claims.forEach((c, i) => {
    const row = located.get(c.key);
    if (row)
      changes.push({
        key: c.key,
        rowNumber: row.rowNumber,
        patch: settlePatch(c, sent.outcomes[i].answer, now),
      });
  });
  return changes;
}

/**
 * 1. The fused settle-and-claim section, under the lock: settle the batch just sent (if any), then — when
 * `limit` > 0 — apply pending 操作, the guards and claim the next batch, all from one read and in one
 * write. The settle's outcomes are always written (never held back for a person's edit); only the
 * claim's rows yield to people.
 */
function settleAndClaim(
  input: PostingInput,
  limit: number,
  first: boolean,
  sent: Sent | null,
  seen?: (table: LedgerTable) => void,
): Claim {
  const now = input.clock.iso();
  const table = input.ledger.read();
  seen?.(table);
  const settled = sent ? settleChanges(table, sent, now) : [];
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
  const guards = [
    ...guardDuplicateKeys(afterOps.rows, now),
    ...guardKeys(afterOps.rows, now),
    ...guardArchivedKeys(afterOps.rows, now, input.archived),
  ].filter(notSettled);
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

/** 2. One send, outside the lock. An auth failure or Apps Script's refusal stops the run. */
function send(input: PostingInput, c: Claimed): Acted<SendResult, PostStop> {
  const result = input.sender.send(c);
  // MF asked us to slow down: back off before the next send (the row itself returns to 送信待ち).
  if (result.kind === 'rate-limited') input.clock.sleep(result.retryAfterMs ?? 1000);
  const stop = result.kind === 'unauthorized' || result.kind === 'refused' ? result : undefined;
  return { kind: outcomeKind(result), answer: result, stop };
}

/** Why a claimed row was not sent: the time budget, or an earlier answer that stopped the run. */
const NOT_SENT = {
  time: PROTOCOL_MSG.timeStopped,
  unauthorized: PROTOCOL_MSG.authStopped,
  refused: PROTOCOL_MSG.refusedStopped,
} as const;

/** Counts one batch's send results into the summary (the one place the outcomes are counted). */
function tally(summary: PostingSummary, outcomes: Sent['outcomes']): void {
  const results = outcomes.map((o) => o.answer);
  const count = (...kinds: SendResult['kind'][]) => results.filter((r) => kinds.includes(r.kind)).length;
  summary.posted += count('created', 'found');
  summary.unknown += count('unknown');
  summary.failed += count('rejected', 'stopped');
  summary.returned += count('rate-limited', 'unauthorized', 'not-sent', 'refused');
  summary.needsReview += count('invalid');
  const refused = results.find((r) => r.kind === 'refused');
  if (refused?.kind === 'refused') summary.messages.push(refused.reason);
}

/** 3. Posting as the skeleton's job: the phases above, with what each section and batch adds to the summary. */
function postingJob(
  input: PostingInput,
  summary: PostingSummary,
): ExactlyOnceJob<Claimed, SendResult, PostStop> {
  const elapsed = () => input.clock.now() - input.startedAt;
  let total = 0;
  return {
    lock: input.lock,
    room: () => claimChunk(elapsed(), input.batchLimit - summary.claimed),
    lockedPhase(sent, room) {
      // The first read, before this run claims anything: every 送信中 row then is another run's (or a killed one's).
      const seen = summary.awaiting
        ? undefined
        : (table: LedgerTable) => {
            summary.awaiting = awaitingLookup(table.rows, input.clock.now());
          };
      const claim = settleAndClaim(input, room, summary.claimed === 0, sent, seen);
      if (claim.kind === 'refused') return claim;
      summary.operations += claim.operations;
      summary.needsReview += claim.guarded;
      if (claim.kind === 'nothing') return claim;
      if (summary.claimed === 0) total = Math.min(claim.waiting, input.batchLimit);
      return { kind: 'claimed', claims: claim.claimed };
    },
    startActs(claimed) {
      summary.claimed += claimed.length;
      input.sender.prepare?.(claimed);
    },
    outOfTime: () => elapsed() >= STOP_SENDING_AT_MS,
    act: (c) => send(input, c),
    notActed: (_c, why) => ({
      kind: 'not-sent',
      reason: NOT_SENT[why.kind === 'time' ? 'time' : why.answer.kind],
    }),
    settled(sent) {
      tally(summary, sent.outcomes);
      // The rows sent so far (the batch just claimed is counted only once its acts begin).
      input.progress?.(summary.claimed - summary.returned, total);
    },
  };
}

/** Why the run ended, in the summary's words. */
function ending(summary: PostingSummary, end: RunEnd<PostStop>, batchLimit: number): void {
  switch (end.kind) {
    case 'done':
      return;
    case 'budget':
      if (end.spent === 'time') {
        summary.stoppedBy = 'time';
        summary.authMessage = undefined;
      } else summary.stoppedBy = summary.claimed >= batchLimit ? 'limit' : 'time';
      return;
    case 'busy':
      if (end.unsettled) summary.messages.push(PROTOCOL_MSG.lockLostBeforeSettle);
      summary.busy = summary.claimed === 0;
      summary.stoppedBy = 'lock';
      return;
    case 'refused':
      summary.stoppedBy = 'plan-changed';
      summary.messages.push(end.message);
      return;
    case 'stopped':
      summary.stoppedBy = end.by.kind;
      summary.authMessage = end.by.kind === 'unauthorized' ? end.by.message : undefined;
      return;
  }
}

/** 4. The run: claim, send and settle in batches until none is left, the budget is spent, or a stop. */
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
  ending(summary, runExactlyOnce(postingJob(input, summary)), input.batchLimit);
  return summary;
}
