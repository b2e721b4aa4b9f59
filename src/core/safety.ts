/**
 * The safety mechanisms of the posting protocol and the exactly-once skeleton (DESIGN §5), each switchable for one reason only:
 * the simulation's test builds (`webpack --env mutant=NAME` → dist-mutants/NAME) turn one off to show
 * that the simulation catches its absence (sim/simulate, test/sim-simulate). Every real build has all of them
 * on: webpack defines __KICHO_MUTANT__ as '' and nothing else sets it.
 */
declare const __KICHO_MUTANT__: string | undefined;

const MUTANT = typeof __KICHO_MUTANT__ === 'string' ? __KICHO_MUTANT__ : '';

export const SAFETY = {
  /** The script lock is taken around every read-modify-write of the 台帳. */
  scriptLock: MUTANT !== 'no-lock',
  /** SpreadsheetApp.flush() before the lock is released. */
  flushBeforeRelease: MUTANT !== 'no-flush',
  /** Rows are written 送信中 (claimed) under the lock before they are sent. */
  claimBeforeSend: MUTANT !== 'no-claim',
  /** A 不明 row is never sent again without a lookup in MF. */
  lookupBeforeResend: MUTANT !== 'resend-unknown',
  /** A row not found in MF is sent again only after 照合猶予 (listings may lag). */
  gracePeriod: MUTANT !== 'no-grace',
  /**
   * After a 台帳 write, the キー column is read back and rows a person moved meanwhile are repaired.
   * The read-back flushes too, so the no-flush build turns it off as well (or it would test nothing).
   */
  reorderCheck: MUTANT !== 'no-reorder-check' && MUTANT !== 'no-flush',
  /**
   * People-owned cells are read once more right before they are written, and a row a person typed
   * into meanwhile keeps their input (its change is held back). The re-read flushes and sees moved rows
   * too, so the builds without the flush or the reorder check turn it off as well.
   */
  yieldToPeople: MUTANT !== 'no-people-yield' && MUTANT !== 'no-reorder-check' && MUTANT !== 'no-flush',
  /** Claims are remembered for the lease plus 照合猶予; a line that comes back in that time comes back 不明. */
  recentSends: MUTANT !== 'no-recent-sends',
  // The exactly-once skeleton's own pieces (exactly-once/), shared by posting and duplicate deletion:
  /** A batch's acts start only after the lock section that claimed it returned (its writes flushed). */
  actsAfterFlush: MUTANT !== 'skeleton-act-in-lock',
  /** An unknown answer settles as unknown, never back to open (only a lookup decides). */
  unknownStaysUnknown: MUTANT !== 'skeleton-unknown-reopens',
  /** Stale claims and unknown answers are recovered (looked up): `recoverable` and a run's recover step. */
  recovery: MUTANT !== 'skeleton-no-recovery',
  /** A batch an answer or the time budget stopped is still settled. */
  settleAfterStop: MUTANT !== 'skeleton-no-settle-after-stop',
} as const;
