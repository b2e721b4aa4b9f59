/**
 * The script lock (one mutex for every execution, whoever runs it). LockService sometimes throws a
 * transient "too many LockService operations" error: retried a few times with a short backoff.
 */
import { LOCK_WAIT_MS } from '../core/budget';
import { type LockPort, underLock } from '../core/ports';
import { SAFETY } from '../core/safety';

const TRANSIENT_RETRIES = 3;

export function scriptLock(waitMs: number = LOCK_WAIT_MS): LockPort {
  const lock = LockService.getScriptLock();
  return {
    acquire(): boolean {
      if (!SAFETY.scriptLock) return true;
      for (let attempt = 0; ; attempt++) {
        try {
          return lock.tryLock(waitMs);
        } catch (e) {
          if (attempt >= TRANSIENT_RETRIES) throw e;
          Utilities.sleep(500 * 2 ** attempt);
        }
      }
    },
    flushAndRelease(): void {
      // Google's own advice: flush while still holding the lock, so the next holder reads our writes.
      if (SAFETY.flushBeforeRelease) SpreadsheetApp.flush();
      lock.releaseLock();
    },
  };
}

/** The script lock itself, for 本番前チェック's probe of how it behaves (no retry, no SAFETY switch). */
export function rawScriptLock(): GoogleAppsScript.Lock.Lock {
  return LockService.getScriptLock();
}

/** The message a run shows when another run holds the lock. */
export const BUSY_MESSAGE = '別の実行が進行中です。しばらく待ってからもう一度実行してください。';

/** underLock over the script lock. */
export function underScriptLock<T>(fn: () => T, waitMs: number = LOCK_WAIT_MS): { value: T } | null {
  return underLock(scriptLock(waitMs), fn);
}
