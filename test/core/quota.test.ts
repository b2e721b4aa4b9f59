/** The daily cost of a schedule against the account's quotas, and how much a run may do today. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addRun, dailyPlan, measuredCost, scheduledBudget, usageFor } from '../../src/core/quota';

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
