/**
 * Sheets calls per postApproved execution (issue 18), counted in the emulator on the built bundle with
 * the bench's world: they must not grow with the 台帳 (E) or the lines (N), and stay under a ceiling.
 * Issue 18's target is 20; these ceilings are what the protocol makes today (see README 性能 for what
 * the rest is: preflight, the text-format check of each write, two blocks per write, the ログ line).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runKicho } from '../../sim/bench/kicho';
import { datasetWithNone } from '../../sim/bench/world';
import { DIST } from '../helpers/emulator';

/** Sheets calls (reads + writes + flushes) one posting execution may make, by 1回の送信上限. */
const CEILING: Record<number, number> = { 200: 25, 1000: 31 };

function maxCallsPerPost(n: number, e: number, batch: number): { max: number; exact: boolean } {
  const r = runKicho(datasetWithNone(n), e, batch, DIST);
  const posts = r.executions.filter((x) => x.name === 'postApproved');
  assert.ok(posts.length > 0, 'at least one posting execution');
  for (const p of posts) assert.equal(p.status, 'ok', p.error);
  return {
    max: Math.max(...posts.map((p) => p.sheetsCalls)),
    exact: r.outcome.exactlyOnce === r.outcome.lines && r.leftWaiting === 0 && r.leftSending === 0,
  };
}

describe('Sheets calls per posting execution', () => {
  test('上限 200: the same count on a 台帳 of 1,000 and of 20,000 rows, within the ceiling', () => {
    const small = maxCallsPerPost(250, 1_000, 200);
    const big = maxCallsPerPost(250, 20_000, 200);
    assert.ok(small.exact && big.exact, 'every line posted exactly once');
    assert.equal(big.max, small.max, 'calls do not grow with the 台帳');
    assert.ok(big.max <= CEILING[200], `${big.max} Sheets calls > ${CEILING[200]}`);
  });

  test('上限 1000: several chunks in one execution, within the ceiling', () => {
    const r = maxCallsPerPost(900, 5_000, 1000);
    assert.ok(r.exact, 'every line posted exactly once');
    assert.ok(r.max <= CEILING[1000], `${r.max} Sheets calls > ${CEILING[1000]}`);
  });
});
