/**
 * `npm run sim`'s usage text names every test build webpack.config.mjs can make: it is generated from
 * ALL_MUTANTS (sim/simulate/mutants.ts), and that list must be webpack's (it once listed only the first eight).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ALL_MUTANTS } from '../../sim/simulate/mutants';
import { ROOT } from '../helpers/emulator';

test('the sim CLI lists every test build, the same ones webpack builds', async () => {
  const config = (await import(pathToFileURL(path.join(ROOT, 'webpack.config.mjs')).href)) as {
    MUTANTS: string[];
  };
  assert.deepEqual([...ALL_MUTANTS], config.MUTANTS);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'sim/simulate/cli.ts', '--mutant', 'no-such-build'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /unknown mutant no-such-build/);
  const listed = /--mutant ([^\]]+)\]/.exec(r.stderr)?.[1].split('|');
  assert.deepEqual(listed, config.MUTANTS);
});
