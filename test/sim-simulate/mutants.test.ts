/**
 * The simulation can fail: each test build switches one safety mechanism off (src/core/safety.ts,
 * built into dist-mutants/<name>/ here), and the simulation over the CI seed set finds a duplicate
 * journal or a lost line in it. The acceptance cases that target a mechanism fail on its build too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WorkerPool } from '../../sim/gas/interleave';
import { type CaseResult, parallelDuplicate, timeoutThenRetry } from '../../sim/simulate/acceptance';
import { runBatch } from '../../sim/simulate/batch';
import { CI_SEEDS } from '../../sim/simulate/ci';
import { buildMutants, bundleDirOf, MUTANT_DESCRIPTIONS, MUTANTS } from '../../sim/simulate/mutants';
import {
  LEDGER_DELETED_WHILE_MF_LAGS,
  SORT_INSIDE_A_WRITE_THROUGH,
  TYPED_DURING_CLASSIFY_957032,
} from '../../sim/simulate/regressions';
import { runScenario } from '../../sim/simulate/run';

const pool = new WorkerPool();
before(() => buildMutants());
after(() => pool.close());

const duplicates = (r: CaseResult) => Object.values(r.journals).filter((n) => n > 1).length;

describe('the simulation finds what each test build breaks', () => {
  // These need their own shrunk cases below (people acting inside a locked write; the 台帳 deleted
  // while MF lags) rather than the whole CI seed set.
  const ownCase = new Set(['no-reorder-check', 'no-people-yield', 'no-recent-sends']);
  for (const mutant of MUTANTS.filter((m) => !ownCase.has(m))) {
    test(`${mutant} (${MUTANT_DESCRIPTIONS[mutant]}): a duplicate journal or a lost line within the CI seeds`, (t) => {
      const summary = runBatch({ seeds: CI_SEEDS, mutant, stop: true, shrink: false });
      const failing = summary.failing[0];
      assert.ok(failing, `no CI seed caught ${mutant} (${summary.seeds} seeds run)`);
      const kinds = failing.violations.map((v) => v.kind);
      assert.ok(
        kinds.some((k) => ['duplicate-journal', 'lost-line', 'duplicate-row'].includes(k)),
        `seed ${failing.seed} found ${kinds.join(', ')}`,
      );
      t.diagnostic(
        `seed ${failing.seed} (after ${summary.seeds} seeds): ${failing.violations[0].kind}: ${failing.violations[0].detail}`,
      );
    });
  }
});

test('no-reorder-check: a sort inside a locked write puts one line’s cells on another line’s row', () => {
  const outcome = runScenario(SORT_INSIDE_A_WRITE_THROUGH, {
    bundleDir: bundleDirOf('no-reorder-check'),
    pool,
    peopleAnytime: true,
  });
  const kinds = outcome.violations.map((v) => v.kind);
  assert.ok(
    kinds.some((k) => ['duplicate-journal', 'lost-line', 'duplicate-row', 'wrong-journal-id'].includes(k)),
    `found ${kinds.join(', ') || 'nothing'}`,
  );
});

test('no-people-yield: a person approving a row while classify writes loses what they typed', () => {
  const outcome = runScenario(TYPED_DURING_CLASSIFY_957032, {
    bundleDir: bundleDirOf('no-people-yield'),
    pool,
    peopleAnytime: true,
  });
  const kinds = outcome.violations.map((v) => v.kind);
  assert.ok(kinds.includes('overwrote-person'), `found ${kinds.join(', ') || 'nothing'}`);
});

test('no-recent-sends: the 台帳 deleted while MF lags, and the lines are posted a second time', () => {
  const outcome = runScenario(LEDGER_DELETED_WHILE_MF_LAGS, {
    bundleDir: bundleDirOf('no-recent-sends'),
    pool,
  });
  const kinds = outcome.violations.map((v) => v.kind);
  assert.ok(kinds.includes('duplicate-journal'), `found ${kinds.join(', ') || 'nothing'}`);
});

describe('the acceptance cases fail on the builds they target', () => {
  test('parallel duplicate: without the lock, the flush or the claim, two runs post the same lines', () => {
    for (const mutant of ['no-lock', 'no-flush', 'no-claim'] as const) {
      const schedules = [1, 2, 3, 4, 5, 6];
      const found = schedules.filter((s) => duplicates(parallelDuplicate(bundleDirOf(mutant), s, pool)) > 0);
      assert.ok(
        found.length > 0,
        `${mutant}: no interleaving of ${schedules.join(', ')} posted a line twice`,
      );
    }
  });

  test('timeout-then-retry: re-sending 不明 without a lookup, or without the grace period, duplicates', () => {
    assert.ok(duplicates(timeoutThenRetry(bundleDirOf('resend-unknown'))) > 0, 'resend-unknown');
    assert.ok(duplicates(timeoutThenRetry(bundleDirOf('no-grace'), 6)) > 0, 'no-grace');
  });
});
