/**
 * What the schedule costs a day against the Google account's daily quotas (reference/gas-platform.md
 * §6): 90 minutes of trigger runtime and 20,000 UrlFetch calls for a consumer account, 6 hours and
 * 100,000 for Workspace. Google resets them about 24 h after the first use, not at midnight, so the
 * usage kicho keeps per Tokyo day is an estimate and the thresholds below leave room for that.
 */

export type AccountKind = 'consumer' | 'workspace';

export const DAILY_QUOTA: Record<AccountKind, { triggerMinutes: number; fetches: number }> = {
  consumer: { triggerMinutes: 90, fetches: 20_000 },
  workspace: { triggerMinutes: 360, fetches: 100_000 },
};

export interface RunCost {
  seconds: number;
  fetches: number;
}

/**
 * One scheduled run when there is little to do, measured in the emulator (自動実行 オフ: 1.0 s, 0
 * fetches; オン: 3.5 s, 2.3 fetches on average) plus about 2 s for Apps Script to start the script.
 */
export const DEFAULT_RUN_COST: Record<'off' | 'on', RunCost> = {
  off: { seconds: 3, fetches: 1 },
  on: { seconds: 6, fetches: 3 },
};

export interface DailyPlan {
  intervalMinutes: number;
  autoRun: boolean;
  runsPerDay: number;
  perRun: RunCost;
  /** Whether perRun comes from this account's own runs today. */
  measured: boolean;
  minutes: number;
  fetches: number;
  limitMinutes: number;
  limitFetches: number;
  fits: boolean;
  /** Plain Japanese, one line. */
  text: string;
}

/**
 * kicho cannot tell a Workspace account from a consumer one, so it plans with the consumer quota:
 * a Workspace account has more room, never less.
 */
export const PLANNING_KIND: AccountKind = 'consumer';

export const WORKSPACE_NOTE = 'Google Workspace のアカウントなら上限は 1日 6 時間・100,000 回です。';

/** Runs use at most this share of a quota: the rest is for menu runs and the reset's uncertainty. */
export const PLAN_SHARE = 0.8;

export function dailyPlan(input: {
  intervalMinutes: number;
  autoRun: boolean;
  kind: AccountKind;
  measured?: RunCost | null;
}): DailyPlan {
  const runsPerDay = Math.floor((24 * 60) / input.intervalMinutes);
  const fallback = DEFAULT_RUN_COST[input.autoRun ? 'on' : 'off'];
  const perRun = input.measured ?? fallback;
  const minutes = (runsPerDay * perRun.seconds) / 60;
  const fetches = Math.ceil(runsPerDay * perRun.fetches);
  const limit = DAILY_QUOTA[input.kind];
  const fits = minutes <= limit.triggerMinutes * PLAN_SHARE && fetches <= limit.fetches * PLAN_SHARE;
  const head = `${input.intervalMinutes} 分ごと（1日 ${runsPerDay} 回）・自動実行${input.autoRun ? 'オン' : 'オフ'}: 1日あたり実行時間 約 ${Math.ceil(minutes)} 分（上限 ${limit.triggerMinutes} 分）、外部接続 約 ${fetches.toLocaleString('en-US')} 回（上限 ${limit.fetches.toLocaleString('en-US')} 回）`;
  const basis = input.measured
    ? `（1回 約 ${perRun.seconds.toFixed(1)} 秒・${perRun.fetches.toFixed(1)} 回の実績から）`
    : '（1回の目安から）';
  const tail = fits
    ? '。上限に収まります。'
    : '。1日の上限を超えるおそれがあります。照合間隔を長くするか、自動実行をオフにしてください。上限に近づくと定期実行は照合だけ、または休みにします。';
  return {
    intervalMinutes: input.intervalMinutes,
    autoRun: input.autoRun,
    runsPerDay,
    perRun,
    measured: !!input.measured,
    minutes,
    fetches,
    limitMinutes: limit.triggerMinutes,
    limitFetches: limit.fetches,
    fits,
    text: `${head}${basis}${tail}`,
  };
}

/** What this account used today (Tokyo day), kept by kicho itself. */
export interface DailyUsage {
  day: string;
  runs: number;
  triggerMs: number;
  fetches: number;
}

export function usageFor(raw: string | null, day: string): DailyUsage {
  try {
    const u = JSON.parse(raw ?? '') as Partial<DailyUsage>;
    if (u && u.day === day) {
      return {
        day,
        runs: Number(u.runs) || 0,
        triggerMs: Number(u.triggerMs) || 0,
        fetches: Number(u.fetches) || 0,
      };
    }
  } catch {
    // No record yet, or an unreadable one: start the day afresh.
  }
  return { day, runs: 0, triggerMs: 0, fetches: 0 };
}

/** The average scheduled run today, once there are a few to go by. */
export function measuredCost(u: DailyUsage): RunCost | null {
  if (u.runs < 3) return null;
  return { seconds: u.triggerMs / u.runs / 1000, fetches: u.fetches / u.runs };
}

/**
 * What one more line costs a day, all in (import, classify, the send at MF's pace, the settle), from the
 * bench's 1日の割り当て table: 6.0–6.5 trigger minutes and 1,008–1,012 UrlFetch calls per 1,000 lines.
 * Rounded up, so a slice sized from them leaves room rather than runs short.
 */
export const LINE_COST = { ms: 420, fetches: 1.05 } as const;

/** The rest of today (Tokyo day), for sizing this run's slice. */
export interface DayRest {
  /** Minutes from now to Tokyo midnight. */
  minutesLeft: number;
  /** The schedule's interval (照合間隔). */
  intervalMinutes: number;
}

export interface ScheduledBudget {
  mode: 'full' | 'reconcile-only' | 'skip';
  /**
   * The most lines this run may post (null: no cap beyond 1回の送信上限): what today's quota has left
   * after keeping, for every scheduled run still to come today, what a reconcile-only run costs.
   */
  postLimit: number | null;
  message: string;
}

/** Scheduled runs still to come today after this one. */
export function runsLeftToday(rest: DayRest): number {
  return Math.max(0, Math.floor(rest.minutesLeft / Math.max(1, rest.intervalMinutes)));
}

/**
 * How much a scheduled run may do given today's usage: everything, reconcile only (it protects rows
 * whose outcome is unknown), or nothing — before Google stops the run halfway. With `rest`, the work is
 * spread over the day: a run posts only what leaves every later run of today its reconcile, so a burst
 * of lines in the morning cannot use up the quota the evening's reconciles need.
 */
export function scheduledBudget(u: DailyUsage, kind: AccountKind, rest?: DayRest): ScheduledBudget {
  const limit = DAILY_QUOTA[kind];
  const runtimeShare = u.triggerMs / (limit.triggerMinutes * 60_000);
  const fetchShare = u.fetches / limit.fetches;
  const share = Math.max(runtimeShare, fetchShare);
  const used = `今日の定期実行は 実行時間 約 ${Math.round(u.triggerMs / 60_000)} 分 / ${limit.triggerMinutes} 分、外部接続 ${u.fetches} 回 / ${limit.fetches} 回`;
  if (share >= 0.95) {
    return {
      mode: 'skip',
      postLimit: 0,
      message: `${used} に達したため、この回は休みました（Google の1日の上限の手前で止めています）。上限が戻ると再開します。照合間隔を長くすると防げます。`,
    };
  }
  if (share >= PLAN_SHARE) {
    return {
      mode: 'reconcile-only',
      postLimit: 0,
      message: `${used} を使ったため、この回は照合だけ行い、取込・判定・登録は休みました。照合間隔を長くすると防げます。`,
    };
  }
  if (!rest) return { mode: 'full', postLimit: null, message: '' };
  const later = runsLeftToday(rest);
  const reserve = DEFAULT_RUN_COST.off;
  const msLeft = limit.triggerMinutes * 60_000 * PLAN_SHARE - u.triggerMs - later * reserve.seconds * 1000;
  const fetchesLeft = limit.fetches * PLAN_SHARE - u.fetches - later * reserve.fetches;
  const lines = Math.max(0, Math.floor(Math.min(msLeft / LINE_COST.ms, fetchesLeft / LINE_COST.fetches)));
  const keep = `今日の残りの定期実行 ${later} 回の照合の分を残すため`;
  if (lines === 0) {
    return {
      mode: 'reconcile-only',
      postLimit: 0,
      message: `${used} を使いました。${keep}、この回は照合だけ行い、取込・判定・登録は明日にしました。`,
    };
  }
  return {
    mode: 'full',
    postLimit: lines,
    message: `${used}。${keep}、この回の登録は ${lines.toLocaleString('en-US')} 件までにします（残りは次の回か明日に登録します）。`,
  };
}

export function addRun(u: DailyUsage, ms: number, fetches: number): DailyUsage {
  return {
    ...u,
    runs: u.runs + 1,
    triggerMs: u.triggerMs + Math.max(0, ms),
    fetches: u.fetches + Math.max(0, fetches),
  };
}

export const INTERVALS = [5, 10, 15, 30] as const;

/** Every 照合間隔 × 自動実行 the 設定 dialog can choose, so it can show the cost as the person changes them. */
export function allPlans(
  kind: AccountKind,
  measured: { on: RunCost | null; off: RunCost | null },
): DailyPlan[] {
  const out: DailyPlan[] = [];
  for (const intervalMinutes of INTERVALS)
    for (const autoRun of [true, false])
      out.push(dailyPlan({ intervalMinutes, autoRun, kind, measured: autoRun ? measured.on : measured.off }));
  return out;
}
