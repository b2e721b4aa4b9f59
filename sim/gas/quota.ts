/**
 * Daily quotas per account (reference/gas-platform.md §4.2, §6): UrlFetch calls and the total runtime
 * of trigger executions, with Apps Script's messages. The account kind (consumer / Workspace) is per
 * user. When a day ends is a switch (README "Switches": quotaReset): Google documents a rolling reset
 * 24 h after the first request; the issue asks for the Tokyo calendar day; the product must be right
 * under both.
 */
export type AccountKind = 'consumer' | 'workspace';
export type QuotaReset = 'rolling-24h' | 'tokyo-midnight';
export type QuotaName = 'urlfetch' | 'triggerRuntimeMs';

export const DAILY_LIMITS: Record<AccountKind, Record<QuotaName, number>> = {
  consumer: { urlfetch: 20_000, triggerRuntimeMs: 90 * 60_000 },
  workspace: { urlfetch: 100_000, triggerRuntimeMs: 6 * 60 * 60_000 },
};

const DAY_MS = 24 * 60 * 60_000;
const TOKYO_OFFSET_MS = 9 * 60 * 60_000;

interface Window {
  /** When this quota day began (first request for rolling; Tokyo midnight otherwise). */
  start: number;
  used: Record<QuotaName, number>;
}

export class QuotaTable {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly accounts: Record<string, AccountKind>,
    readonly reset: QuotaReset,
  ) {}

  kind(user: string): AccountKind {
    return this.accounts[user] ?? 'consumer';
  }

  limit(user: string, name: QuotaName): number {
    return DAILY_LIMITS[this.kind(user)][name];
  }

  /** The user's current quota day, starting a new one when the last has ended. */
  private window(user: string, now: number): Window {
    const w = this.windows.get(user);
    const start =
      this.reset === 'tokyo-midnight'
        ? Math.floor((now + TOKYO_OFFSET_MS) / DAY_MS) * DAY_MS - TOKYO_OFFSET_MS
        : w && now < w.start + DAY_MS
          ? w.start
          : now;
    if (w && w.start === start) return w;
    const fresh: Window = { start, used: { urlfetch: 0, triggerRuntimeMs: 0 } };
    this.windows.set(user, fresh);
    return fresh;
  }

  used(user: string, name: QuotaName, now: number): number {
    return this.window(user, now).used[name];
  }

  /** What is left today (negative when over). */
  left(user: string, name: QuotaName, now: number): number {
    return this.limit(user, name) - this.used(user, name, now);
  }

  /** Counts usage (tests also use it to say "this account already used N today"). */
  use(user: string, name: QuotaName, amount: number, now: number): void {
    this.window(user, now).used[name] += amount;
  }
}
