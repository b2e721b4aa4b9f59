/**
 * The deterministic simulation over the CI seed set on the real bundle (dist/): overlapping
 * executions, kills, MF and LockService faults, people on the sheet; DESIGN §9's invariants after
 * every step and after a quiet drain. A failing seed is printed with its reproduction command.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, test } from 'node:test';
import { WorkerPool } from '../../sim/gas/interleave';
import { formatSummary, runParallel } from '../../sim/simulate/batch';
import { CI_ANYTIME_SEEDS, CI_SEEDS } from '../../sim/simulate/ci';
import { bundleDirOf } from '../../sim/simulate/mutants';
import { runSeed } from '../../sim/simulate/simulate';

describe('simulation', () => {
  test('a seed reproduces its run exactly', () => {
    const pool = new WorkerPool();
    try {
      const run = () => runSeed(7, { bundleDir: bundleDirOf(), pool, trace: true });
      const a = run();
      const b = run();
      assert.deepEqual(b.trace, a.trace);
      assert.deepEqual(b.stats, a.stats);
    } finally {
      pool.close();
    }
  });

  test(`the CI seed set (${CI_SEEDS.length} seeds) violates no invariant`, async (t) => {
    const jobs = Math.max(2, availableParallelism());
    const summary = await runParallel({ seeds: CI_SEEDS, jobs, shrink: false });
    t.diagnostic(formatSummary(summary).replaceAll('\n', ' | '));
    assert.equal(summary.seeds, CI_SEEDS.length);
    assert.deepEqual(summary.emulatorErrors, []);
    assert.equal(summary.failing.length, 0, formatSummary(summary));
  });

  test(`the CI seeds with people acting inside a run's locked write (${CI_ANYTIME_SEEDS.length} seeds, --people-anytime) violate no invariant`, async (t) => {
    const jobs = Math.max(2, availableParallelism());
    const summary = await runParallel({ seeds: CI_ANYTIME_SEEDS, jobs, shrink: false, peopleAnytime: true });
    t.diagnostic(formatSummary(summary).replaceAll('\n', ' | '));
    assert.equal(summary.seeds, CI_ANYTIME_SEEDS.length);
    assert.deepEqual(summary.emulatorErrors, []);
    assert.equal(summary.failing.length, 0, formatSummary(summary));
  });
});
