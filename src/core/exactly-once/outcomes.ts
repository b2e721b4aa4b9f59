/**
 * The exactly-once skeleton's state model (skeleton.ts runs the loop): the states an item passes
 * through, what each kind of answer settles it to, what may be claimed and what recovery looks up.
 * Kept apart from the loop so an instance's row logic (posting.ts) can use it without the ports.
 */
import { SAFETY } from '../safety';

/**
 * An item's state in the skeleton's terms; each instance names its own (posting: 送信待ち, 送信中, 完了,
 * 失敗 or 要確認, 不明). `failed`: the effect did not happen and is not tried again until a person says so.
 */
export type ClaimState = 'open' | 'claimed' | 'done' | 'failed' | 'unknown';

/** What one act's answer means, whatever the instance's words for it. */
export type OutcomeKind =
  /** The effect is there (made now, or found already made: posting's found, deletion's 404). */
  | 'done'
  /** The other side (or kicho's own check) refused: nothing happened, a person decides. */
  | 'rejected'
  /** It may have happened (timeout, 5xx): only a lookup decides, so it is never acted on again before. */
  | 'unknown'
  /** It never reached the other side (429, a stop, the time budget): the claim goes back to open. */
  | 'returned';

/** Where a settle moves a claim, by its outcome. An unknown never goes back to open here: only recovery does. */
export const SETTLES_TO: Readonly<Record<OutcomeKind, ClaimState>> = {
  done: 'done',
  rejected: 'failed',
  unknown: 'unknown',
  returned: 'open',
};

/**
 * Only an open item may be claimed: a claimed or unknown one may already have reached the other side
 * (null: a state the instance does not know, such as a cell a person cleared — never claimed).
 */
export function claimable(state: ClaimState | null): boolean {
  return state === 'open';
}

/** What recovery looks up: an unknown answer, or a claim whose execution is gone (older than the lease). */
export function recoverable(state: ClaimState | null, claimedAgeMs: number, leaseMs: number): boolean {
  // Test build skeleton-no-recovery (safety.ts): nothing is ever looked up.
  if (!SAFETY.recovery) return false;
  return state === 'unknown' || (state === 'claimed' && !(claimedAgeMs < leaseMs));
}
