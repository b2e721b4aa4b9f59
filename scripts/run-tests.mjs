// Runs the test levels named on the command line (all of them when none is named) with Node's test
// runner, in Japan's time zone like the script's manifest. Plain Node, so it works from npm on Linux,
// macOS and Windows alike (no shell globbing, no `TZ=` prefix).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The scenario files the `worlds` level runs again in each Sheets world other than the emulator's
 * default (kept-formula, which every other level runs in): what an apostrophe written into an '@' cell
 * does and whether '@' alone stops `=` are undocumented (sim/gas/switches.ts, KICHO_SHEETS). The files
 * that test text in cells themselves (legacy-ledger, plain-text, self-test) loop over all four worlds.
 */
export const WORLD_FILES = [
  'test/scenario/posting.test.ts',
  'test/scenario/csv.test.ts',
  'test/scenario/reconcile.test.ts',
  'test/scenario/schedule-restore.test.ts',
  'test/scenario/classify-dryrun.test.ts',
  'test/scenario/experience.test.ts',
  'test/scenario/sheets-world.test.ts',
];
export const OTHER_SHEETS_WORLDS = ['kept-text', 'stripped-formula', 'stripped-text'];

/** Each level and where its tests live. `npm run deploy` runs only unit, bundle and scenario. */
export const LEVELS = {
  unit: ['test/core', 'test/mf', 'test/contract'],
  fakes: ['test/sim-gas', 'test/sim-gas-lib', 'test/sim-mf', 'test/sim-ai'],
  bundle: ['test/bundle.test.ts'],
  scenario: ['test/scenario'],
  worlds: WORLD_FILES,
  simulation: ['test/sim-simulate'],
  tools: ['test/scripts'],
  // A large 台帳 end to end (issue 18): about a minute.
  scale: ['test/scale'],
  browser: ['test/browser', 'test/sim-ui'],
};

function testFiles(entry, root = ROOT) {
  const full = path.join(root, entry);
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

/**
 * @param {string[]} levels
 * @param {Record<string, string[]>} [levelMap]
 * @param {string} [root]
 */
export function filesFor(levels, levelMap = LEVELS, root = ROOT) {
  return levels.flatMap((l) => levelMap[l].flatMap((e) => testFiles(e, root))).sort();
}

const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const COUNT_REPORTER = pathToFileURL(path.join(ROOT, 'scripts', 'count-reporter.mjs')).href;

/** The environment of a run: Japan's time; never a parent test runner's context (that would silence ours). */
function runEnv(extra) {
  const env = { ...process.env, TZ: 'Asia/Tokyo', ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/**
 * One `node --test` run: its usual output on the terminal (spec on a terminal, TAP otherwise, as Node
 * chooses by itself), and its summary counts, read back from a second reporter's file.
 */
function runOnce(list, { root, env, label, stdio }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'kicho-test-counts-'));
  const countsFile = path.join(dir, 'counts.json');
  try {
    const status =
      spawnSync(
        process.execPath,
        [
          '--import',
          TSX,
          '--test',
          `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
          '--test-reporter-destination=stdout',
          `--test-reporter=${COUNT_REPORTER}`,
          `--test-reporter-destination=${countsFile}`,
          ...list,
        ],
        { cwd: root, stdio, env: runEnv(env) },
      ).status ?? 1;
    let counts = null;
    try {
      counts = JSON.parse(readFileSync(countsFile, 'utf8'));
    } catch {
      counts = null;
    }
    return { label, status, counts };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The one line `npm test` ends with, over every run (the worlds re-runs included). */
export function summaryLine(runs) {
  const sum = (k) => runs.reduce((n, r) => n + (r.counts?.[k] ?? 0), 0);
  const unread = runs.filter((r) => !r.counts || r.counts.pass === undefined);
  const extra = [
    sum('cancelled') ? `${sum('cancelled')} cancelled` : '',
    sum('skipped') ? `${sum('skipped')} skipped` : '',
    sum('todo') ? `${sum('todo')} todo` : '',
    unread.length ? `${unread.length} run(s) gave no summary: ${unread.map((r) => r.label).join(', ')}` : '',
  ].filter(Boolean);
  const failed =
    runs.some((r) => r.status !== 0) || unread.length > 0 || sum('fail') > 0 || sum('cancelled') > 0;
  return `テストの合計: ${failed ? 'NG' : 'OK'} — ${sum('pass')} passed, ${sum('fail')} failed${extra.length ? `, ${extra.join(', ')}` : ''}（${runs.map((r) => r.label).join(' / ')}）`;
}

/**
 * Runs the named levels (each file once; the `worlds` files again in each other Sheets world) and returns
 * every run's counts. Levels, world files and the root are parameters so the summary can be tested.
 * @param {string[]} levels
 * @param {{ levelMap?: Record<string, string[]>, worldFiles?: string[], worlds?: string[], root?: string,
 *   log?: (line: string) => void, stdio?: 'inherit' | 'ignore' }} [options]
 */
export function runLevels(
  levels,
  {
    levelMap = LEVELS,
    worldFiles = WORLD_FILES,
    worlds = OTHER_SHEETS_WORLDS,
    root = ROOT,
    log = console.log,
    stdio = 'inherit',
  } = {},
) {
  const runs = [];
  const onceLevels = levels.filter((l) => l !== 'worlds');
  const once = filesFor(onceLevels, levelMap, root);
  if (once.length) runs.push(runOnce(once, { root, env: {}, label: onceLevels.join(', '), stdio }));
  if (levels.includes('worlds')) {
    for (const world of worlds) {
      log(`# Sheets world ${world} (KICHO_SHEETS): ${worldFiles.length} scenario files`);
      runs.push(
        runOnce(worldFiles, { root, env: { KICHO_SHEETS: world }, label: `worlds (${world})`, stdio }),
      );
    }
  }
  return runs;
}

function main(argv) {
  const levels = argv.length ? argv : Object.keys(LEVELS);
  const unknown = levels.filter((l) => !(l in LEVELS));
  if (unknown.length) {
    console.error(`知らないテストの段階です: ${unknown.join(', ')}（${Object.keys(LEVELS).join(' / ')}）`);
    process.exit(2);
  }
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
  const runs = runLevels(levels);
  const line = summaryLine(runs);
  // The last line, after every level's own output: what a person reads first.
  console.log(`\n${line}`);
  process.exit(line.includes(': OK — ') ? 0 : 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
