/**
 * Test builds with one safety mechanism switched off (src/core/safety.ts), built by webpack into
 * dist-mutants/<name>/ (`webpack --env mutant=<name>`). The simulation must find a duplicate journal or
 * a lost line in each.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Same names as MUTANTS in webpack.config.mjs (with SKELETON_MUTANTS). */
export const MUTANTS = [
  'no-lock',
  'no-flush',
  'no-claim',
  'resend-unknown',
  'no-grace',
  'no-reorder-check',
  'no-people-yield',
  'no-recent-sends',
] as const;

/**
 * Test builds without one piece of the exactly-once skeleton (src/core/exactly-once/), which posting and
 * duplicate deletion share: each must fail a posting test and a deletion test
 * (test/sim-simulate/skeleton-mutants.test.ts).
 */
export const SKELETON_MUTANTS = [
  'skeleton-act-in-lock',
  'skeleton-unknown-reopens',
  'skeleton-no-recovery',
  'skeleton-no-settle-after-stop',
] as const;
export type SkeletonMutant = (typeof SKELETON_MUTANTS)[number];
export type Mutant = (typeof MUTANTS)[number] | SkeletonMutant;

/** Every test build, in webpack.config.mjs's order: what --mutant accepts and its usage text lists. */
export const ALL_MUTANTS: readonly Mutant[] = [...MUTANTS, ...SKELETON_MUTANTS];

export const MUTANT_DESCRIPTIONS: Record<Mutant, string> = {
  'no-lock': 'the script lock is not taken',
  'no-flush': 'no flush (nor read-back of the 台帳) before the lock is released',
  'no-claim': 'rows are sent without first writing 送信中 under the lock',
  'resend-unknown': '不明 rows are sent again without a lookup',
  'no-grace': 'the grace period is 0: a row not yet visible in MF is sent again',
  'no-reorder-check': '台帳 writes are not checked for rows a person moved meanwhile',
  'no-people-yield': 'a row a person typed into while a run worked on it is written over',
  'no-recent-sends': 'a line sent a moment ago whose row was deleted comes back 未判定 and is sent again',
  'skeleton-act-in-lock':
    'the acts start inside the lock section that claimed them, before it is flushed and released',
  'skeleton-unknown-reopens': 'an unknown answer is settled back to open, as if never acted on',
  'skeleton-no-recovery': 'nothing is recoverable and a run’s recover step is skipped',
  'skeleton-no-settle-after-stop': 'a batch an answer or the time stopped is left claimed, never settled',
};

export function isMutant(name: string): name is Mutant {
  return (ALL_MUTANTS as readonly string[]).includes(name);
}

/** The bundle a run uses: dist/ (or KICHO_SIM_DIST), or dist-mutants/<mutant>/. */
export function bundleDirOf(mutant?: Mutant): string {
  if (mutant) return path.join(ROOT, 'dist-mutants', mutant);
  return process.env.KICHO_SIM_DIST ? path.resolve(process.env.KICHO_SIM_DIST) : path.join(ROOT, 'dist');
}

/** Builds the given test builds (MUTANTS in one webpack run by default). Throws with webpack's output on failure. */
export function buildMutants(names: readonly Mutant[] = MUTANTS): void {
  const env = names.join(',');
  const cli = path.join(ROOT, 'node_modules', 'webpack-cli', 'bin', 'cli.js');
  const r = spawnSync(process.execPath, [cli, '--mode', 'production', '--env', `mutant=${env}`], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`mutant build failed:\n${r.stdout}\n${r.stderr}`);
}
