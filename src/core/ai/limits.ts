/**
 * How much AI 判定 one run and one day may do, and when a run stops calling. Requests cost money
 * and a provider's rate limit is shared by every run, so the caps are counted per request sent.
 */
import { LOCK_WAIT_MS } from '../budget';

/**
 * No new AI request after 4 minutes of the execution: one request can take up to ~60 s to time
 * out (reference/gas-platform.md §3.2), and the write-back must still wait for the lock (up to
 * LOCK_WAIT_MS) and write before Apps Script kills the execution at 6 minutes.
 */
export const AI_STOP_CALLING_AT_MS = 6 * 60_000 - 60_000 - LOCK_WAIT_MS - 30_000;

/** Consecutive 5xx or timeouts after which the provider is left alone for the rest of the run. */
export const AI_FAILURE_BURST = 2;

/**
 * A row being judged carries this メモ, so an overlapping run does not send it again. After
 * AI_CLAIM_LEASE_MS the claim belongs to no live execution (longer than the 6-minute limit).
 */
export const AI_CLAIM_PREFIX = 'AI判定中';
export const AI_CLAIM_LEASE_MS = 10 * 60_000;

export function claimMemo(now: string): string {
  return `${AI_CLAIM_PREFIX}（${now}）`;
}

/** True while a live execution may still be judging the row. */
export function claimedByLiveRun(memo: string, updatedAt: string, nowMs: number): boolean {
  if (!memo.startsWith(AI_CLAIM_PREFIX)) return false;
  const at = Date.parse(updatedAt);
  return Number.isFinite(at) && nowMs - at < AI_CLAIM_LEASE_MS;
}

/** The Asia/Tokyo calendar date (Japan has no daylight saving: a fixed +9 hours). */
export function tokyoDate(ms: number): string {
  return new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);
}

/** Requests sent today, from the stored `{"day":"yyyy-MM-dd","count":n}` (another day counts 0). */
export function usedToday(stored: string | null, day: string): number {
  if (!stored) return 0;
  try {
    const v = JSON.parse(stored) as { day?: unknown; count?: unknown };
    return v.day === day && typeof v.count === 'number' && v.count > 0 ? Math.floor(v.count) : 0;
  } catch (_e) {
    return 0;
  }
}

export function usageText(day: string, count: number): string {
  return JSON.stringify({ day, count: Math.max(0, count) });
}

/** Requests this run may send. */
export function allowance(perRun: number, perDay: number, used: number, wanted: number): number {
  return Math.max(0, Math.min(perRun, perDay - used, wanted));
}
