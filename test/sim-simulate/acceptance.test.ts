/**
 * The four named acceptance cases of the idempotency literature on the real bundle (dist/), against a
 * fake MF that would make a second journal if asked twice: each approved line ends with exactly one
 * journal and 完了. (test/sim-simulate/mutants.test.ts shows the same cases fail on the test builds.)
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { WorkerPool } from '../../sim/gas/interleave';
import {
  type CaseResult,
  expiredLease,
  parallelDuplicate,
  sequentialDuplicate,
  timeoutThenRetry,
} from '../../sim/simulate/acceptance';
import { bundleDirOf } from '../../sim/simulate/mutants';

const DIST = bundleDirOf();
const pool = new WorkerPool();
after(() => pool.close());

function exactlyOnce(r: CaseResult): void {
  const why = r.log.join('\n');
  for (const [key, n] of Object.entries(r.journals)) assert.equal(n, 1, `${key}: ${n} journals\n${why}`);
  for (const [key, state] of Object.entries(r.states))
    assert.equal(state, '完了', `${key}: ${state}\n${why}`);
}

describe('idempotency acceptance cases (real bundle)', () => {
  test('sequential duplicate: the same run twice posts each line once', () => {
    const r = sequentialDuplicate(DIST);
    exactlyOnce(r);
    assert.match(r.log[1], /0 件を登録しました/);
  });

  test('parallel duplicate: two overlapping runs post each line once, whatever the interleaving', () => {
    for (let schedule = 1; schedule <= 6; schedule++) exactlyOnce(parallelDuplicate(DIST, schedule, pool));
  });

  test('timeout-then-retry: a committed send whose answer timed out is never sent again', () => {
    exactlyOnce(timeoutThenRetry(DIST));
    // MF lists the new journal only minutes later: the row waits instead of being sent again.
    exactlyOnce(timeoutThenRetry(DIST, 6));
  });

  test('expired lease: a run killed after claiming; nothing moves within the lease; after it, once each', () => {
    const r = expiredLease(DIST);
    const [sent, unsent] = Object.keys(r.journals);
    assert.deepEqual(r.checkpoints.killed.states, { [sent]: '送信中', [unsent]: '送信中' });
    assert.deepEqual(r.checkpoints.withinLease.states, { [sent]: '送信中', [unsent]: '送信中' });
    assert.deepEqual(r.checkpoints.withinLease.journals, { [sent]: 1, [unsent]: 0 });
    exactlyOnce(r);
  });
});
