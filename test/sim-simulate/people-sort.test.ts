/**
 * Found by the simulation with people acting inside a run's locked read–modify–write of the 台帳
 * (`npm run sim -- --seeds 200 --people-anytime`), shrunk by fast-check to three trigger runs:
 * a person sorts the 台帳 between a run's getValues and its setValues; positional writes would land
 * on other rows — classify's 送信待ち for the row a person approved landed on a row already 完了,
 * which the same run then claimed and posted a second time. The writer now checks the キー column
 * after flushing and repairs moved rows (src/core/ledger-repair.ts); the test build without that
 * check (`no-reorder-check`) still posts twice (test/sim-simulate/mutants.test.ts). Seed 91833 found the
 * window again after issue 18's narrow reads (rows the write never read; ledger-repair.ts WriteRepair).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { WorkerPool } from '../../sim/gas/interleave';
import { bundleDirOf } from '../../sim/simulate/mutants';
import {
  SORT_INSIDE_A_LOCKED_WRITE,
  SORT_INSIDE_A_WRITE_THROUGH,
  SORT_UNDER_A_NARROW_WRITE_91833,
} from '../../sim/simulate/regressions';
import { runScenario } from '../../sim/simulate/run';
import { runSeed } from '../../sim/simulate/simulate';

const pool = new WorkerPool();
after(() => pool.close());

test('a person sorting the 台帳 inside a run’s locked read–write does not make it post a line twice', () => {
  const outcome = runScenario(SORT_INSIDE_A_LOCKED_WRITE, {
    bundleDir: bundleDirOf(),
    pool,
    trace: true,
    peopleAnytime: true,
  });
  assert.deepEqual(outcome.violations, [], outcome.trace.join('\n'));
});

test('a sort inside a locked write with writes landing at once: every row keeps its own line (issue 14 bundle)', () => {
  const outcome = runScenario(SORT_INSIDE_A_WRITE_THROUGH, {
    bundleDir: bundleDirOf(),
    pool,
    trace: true,
    peopleAnytime: true,
  });
  assert.deepEqual(outcome.violations, [], outcome.trace.join('\n'));
});

test('seed 91833: rows a narrow write never read, sorted under it, keep no other line’s cells (events not lost)', () => {
  const outcome = runScenario(SORT_UNDER_A_NARROW_WRITE_91833, {
    bundleDir: bundleDirOf(),
    pool,
    trace: true,
    peopleAnytime: true,
  });
  assert.deepEqual(outcome.violations, [], outcome.trace.join('\n'));
  assert.ok(
    outcome.trace.some((l) => l.includes('person: sort')),
    'the person sorted inside the write',
  );
});

test('seed 981564: a person’s slip on a 送信中 row’s キー inside the claim write leaves the row its line’s (not lost)', () => {
  const r = runSeed(981564, { bundleDir: bundleDirOf(), pool, shrink: false, peopleAnytime: true });
  assert.equal(r.error, undefined);
  assert.deepEqual(
    r.violations.map((v) => `${v.kind}: ${v.detail}`),
    [],
  );
});
