/**
 * `npm test` ends with one plain summary line over every level (issue 29): the sum of what the node test
 * runner itself counted in each run, the worlds re-runs included, and NG when anything failed or gave no count.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runLevels, summaryLine } from '../../scripts/run-tests.mjs';

let root: string;
const quiet = () => {};

before(() => {
  root = mkdtempSync(path.join(tmpdir(), 'kicho-run-tests-'));
  mkdirSync(path.join(root, 'a'));
  mkdirSync(path.join(root, 'b'));
  const file = (name: string, body: string) => writeFileSync(path.join(root, name), body);
  file(
    'a/two.test.mjs',
    "import { test } from 'node:test';\ntest('one', () => {});\ntest('two', () => {});\n",
  );
  file(
    'b/world.test.mjs',
    "import assert from 'node:assert';\nimport { test } from 'node:test';\ntest('the world', () => { assert.notEqual(process.env.KICHO_SHEETS, 'broken'); });\n",
  );
  file('b/skip.test.mjs', "import { test } from 'node:test';\ntest('later', { skip: true }, () => {});\n");
});
after(() => rmSync(root, { recursive: true, force: true }));

// The fixture files end in .mjs so they are run, not collected by the real levels (which take *.test.ts).
const levelMap = { first: ['a/two.test.mjs'], second: ['b/skip.test.mjs'], worlds: ['b/world.test.mjs'] };

describe('scripts/run-tests.mjs summary', () => {
  it('adds up every run, the worlds re-runs included, into one line', () => {
    const runs = runLevels(['first', 'second', 'worlds'], {
      levelMap,
      worldFiles: ['b/world.test.mjs'],
      worlds: ['w1', 'w2'],
      root,
      log: quiet,
      stdio: 'ignore',
    });
    assert.equal(runs.length, 3, 'one run of the plain levels, one per other world');
    assert.equal(
      summaryLine(runs),
      'テストの合計: OK — 4 passed, 0 failed, 1 skipped（first, second / worlds (w1) / worlds (w2)）',
    );
  });

  it('a failing test in any run makes it NG with the count', () => {
    const runs = runLevels(['first', 'worlds'], {
      levelMap,
      worldFiles: ['b/world.test.mjs'],
      worlds: ['w1', 'broken'],
      root,
      log: quiet,
      stdio: 'ignore',
    });
    assert.equal(
      summaryLine(runs),
      'テストの合計: NG — 3 passed, 1 failed（first / worlds (w1) / worlds (broken)）',
    );
  });

  it('a run that gave no count (the runner did not finish) is NG, named', () => {
    const line = summaryLine([
      { label: 'unit', status: 0, counts: { pass: 10, fail: 0 } },
      { label: 'browser', status: 1, counts: null },
    ]);
    assert.match(line, /^テストの合計: NG — 10 passed, 0 failed, 1 run\(s\) gave no summary: browser/);
  });
});
