/**
 * Time budget of one execution. Apps Script kills an execution at 6 minutes with no cleanup, so
 * every limit below leaves room for the slowest thing that can still be in flight.
 */

/** Apps Script's hard limit (reference/gas-platform.md §4.1). */
export const EXECUTION_LIMIT_MS = 6 * 60_000;

/** Stop claiming new rows at 4.5 minutes: a claimed chunk still has to be sent and settled. */
export const STOP_CLAIMING_AT_MS = 4.5 * 60_000;

/**
 * Start no new send after 5 minutes: one UrlFetch can take ~60 s to time out, and the settle write
 * (lock wait, one read, a few writes, flush) must still finish before 6 minutes.
 */
export const STOP_SENDING_AT_MS = 5 * 60_000;

/** MF allows about 3 requests per second per token (reference/mf-api.md §9): 350 ms apart. */
export const MF_MIN_INTERVAL_MS = 350;

/** What one send costs on average (spacing plus round trip), to size claim chunks. */
export const SEND_ESTIMATE_MS = 450;

/**
 * A 送信中 row whose 更新日時 is older than this belongs to no live execution (10 min > the 6-minute
 * limit plus clock skew), so the reconciler may look it up.
 */
export const LEASE_MS = 10 * 60_000;

/** How long a menu run waits for the script lock before telling the person another run is busy. */
export const LOCK_WAIT_MS = 30_000;

/** Rows to claim now: what fits in the time left before STOP_SENDING_AT_MS, within the batch limit. */
export function claimChunk(elapsedMs: number, remainingLimit: number): number {
  if (elapsedMs >= STOP_CLAIMING_AT_MS) return 0;
  const fits = Math.floor((STOP_SENDING_AT_MS - elapsedMs) / SEND_ESTIMATE_MS);
  return Math.max(0, Math.min(remainingLimit, fits));
}
