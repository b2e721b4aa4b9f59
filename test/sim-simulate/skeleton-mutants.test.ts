/**
 * The exactly-once skeleton (src/core/exactly-once/) is shared by posting and duplicate deletion, so a
 * test build without one of its pieces (SKELETON_MUTANTS, src/core/safety.ts) must be caught for each:
 * a named posting test and a named deletion test, run on that build (KICHO_TEST_DIST), fail — and pass
 * on dist/, so each failure is the missing piece's. The archive move is an instance too, but with no HTTP
 * call, no unknown answer and no stop, only its recover step can go missing: that build is caught by an
 * archive test as well.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  buildMutants,
  bundleDirOf,
  MUTANT_DESCRIPTIONS,
  ROOT,
  SKELETON_MUTANTS,
  type SkeletonMutant,
} from '../../sim/simulate/mutants';

const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** A test file and the start of a test's name in it (regex characters left out). */
interface Case {
  file: string;
  name: string;
}

const CATCHES: Record<SkeletonMutant, { posting: Case; deletion: Case; archive?: Case }> = {
  // Posting's 台帳 write flushes by itself (its read-back), so there the lock held across the POST shows;
  // deletion's sheet write does not, and a kill at the DELETE loses the unflushed claim.
  'skeleton-act-in-lock': {
    posting: { file: 'test/scenario/posting.test.ts', name: 'the script lock is never held across a fetch' },
    deletion: { file: 'test/scenario/duplicates.test.ts', name: 'killed after the claim, before the DELETE' },
  },
  'skeleton-unknown-reopens': {
    posting: { file: 'test/scenario/posting.test.ts', name: 'commit-then-timeout → 不明, and postApproved' },
    deletion: { file: 'test/scenario/duplicates.test.ts', name: 'an outcome MF cannot tell' },
  },
  'skeleton-no-recovery': {
    posting: { file: 'test/scenario/reconcile.test.ts', name: 'commit-then-timeout: the journal is found' },
    deletion: { file: 'test/scenario/duplicates.test.ts', name: '重複を削除 itself looks up a claim' },
    // Without step 1 the copy left beside an edited 台帳 row is never dropped, and the row never moves.
    archive: {
      file: 'test/scenario/archive.test.ts',
      name: 'a row a person edits between the copy and the removal stays',
    },
  },
  'skeleton-no-settle-after-stop': {
    posting: { file: 'test/scenario/rough-handling.test.ts', name: 'MF authentication failing mid-post' },
    deletion: { file: 'test/scenario/duplicates.test.ts', name: 'MF refusing our authentication stops' },
  },
};

/** Runs the tests of `c` on `bundleDir`: how many passed and failed. */
function run(c: Case, bundleDir: string): { pass: number; fail: number; output: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'Asia/Tokyo', KICHO_TEST_DIST: bundleDir };
  delete env.NODE_TEST_CONTEXT;
  const r = spawnSync(
    process.execPath,
    ['--import', TSX, '--test', '--test-reporter=tap', `--test-name-pattern=${c.name}`, c.file],
    { cwd: ROOT, env, encoding: 'utf8' },
  );
  const count = (what: string) => Number(new RegExp(`^# ${what} (\\d+)$`, 'm').exec(r.stdout)?.[1] ?? 0);
  return { pass: count('pass'), fail: count('fail'), output: `${r.stdout}\n${r.stderr}`.slice(-3000) };
}

before(() => buildMutants(SKELETON_MUTANTS));

describe('every test build without a piece of the skeleton fails a posting test and a deletion test', () => {
  for (const mutant of SKELETON_MUTANTS) {
    for (const instance of ['posting', 'deletion', 'archive'] as const) {
      const c = CATCHES[mutant][instance];
      if (!c) continue;
      test(`${mutant} (${MUTANT_DESCRIPTIONS[mutant]}): ${instance} — “${c.name}”`, () => {
        const fine = run(c, bundleDirOf());
        assert.ok(fine.pass >= 1 && fine.fail === 0, `on dist/ it passes:\n${fine.output}`);
        const broken = run(c, bundleDirOf(mutant));
        assert.ok(broken.fail >= 1, `${mutant} was not caught:\n${broken.output}`);
      });
    }
  }
});
