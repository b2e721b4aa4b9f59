/**
 * The scheduler over a day in the emulator (issue 18): the built bundle, 自動実行 オン, only the clock —
 * every trigger fires as Apps Script would fire it, and Google's daily quotas are the emulator's. An
 * evening with most of the day's trigger runtime already spent and a burst of lines: each run posts only
 * what leaves the day's later runs their reconcile, so the day ends at kicho's planned share (80 %) of
 * the quota instead of past it; nothing is posted twice and what did not fit waits, 送信待ち, for tomorrow.
 * `npm run bench:day` runs the whole day of 10,000 lines (README 1日の割り当て).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runDay } from '../../sim/bench/day';
import { DAILY_QUOTA, PLAN_SHARE } from '../../src/core/quota';
import { DIST } from '../helpers/emulator';

test('an evening burst with 62 of 90 trigger minutes spent: the runs stop at the planned share, the rest waits', () => {
  const r = runDay({
    lines: 2000,
    intervalMinutes: 10,
    startAt: '2026-11-30T18:00:30+09:00',
    spentBefore: { minutes: 62, fetches: 2_000 },
    bundleDir: DIST,
  });
  const planned = DAILY_QUOTA.consumer.triggerMinutes * PLAN_SHARE;
  assert.equal(r.quotaStops, 0, 'Google ended no run');
  for (const run of r.runs) assert.equal(run.status, 'ok', `${run.at} ${run.handler}: ${run.message}`);
  // Every slot ran (the reconcile protects rows whose outcome is unknown), evening to midnight.
  assert.ok(r.runs.filter((x) => x.handler === 'runScheduled').length >= 35, `${r.runs.length} runs`);
  assert.ok(
    r.triggerMinutes <= planned * 1.015,
    `${r.triggerMinutes.toFixed(1)} trigger minutes > ${planned}`,
  );
  assert.ok(
    r.runs.some((x) => /この回の登録は [\d,]+ 件までにします/.test(x.message)),
    'a run says it posted only its share',
  );
  assert.equal(r.outcome.duplicated, 0);
  assert.equal(r.leftSending, 0);
  assert.ok(r.leftWaiting > 0, 'the lines that did not fit wait for tomorrow');
  assert.equal(r.outcome.exactlyOnce + r.leftWaiting, 2000, 'each line posted once or still 送信待ち');
});
