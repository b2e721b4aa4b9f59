/**
 * One office's whole day in the emulator (issue 18): the built bundle, 初期設定 with 自動実行 オン, and
 * then nothing but the clock — every time-driven trigger kicho installed (the schedule every 照合間隔,
 * the nightly backup) fires as Apps Script would fire it, until Tokyo midnight. The lines are in MF when
 * the day begins (a month-end burst: the case that would spend the quota first). Google's daily quotas
 * are the emulator's (sim/gas/quota.ts): a run past them is ended with Google's message, as on the real
 * service. Figures are modelled (virtual time), not wall time.
 */
import { performance } from 'node:perf_hooks';
import { Emulator } from '../gas/index';
import type { QuotaReset } from '../gas/quota';
import {
  attachMf,
  countState,
  datasetWithNone,
  fillExistingRows,
  noneIds,
  type Outcome,
  OWNER,
  outcome,
  setSetting,
  setupBenchOffice,
  sheet,
} from './world';

export interface DayOptions {
  lines: number;
  /** 台帳 rows already there (posted earlier). */
  existing?: number;
  intervalMinutes: 5 | 10 | 15 | 30;
  batchLimit?: number;
  /** Trigger minutes and UrlFetch calls the account already spent today before the first run. */
  spentBefore?: { minutes: number; fetches: number };
  quotaReset?: QuotaReset;
  /** When the runs begin (default DAY_START, just after midnight); the day always ends at midnight. */
  startAt?: string;
  bundleDir: string;
}

export interface DayRun {
  at: string;
  handler: string;
  status: string;
  virtualMs: number;
  fetches: number;
  /** The run's ログ message, as a person reads it. */
  message: string;
}

export interface DayResult {
  runs: DayRun[];
  /** What the account spent on this day (the emulator's quota table, this day's window). */
  triggerMinutes: number;
  fetches: number;
  /** Runs Google ended for a daily quota. */
  quotaStops: number;
  /** When the last line was posted (Tokyo time), or null when some are left. */
  lastPostedAt: string | null;
  outcome: Outcome;
  leftWaiting: number;
  leftSending: number;
  wallSeconds: number;
}

/** The day begins just after Tokyo midnight (a Monday), and ends at the next. */
export const DAY_START = '2026-11-30T00:00:30+09:00';
const DAY_END = Date.parse('2026-12-01T00:00:00+09:00');

function tokyo(ms: number): string {
  return new Date(ms + 9 * 3_600_000).toISOString().slice(11, 16);
}

export function runDay(o: DayOptions): DayResult {
  const t0 = performance.now();
  const dataset = datasetWithNone(o.lines);
  const emu = new Emulator({
    bundleDir: o.bundleDir,
    owner: OWNER,
    start: o.startAt ?? DAY_START,
    quotaReset: o.quotaReset ?? 'tokyo-midnight',
  });
  const mf = attachMf(emu, dataset);
  setupBenchOffice(emu, {
    '1回の送信上限': String(o.batchLimit ?? 1000),
    '照合間隔（分）': String(o.intervalMinutes),
    自動実行: 'オン',
  });
  // 初期設定 again: the schedule trigger at the chosen interval.
  const setup = emu.run('setup', { kind: 'menu', user: OWNER });
  if (setup.status !== 'ok') throw new Error(`setup failed: ${JSON.stringify(setup.error)}`);
  if (o.existing) fillExistingRows(sheet(emu, '台帳'), o.existing, dataset);
  setSetting(emu, '自動実行', 'オン');
  const now = emu.world.clock.now();
  if (o.spentBefore) {
    // Spent by kicho's own earlier runs today: Google's table and kicho's usage record (user property) both.
    const ms = o.spentBefore.minutes * 60_000;
    emu.world.quotas.use(OWNER, 'triggerRuntimeMs', ms, now);
    emu.world.quotas.use(OWNER, 'urlfetch', o.spentBefore.fetches, now);
    const day = new Date(now + 9 * 3_600_000).toISOString().slice(0, 10);
    const usage = { day, runs: 10, triggerMs: ms, fetches: o.spentBefore.fetches };
    emu.world.properties.store('user', OWNER).set('KICHO_USAGE', JSON.stringify(usage));
  }

  const runs: DayRun[] = [];
  let lastPostedAt: string | null = null;
  let waiting = Number.POSITIVE_INFINITY;
  // A minute at a time, so the 台帳 can be looked at after each run (advanceTo fires all that fall due).
  for (let t = emu.world.clock.now() + 60_000; t < DAY_END; t = Math.min(DAY_END - 1, t + 60_000)) {
    for (const fired of emu.advanceTo(t)) {
      const r = fired.result;
      const value = r.value as { messages?: string[] } | undefined;
      const error = r.error ? `${r.error.name}: ${r.error.message}` : '';
      runs.push({
        at: tokyo(r.startedAt),
        handler: fired.handler,
        status: r.status,
        virtualMs: r.endedAt - r.startedAt,
        fetches: r.counters.urlFetches,
        message: error || (value?.messages ?? []).join(' ').slice(0, 300),
      });
    }
    const left = countState(emu, '送信待ち') + countState(emu, '未判定');
    if (left === 0 && waiting > 0 && countState(emu, '完了') > 0) lastPostedAt = tokyo(emu.world.clock.now());
    waiting = left;
    if (t === DAY_END - 1) break;
  }
  const end = DAY_END - 1;
  return {
    runs,
    triggerMinutes: emu.world.quotas.used(OWNER, 'triggerRuntimeMs', end) / 60_000,
    fetches: emu.world.quotas.used(OWNER, 'urlfetch', end),
    quotaStops: runs.filter((r) => /too much computer time|too many times for one day/.test(r.message))
      .length,
    lastPostedAt: waiting === 0 ? lastPostedAt : null,
    outcome: outcome(emu, mf, noneIds(dataset)),
    leftWaiting: countState(emu, '送信待ち'),
    leftSending: countState(emu, '送信中'),
    wallSeconds: (performance.now() - t0) / 1000,
  };
}
