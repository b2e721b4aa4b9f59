/**
 * Issue 14's cases the simulation found, kept by name (sim/simulate/regressions.ts) and run on the real
 * bundle: a person typing into rows while classify writes them (the generator's seeds 90097 and 90143
 * before issue 14 added acts, and 957032 after issue 18 made classify quicker; people act inside the
 * lock), and the 台帳 deleted while MF's listings lag
 * behind two posts. The builds without the mechanism that fixed each fail them (test/sim-simulate/mutants.test.ts).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { WorkerPool } from '../../sim/gas/interleave';
import { bundleDirOf } from '../../sim/simulate/mutants';
import {
  LEDGER_DELETED_WHILE_MF_LAGS,
  TYPED_DURING_CLASSIFY_90097,
  TYPED_DURING_CLASSIFY_90143,
  TYPED_DURING_CLASSIFY_957032,
} from '../../sim/simulate/regressions';
import { runScenario } from '../../sim/simulate/run';

const pool = new WorkerPool();
after(() => pool.close());

for (const [name, scenario] of [
  ['90097: the rule’s 勘定科目 would go over the person’s', TYPED_DURING_CLASSIFY_90097],
  ['90143: a column write spanning the row would put back what it read', TYPED_DURING_CLASSIFY_90143],
  ['957032: the window again after issue 18’s narrow reads', TYPED_DURING_CLASSIFY_957032],
] as const) {
  test(`a person approving a row while classify writes keeps what they typed (${name})`, () => {
    const outcome = runScenario(scenario, {
      bundleDir: bundleDirOf(),
      pool,
      trace: true,
      peopleAnytime: true,
    });
    assert.deepEqual(outcome.violations, [], outcome.trace.join('\n'));
  });
}

test('the 台帳 deleted while MF’s listings lag: what was posted is found again, never posted twice', () => {
  const outcome = runScenario(LEDGER_DELETED_WHILE_MF_LAGS, { bundleDir: bundleDirOf(), pool, trace: true });
  assert.deepEqual(outcome.violations, [], outcome.trace.join('\n'));
  assert.ok(
    outcome.trace.some((l) => l.includes('不明')),
    'the lines came back 不明',
  );
});
