import type { ClockPort } from '../core/ports';

/**
 * MF publishes no number; practitioners assume 3 requests per second per token and space calls 350 ms
 * apart (mf-api.md §9). Spacing (rather than a token bucket) also keeps bursts from one execution away
 * from the limit that other executions share.
 */
export const DEFAULT_MIN_INTERVAL_MS = 350;

/** Longest wait honoured from a Retry-After header: an Apps Script execution has 6 minutes in all. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Spaces the requests of one execution at least `minIntervalMs` apart on the clock port. Executions do
 * not coordinate with each other; MF's 429 (honoured by the client) covers that case.
 */
export class RateLimiter {
  private last: number | null = null;

  constructor(
    private readonly clock: ClockPort,
    readonly minIntervalMs: number = DEFAULT_MIN_INTERVAL_MS,
  ) {}

  /** Sleeps until the next request may go, then books that moment. Call right before sending. */
  acquire(): void {
    if (this.last !== null) {
      const wait = this.last + this.minIntervalMs - this.clock.now();
      if (wait > 0) this.clock.sleep(wait);
    }
    this.last = this.clock.now();
  }
}

/**
 * The wait a `Retry-After` header asks for, in ms, capped at `capMs`; null when the header is absent or
 * unreadable. Header names are matched case-insensitively because UrlFetchApp and Node spell them
 * differently. Both forms of RFC 9110 are read: delta-seconds, and an HTTP-date when `nowMs` is given.
 */
export function retryAfterMs(
  headers: Record<string, string> | null | undefined,
  nowMs?: number,
  capMs: number = MAX_RETRY_AFTER_MS,
): number | null {
  if (!headers) return null;
  let raw: string | undefined;
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === 'retry-after') raw = headers[name];
  }
  if (raw === undefined) return null;
  const text = String(raw).trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Math.ceil(Number(text) * 1000);
  } else {
    const at = Date.parse(text);
    if (Number.isNaN(at) || nowMs === undefined) return null;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, capMs);
}
