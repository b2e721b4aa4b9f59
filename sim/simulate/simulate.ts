/**
 * Seeds → scenarios → runs. A seed number fixes fast-check's generator, hence the scenario, hence
 * the whole run (the interleaving choices are part of the scenario), so `--seeds 1 --from S` replays
 * seed S exactly. A failing seed is shrunk by fast-check to a smaller scenario that still fails.
 */

import fc from 'fast-check';
import type { WorkerPool } from '../gas/interleave';
import { SHEETS_WORLDS, type SheetsWorld, sheetsWorldFromEnv } from '../gas/switches';
import type { Violation } from './invariants';
import { DEFAULT_NEWER_ACTS, type NewerKind } from './newer';
import { emptyStats, type Outcome, runScenario, type Stats } from './run';
import { type Scenario, scenarioArb } from './scenario';

export const arbitrary = fc.noBias(scenarioArb);

export interface SeedResult {
  seed: number;
  ms: number;
  violations: Violation[];
  stats: Stats;
  trace: string[];
  /** When shrinking was asked for and the seed failed: the smallest failing scenario found. */
  shrunk?: { scenario: Scenario; violations: Violation[]; path: string; steps: number };
  error?: string;
}

/**
 * The Sheets world of a seed: KICHO_SHEETS when set, otherwise the seeds take the four worlds in turn
 * (the CI seed set runs each about equally). From the seed number, not the scenario, so shrinking a
 * failing seed stays in its world.
 */
export function sheetsWorldOf(seed: number): SheetsWorld {
  return sheetsWorldFromEnv() ?? SHEETS_WORLDS[seed % SHEETS_WORLDS.length];
}

/** The scenario a seed stands for. */
export function scenarioOf(seed: number, path?: string): Scenario {
  let found: Scenario | undefined;
  fc.check(
    fc.property(arbitrary, (s) => {
      found = s;
      return true;
    }),
    { seed, numRuns: 1, path },
  );
  if (!found) throw new Error(`no scenario for seed ${seed}`);
  return found;
}

export function runSeed(
  seed: number,
  options: {
    bundleDir: string;
    pool: WorkerPool;
    shrink?: boolean;
    trace?: boolean;
    path?: string;
    peopleAnytime?: boolean;
    newerActs?: readonly NewerKind[];
  },
): SeedResult {
  const started = performance.now();
  const sheets = sheetsWorldOf(seed);
  let first: Outcome | undefined;
  let firstError: string | undefined;
  let last: { scenario: Scenario; outcome?: Outcome; error?: string } | undefined;
  let runs = 0;
  const details = fc.check(
    fc.property(arbitrary, (s) => {
      runs += 1;
      let outcome: Outcome | undefined;
      let error: string | undefined;
      try {
        // The trace is cheap: keep it, so a failing seed can show what happened.
        outcome = runScenario(s, {
          bundleDir: options.bundleDir,
          pool: options.pool,
          trace: true,
          peopleAnytime: options.peopleAnytime,
          newerActs: new Set(options.newerActs ?? DEFAULT_NEWER_ACTS),
          sheets,
        });
      } catch (e) {
        error = e instanceof Error ? (e.stack ?? e.message) : String(e);
      }
      if (runs === 1) {
        first = outcome;
        firstError = error;
      }
      const failed = error !== undefined || (outcome?.violations.length ?? 0) > 0;
      if (failed) last = { scenario: s, outcome, error };
      return !failed;
    }),
    { seed, numRuns: 1, endOnFailure: !options.shrink, path: options.path },
  );
  const result: SeedResult = {
    seed,
    ms: performance.now() - started,
    violations: first?.violations ?? [],
    stats: first?.stats ?? emptyStats(),
    trace: options.trace || (first?.violations.length ?? 0) > 0 ? (first?.trace ?? []) : [],
    error: firstError,
  };
  if (details.failed && options.shrink && last) {
    result.shrunk = {
      scenario: last.scenario,
      violations: last.outcome?.violations ?? [{ kind: 'unsettled', detail: `error: ${last.error}` }],
      path: details.counterexamplePath ?? '',
      steps: runs - 1,
    };
  }
  return result;
}
