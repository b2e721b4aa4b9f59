/**
 * People on the newer sheets (sim/simulate/newer.ts, issue 25) on the seeds where they found defects: each
 * seed runs with every newer act and must hold every invariant (the CI seed set runs them too:
 * DEFAULT_NEWER_ACTS; these name the defect each seed found).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { WorkerPool } from '../../sim/gas/interleave';
import { bundleDirOf } from '../../sim/simulate/mutants';
import { NEWER_KINDS } from '../../sim/simulate/newer';
import { runSeed } from '../../sim/simulate/simulate';

const pool = new WorkerPool();
after(() => pool.close());

describe('the newer acts on the seeds that found defects', () => {
  for (const [seed, what] of [
    [45, 'a journal whose transaction_id spells its escapes in lower case is still an archived row’s'],
    [161, 'the archive’s index deleted while 重複を削除 reads MF: nothing of an archived row is deleted'],
    [
      199,
      'an archive run while 重複を削除 deletes a row’s journal leaves that row on the 台帳 for the settle',
    ],
    [19, '重複を削除 refuses a journal kicho posted whose 台帳 row a person deleted'],
  ] as const) {
    test(`seed ${seed}: ${what}`, () => {
      const r = runSeed(seed, { bundleDir: bundleDirOf(), pool, shrink: false, newerActs: NEWER_KINDS });
      assert.equal(r.error, undefined);
      assert.deepEqual(
        r.violations.map((v) => `${v.kind}: ${v.detail}`),
        [],
      );
    });
  }
});

test('seed 982917 (--people-anytime): 重複を削除 refuses a possibly-several-payments group whose kept journal a person deleted in MF', () => {
  const r = runSeed(982917, {
    bundleDir: bundleDirOf(),
    pool,
    shrink: false,
    peopleAnytime: true,
    newerActs: NEWER_KINDS,
  });
  assert.equal(r.error, undefined);
  assert.deepEqual(
    r.violations.map((v) => `${v.kind}: ${v.detail}`),
    [],
  );
});
