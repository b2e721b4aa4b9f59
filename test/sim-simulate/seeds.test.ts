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
    // Every value of every MF switch the seeds vary ran (sim/gas/README.md, table of unknowns).
    for (const label of [
      'second journalize duplicates',
      'second journalize refused',
      'refusal generic',
      'refusal invented',
      'transaction_id as-listed',
      'transaction_id lowercase-hex',
      'journalize tags kept',
      'journalize tags dropped',
      'lag 0',
      'lag 1-9 min',
      'lag 21-29 min, 照合猶予 raised',
      // インボイス区分 (sim/simulate/invoice.ts): both offices, and purchases held to their 区分.
      'office 原則課税',
      'office 簡易課税',
      'purchase journals held to their 区分',
    ]) {
      assert.ok((summary.mf[label] ?? 0) > 0, `no CI seed ran "${label}"`);
    }
    assert.ok((summary.people.インボイス ?? 0) > 0, 'no CI seed had a person fill the インボイス column');
    // People on the newer sheets (sim/simulate/newer.ts, DEFAULT_NEWER_ACTS): every act ran somewhere.
    for (const act of [
      'delete-index',
      'mf-copy',
      'mf-delete-kept',
      'dup-paste',
      'dup-move',
      'dup-delete',
      'balance-type',
      'balance-rename',
    ])
      assert.ok((summary.people[act] ?? 0) > 0, `no CI seed had a person do ${act}`);
    for (const fault of ['429', '429 (no Retry-After)', '5xx-after-commit', '5xx-before-commit'])
      assert.ok((summary.faults[fault] ?? 0) > 0, `no CI seed injected ${fault}`);
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
