// Runs the test levels named on the command line (all of them when none is named) with Node's test
// runner, in Japan's time zone like the script's manifest. Plain Node, so it works from npm on Linux,
// macOS and Windows alike (no shell globbing, no `TZ=` prefix).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each level and where its tests live. `npm run deploy` runs only unit, bundle and scenario. */
export const LEVELS = {
  unit: ['test/core', 'test/mf', 'test/contract'],
  fakes: ['test/sim-gas', 'test/sim-gas-lib', 'test/sim-mf', 'test/sim-ai'],
  bundle: ['test/bundle.test.ts'],
  scenario: ['test/scenario'],
  simulation: ['test/sim'],
  tools: ['test/scripts'],
  browser: ['test/browser', 'test/sim-ui'],
};

function testFiles(entry) {
  const full = path.join(ROOT, entry);
  let stat;
  try {
    stat = statSync(full);
  } catch {
    return [];
  }
  if (stat.isFile()) return [entry];
  return readdirSync(full, { recursive: true })
    .map((f) => path.join(entry, String(f)))
    .filter((f) => f.endsWith('.test.ts'));
}

export function filesFor(levels) {
  return levels.flatMap((l) => LEVELS[l].flatMap(testFiles)).sort();
}

function main(argv) {
  const levels = argv.length ? argv : Object.keys(LEVELS);
  const unknown = levels.filter((l) => !(l in LEVELS));
  if (unknown.length) {
    console.error(`知らないテストの段階です: ${unknown.join(', ')}（${Object.keys(LEVELS).join(' / ')}）`);
    process.exit(2);
  }
  const files = filesFor(levels);
  const all = filesFor(Object.keys(LEVELS));
  const everyFile = readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .map((f) => path.join('test', String(f)))
    .filter((f) => f.endsWith('.test.ts'));
  // A test file outside every level would silently never run.
  const orphans = everyFile.filter((f) => !all.includes(f));
  if (orphans.length) {
    console.error(
      `どの段階にも入っていないテストがあります（scripts/run-tests.mjs の LEVELS に加えてください）: ${orphans.join(', ')}`,
    );
    process.exit(2);
  }
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TZ: 'Asia/Tokyo' },
  });
  process.exit(r.status ?? 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
