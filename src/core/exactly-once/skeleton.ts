/**
 * The exactly-once skeleton (DESIGN §5; docs/engineering.md「一度だけ登録する仕組み」). Every effect kicho
 * has on MF that must happen once takes the same four steps, each finding its item by a key that does not
 * move when people sort the sheet:
 *
 *   recover — claims a killed run left (older than the lease) and answers left unknown are looked up in
 *             MF, never acted on again blindly
 *   (look)  — outside the lock, what the claim decides by (deletion: MF's view of the groups)
 *   claim   — under the lock: open items become claimed, written and flushed before the lock is released
 *   act     — outside the lock: one act per claim, its answer sorted into an {@link OutcomeKind}
 *   settle  — under the lock: each claim found again by key and moved to the state its outcome names
 *
 * {@link runExactlyOnce} is the one loop; it settles a batch and claims the next in the same lock section
 * (one read, one write), so it alternates "locked section → acts" until a section claims nothing. An
 * instance says only what is particular to it: posting (protocol.ts) claims 送信待ち rows as 送信中 and
 * POSTs journals; duplicate deletion claims 重複点検 rows as 削除中 and DELETEs them.
 */
import { type LockPort, underLock } from '../ports';
import { SAFETY } from '../safety';
import type { OutcomeKind } from './outcomes';

/** One act's answer `A` as the skeleton sees it: its kind, and whether it stops the run (`S`). */
export interface Acted<A, S> {
  kind: OutcomeKind;
  answer: A;
  stop?: S;
}

/** Why the acts of a batch stopped: an answer said so (auth failed, Apps Script refused), or time ran out. */
export type Stop<S> = { kind: 'answer'; answer: S } | { kind: 'time' };

/** A batch after its acts: one outcome per claim, in order, waiting for its settle. */
export interface Batch<C, A, S> {
  claims: readonly C[];
  outcomes: readonly Acted<A, S>[];
  stop: Stop<S> | null;
}

/** What one locked section did besides settling: claimed (written and flushed), nothing, or refused. */
export type Section<C> =
  /**
   * `claims` may be empty when the section decided outcomes that need no act (deletion: a journal found
   * already gone): the next section settles them, with no act in between.
   */
  | { kind: 'claimed'; claims: readonly C[] }
  | { kind: 'nothing' }
  /** The section found the plan a person confirmed changed: nothing claimed. */
  | { kind: 'refused'; message: string };

/** How a run ended. Every claim of a run is settled, except after `busy` with `unsettled` (left to recovery). */
export type RunEnd<S> =
  /** Nothing (more) to claim. */
  | { kind: 'done' }
  /** `room`: the budget left no room for another claim; `time`: no time for the next act. */
  | { kind: 'budget'; spent: 'room' | 'time' }
  /** Another run held the lock; `unsettled`: the last batch's outcomes were not written (claims stay claimed). */
  | { kind: 'busy'; unsettled: boolean }
  | { kind: 'refused'; message: string }
  /** An answer stopped the run (its batch settled). */
  | { kind: 'stopped'; by: S };

/** What an instance supplies. `C`: a claim; `A`: an act's answer; `S`: an answer that stops the run. */
export interface ExactlyOnceJob<C, A, S> {
  lock: LockPort;
  /** Recovery before anything is claimed (lookups outside the lock, settled under it); 'busy' ends the run. */
  recover?(): 'recovered' | 'busy';
  /**
   * After recovery, before the first lock section: what the claim decides by, asked outside the lock (the
   * section checks again what may have changed). A message ends the run with nothing claimed.
   */
  look?(): string | null;
  /** How many items the next section may claim (0: the budget is spent). Asked only while claiming goes on. */
  room(): number;
  /**
   * One section under the lock: settle `settle` (the previous batch, if any) and, when `room` > 0, claim
   * up to `room` items — from one read, in one write. Returning is the flush: acts start only after it.
   */
  lockedPhase(settle: Batch<C, A, S> | null, room: number): Section<C>;
  /** Told as each batch's acts begin (to count it, or fetch in one call what its acts need). */
  startActs?(claims: readonly C[]): void;
  /** Checked before each act: true when no act may start any more. */
  outOfTime(): boolean;
  /** Acts on one claim, outside the lock, and sorts the answer. */
  act(claim: C): Acted<A, S>;
  /** The answer recorded for a claim not acted on (it settles as returned). */
  notActed(claim: C, why: Stop<S>): A;
  /** Told after a batch's outcomes were written (counts, progress). */
  settled?(batch: Batch<C, A, S>): void;
}

/** The acts of one batch, outside the lock. After a stop the rest are recorded as not acted on. */
function actPhase<C, A, S>(job: ExactlyOnceJob<C, A, S>, claims: readonly C[]): Batch<C, A, S> {
  const outcomes: Acted<A, S>[] = [];
  let stop: Stop<S> | null = null;
  job.startActs?.(claims);
  for (const claim of claims) {
    if (stop?.kind !== 'answer' && job.outOfTime()) stop = { kind: 'time' };
    if (stop) {
      outcomes.push({ kind: 'returned', answer: job.notActed(claim, stop) });
      continue;
    }
    const acted = job.act(claim);
    // Test build skeleton-unknown-reopens (safety.ts): an unknown answer settles as if never acted on.
    if (acted.kind === 'unknown' && !SAFETY.unknownStaysUnknown) {
      outcomes.push({ kind: 'returned', answer: job.notActed(claim, { kind: 'time' }) });
      continue;
    }
    outcomes.push(acted);
    if (acted.stop !== undefined) stop = { kind: 'answer', answer: acted.stop };
  }
  return { claims, outcomes, stop };
}

/**
 * The one loop: recover, then lock sections and batches of acts in turn — each section settles the
 * batch before it and claims the next — until a section claims nothing, the budget is spent, an answer
 * stops the run, or another run holds the lock.
 */
export function runExactlyOnce<C, A, S>(job: ExactlyOnceJob<C, A, S>): RunEnd<S> {
  if (SAFETY.recovery && job.recover?.() === 'busy') return { kind: 'busy', unsettled: false };
  const refused = job.look?.() ?? null;
  if (refused !== null) return { kind: 'refused', message: refused };
  let sent: Batch<C, A, S> | null = null;
  let asked = 0;
  for (;;) {
    const settle: Batch<C, A, S> | null = sent;
    // Room: none after a stop or a short batch (nothing more was open), else what the budget allows.
    const room = settle && (settle.stop || settle.claims.length < asked) ? 0 : job.room();
    if (room === 0 && !settle) return { kind: 'budget', spent: 'room' };
    // Test build skeleton-no-settle-after-stop (safety.ts): a stopped batch is left claimed.
    if (settle?.stop && !SAFETY.settleAfterStop)
      return settle.stop.kind === 'answer'
        ? { kind: 'stopped', by: settle.stop.answer }
        : { kind: 'budget', spent: 'time' };

    // Settle-and-claim: one lock section, flushed before the lock is released.
    const early: { batch?: Batch<C, A, S> } = {};
    const locked = underLock(job.lock, (): Section<C> => {
      const section = job.lockedPhase(settle, room);
      // Test build skeleton-act-in-lock (safety.ts): the acts start before the section is flushed.
      if (!SAFETY.actsAfterFlush && section.kind === 'claimed') early.batch = actPhase(job, section.claims);
      return section;
    });
    if (!locked) return { kind: 'busy', unsettled: settle !== null };
    if (settle) {
      job.settled?.(settle);
      if (settle.stop?.kind === 'answer') return { kind: 'stopped', by: settle.stop.answer };
      if (settle.stop?.kind === 'time') return { kind: 'budget', spent: 'time' };
    }
    const section = locked.value;
    if (section.kind === 'refused') return { kind: 'refused', message: section.message };
    if (settle && room === 0)
      return settle.claims.length < asked ? { kind: 'done' } : { kind: 'budget', spent: 'room' };
    if (section.kind === 'nothing') return { kind: 'done' };

    // Act: outside the lock, only on what the section claimed and flushed.
    asked = room;
    sent = early.batch ?? actPhase(job, section.claims);
  }
}
