/**
 * npm run sim -- --seeds N [--from S] [--mutant NAME] [--verbose] [--jobs J] [--stop] [--no-shrink]
 *
 * Runs N seeded worlds (seeds S … S+N-1) over the built bundle (dist/, or dist-mutants/NAME built
 * here), prints seeds run, executions, faults injected by kind, invariant violations and time. A
 * failing seed prints its number, a reproduction command, and the scenario fast-check shrank it to.
 * Exit code 1 when any invariant was violated.
 *
 * Also: --list a,b,c (exact seeds), --path P (replay a shrunk case of one seed), --json (one JSON line
 * per seed and a summary line, for test/sim-simulate), --no-build (use dist-mutants/NAME as it is), --jobs J
 * (processes; default one per core from 20 seeds up), --people-anytime (people may also edit inside a
 * run's locked read–write of the 台帳), --newer-acts index,duplicates,balances|all|none (people on the
 * newer sheets, newer.ts; default DEFAULT_NEWER_ACTS). KICHO_SIM_DIST=dir runs another build than dist/.
 */
import { availableParallelism } from 'node:os';
import {
  type BatchOptions,
  emptySummary,
  formatSummary,
  reproduceCommand,
  runBatch,
  runParallel,
  type Summary,
} from './batch';
import { ALL_MUTANTS, buildMutants, isMutant, MUTANT_DESCRIPTIONS, type Mutant } from './mutants';
import { NEWER_KINDS, type NewerKind } from './newer';
import type { SeedResult } from './simulate';

interface Args {
  seeds: number;
  from: number;
  list?: number[];
  mutant?: Mutant;
  verbose: boolean;
  json: boolean;
  stop: boolean;
  shrink: boolean;
  build: boolean;
  jobs?: number;
  path?: string;
  peopleAnytime?: boolean;
  newerActs?: NewerKind[];
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run sim -- --seeds N [--from S] [--mutant ${ALL_MUTANTS.join('|')}] [--verbose] [--jobs J] [--stop] [--no-shrink] [--path P] [--people-anytime] [--newer-acts ${NEWER_KINDS.join(',')}|all|none]\n`,
  );
  process.exit(2);
}

function parse(argv: readonly string[]): Args {
  const a: Args = {
    seeds: 100,
    from: 1,
    verbose: false,
    json: false,
    stop: false,
    shrink: true,
    build: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) usage(`${flag} needs a value`);
      return v;
    };
    const int = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) usage(`${flag} needs a whole number`);
      return n;
    };
    switch (flag) {
      case '--seeds':
        a.seeds = int();
        break;
      case '--from':
        a.from = int();
        break;
      case '--list':
        a.list = value()
          .split(',')
          .map((x) => Number(x));
        break;
      case '--mutant': {
        const m = value();
        if (!isMutant(m)) usage(`unknown mutant ${m}`);
        a.mutant = m;
        break;
      }
      case '--verbose':
      case '-v':
        a.verbose = true;
        break;
      case '--json':
        a.json = true;
        break;
      case '--stop':
        a.stop = true;
        break;
      case '--no-shrink':
        a.shrink = false;
        break;
      case '--no-build':
        a.build = false;
        break;
      case '--jobs':
        a.jobs = Math.max(1, int());
        break;
      case '--people-anytime':
        a.peopleAnytime = true;
        break;
      case '--path':
        a.path = value();
        break;
      case '--newer-acts': {
        const v = value();
        const kinds = v === 'all' ? [...NEWER_KINDS] : v === 'none' ? [] : v.split(',');
        for (const k of kinds)
          if (!(NEWER_KINDS as readonly string[]).includes(k)) usage(`unknown newer act ${k}`);
        a.newerActs = kinds as NewerKind[];
        break;
      }
      default:
        usage(`unknown argument ${flag}`);
    }
  }
  return a;
}

/** The flags a reproduction needs besides the seed. */
function flagsOf(args: Args): string {
  const newer = args.newerActs
    ? ` --newer-acts ${args.newerActs.length > 0 ? args.newerActs.join(',') : 'none'}`
    : '';
  return `${args.peopleAnytime ? ' --people-anytime' : ''}${newer}`;
}

function printSeed(r: SeedResult, args: Args): void {
  const bad = r.violations.length > 0 || r.error;
  if (args.verbose) {
    process.stdout.write(`\n── seed ${r.seed} (${(r.ms / 1000).toFixed(2)} s)\n${r.trace.join('\n')}\n`);
  }
  if (bad) {
    process.stdout.write(
      `seed ${r.seed}: ${r.violations.length} violation(s)${r.error ? `, error ${r.error.split('\n')[0]}` : ''} — ${r.violations
        .slice(0, 2)
        .map((v) => `${v.kind}: ${v.detail}`)
        .join('; ')}\n  reproduce: ${reproduceCommand(r.seed, args.mutant, undefined, flagsOf(args))}\n`,
    );
  }
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const seeds = args.list ?? Array.from({ length: args.seeds }, (_, i) => args.from + i);
  // Many seeds: one process per core by default (each runs its share with its own worker pool).
  const jobs = args.jobs ?? (seeds.length >= 20 && !args.path ? availableParallelism() : 1);
  if (args.mutant && args.build) buildMutants([args.mutant]);
  const options: BatchOptions = {
    seeds,
    mutant: args.mutant,
    shrink: args.shrink,
    stop: args.stop,
    trace: args.verbose,
    path: args.path,
    peopleAnytime: args.peopleAnytime,
    newerActs: args.newerActs,
  };
  if (!args.json) {
    process.stdout.write(
      `kicho simulation: ${seeds.length} seed(s)${seeds.length > 0 ? ` ${seeds[0]}…${seeds[seeds.length - 1]}` : ''}, ${
        args.mutant ? `test build ${args.mutant} (${MUTANT_DESCRIPTIONS[args.mutant]})` : 'dist'
      }${jobs > 1 ? `, ${jobs} processes` : ''}\n`,
    );
  }
  let summary: Summary = emptySummary(args.mutant);
  if (args.json) {
    summary = runBatch({
      ...options,
      onSeed: (r) => process.stdout.write(`${JSON.stringify({ seed: r })}\n`),
    });
    process.stdout.write(`${JSON.stringify({ summary })}\n`);
  } else if (jobs > 1) {
    summary = await runParallel({ ...options, jobs, onSeed: (r) => printSeed(r, args) });
  } else {
    summary = runBatch({ ...options, onSeed: (r) => printSeed(r, args) });
  }
  summary.flags = flagsOf(args);
  if (!args.json) process.stdout.write(`\n${formatSummary(summary)}\n`);
  process.exitCode = summary.failing.length > 0 ? 1 : 0;
}

await main();
