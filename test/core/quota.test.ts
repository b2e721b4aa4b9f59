/** The daily cost of a schedule against the account's quotas, and how much a run may do today. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addRun,
  DEFAULT_RUN_COST,
  dailyPlan,
  LINE_COST,
  measuredCost,
  runsLeftToday,
  scheduledBudget,
  usageFor,
} from '../../src/core/quota';

test('runs per day, minutes and fetches per plan; a plan over 80 % of the quota is a warning', () => {
  const five = dailyPlan({ intervalMinutes: 5, autoRun: true, kind: 'consumer' });
  assert.equal(five.runsPerDay, 288);
  assert.equal(five.minutes, (288 * 6) / 60);
  assert.equal(five.fetches, 864);
  assert.equal(five.fits, true);
  const heavy = dailyPlan({
    intervalMinutes: 5,
    autoRun: true,
    kind: 'consumer',
    measured: { seconds: 20, fetches: 3 },
  });
  assert.equal(heavy.minutes, 96);
  assert.equal(heavy.fits, false);
  assert.match(heavy.text, /上限を超えるおそれ/);
  assert.equal(
    dailyPlan({ intervalMinutes: 5, autoRun: true, kind: 'workspace', measured: { seconds: 20, fetches: 3 } })
      .fits,
    true,
  );
});

test('usage is per Tokyo day; a record from another day starts afresh; the average needs 3 runs', () => {
  const u = addRun(addRun(usageFor(null, '2026-12-01'), 4000, 2), 6000, 4);
  assert.deepEqual(u, { day: '2026-12-01', runs: 2, triggerMs: 10_000, fetches: 6 });
  assert.equal(measuredCost(u), null);
  const three = addRun(u, 5000, 3);
  assert.deepEqual(measuredCost(three), { seconds: 5, fetches: 3 });
  assert.equal(usageFor(JSON.stringify(three), '2026-12-02').runs, 0);
  assert.equal(usageFor('{not json', '2026-12-01').runs, 0);
});

test('a run does everything below 80 %, reconciles only from 80 %, skips from 95 % (runtime or fetches)', () => {
  const at = (minutes: number, fetches = 0) => ({ day: 'd', runs: 1, triggerMs: minutes * 60_000, fetches });
  assert.equal(scheduledBudget(at(71), 'consumer').mode, 'full');
  assert.equal(scheduledBudget(at(72), 'consumer').mode, 'reconcile-only');
  assert.equal(scheduledBudget(at(86), 'consumer').mode, 'skip');
  assert.equal(scheduledBudget(at(0, 19_000), 'consumer').mode, 'skip');
  assert.equal(scheduledBudget(at(86), 'workspace').mode, 'full');
});

test('spread over the day: a run posts only what leaves every later run of today its reconcile', () => {
  const at = (minutes: number, fetches = 0) => ({ day: 'd', runs: 1, triggerMs: minutes * 60_000, fetches });
  // Morning, nothing used: the slice is far above what one run can post, so nothing is capped in practice.
  const morning = scheduledBudget(at(0), 'consumer', { minutesLeft: 15 * 60, intervalMinutes: 10 });
  assert.equal(morning.mode, 'full');
  const later = runsLeftToday({ minutesLeft: 15 * 60, intervalMinutes: 10 });
  assert.equal(later, 90);
  const expected = Math.floor((72 * 60_000 - later * DEFAULT_RUN_COST.off.seconds * 1000) / LINE_COST.ms);
  assert.equal(morning.postLimit, expected);
  // 65 minutes used with 90 runs to come: 72 − 65 − 4.5 = 2.5 minutes of work left (~357 lines).
  const tight = scheduledBudget(at(65), 'consumer', { minutesLeft: 15 * 60, intervalMinutes: 10 });
  assert.equal(tight.mode, 'full');
  assert.equal(tight.postLimit, Math.floor((2.5 * 60_000) / LINE_COST.ms));
  assert.match(tight.message, /残りの定期実行 90 回の照合の分を残すため、この回の登録は 357 件までにします/);
  // The same use late in the evening leaves more: fewer runs to keep room for.
  const evening = scheduledBudget(at(65), 'consumer', { minutesLeft: 30, intervalMinutes: 10 });
  assert.ok((evening.postLimit ?? 0) > (tight.postLimit ?? 0));
  // Nothing left after the reserve: reconcile only, and the message says why.
  const none = scheduledBudget(at(68), 'consumer', { minutesLeft: 15 * 60, intervalMinutes: 10 });
  assert.equal(none.mode, 'reconcile-only');
  assert.equal(none.postLimit, 0);
  assert.match(none.message, /この回は照合だけ行い、取込・判定・登録は明日にしました/);
  // Fetches bind too: 15,900 of the 16,000 planned used leaves room for the later runs' reconcile only.
  assert.equal(
    scheduledBudget(at(0, 15_900), 'consumer', { minutesLeft: 15 * 60, intervalMinutes: 10 }).postLimit,
    Math.floor((16_000 - 15_900 - 90 * DEFAULT_RUN_COST.off.fetches) / LINE_COST.fetches),
  );
  // Without the rest of the day (menu runs) there is no cap.
  assert.equal(scheduledBudget(at(0), 'consumer').postLimit, null);
});
