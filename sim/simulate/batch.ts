/**
 * Many seeds: run in this process (one worker pool for all of them), or split over child processes
 * (`jobs` > 1), and summed up into the numbers `npm run sim` prints.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { WorkerPool } from '../gas/interleave';
import type { Violation } from './invariants';
import { bundleDirOf, type Mutant, ROOT } from './mutants';
import type { NewerKind } from './newer';
import type { Stats } from './run';
import { runSeed, type SeedResult } from './simulate';

export interface BatchOptions {
  seeds: readonly number[];
  mutant?: Mutant;
  shrink?: boolean;
  /** Stop at the first failing seed. */
  stop?: boolean;
  trace?: boolean;
  /** Replays fast-check's path for a shrunk counterexample (one seed). */
  path?: string;
  /** People also act inside a run's locked read–write of the 台帳 (see RunOptions.peopleAnytime). */
  peopleAnytime?: boolean;
  /** People on the newer sheets, by kind (RunOptions.newerActs). */
  newerActs?: readonly NewerKind[];
  /** Called after each seed (progress, printing). */
  onSeed?: (r: SeedResult) => void;
}

export interface Failure {
  seed: number;
  violations: Violation[];
  error?: string;
  shrunk?: SeedResult['shrunk'];
  /** What happened in the seed's world, step by step. */
  trace: string[];
  errorSamples: string[];
}

export interface Summary {
  mutant?: Mutant;
  /** Extra CLI flags a reproduction needs (e.g. --people-anytime). */
  flags?: string;
  seeds: number;
  failing: Failure[];
  executions: number;
  interleaved: number;
  killed: number;
  errors: number;
  drainRuns: number;
  journals: number;
  rows: number;
  arrivals: number;
  simulatedMinutes: number;
  faults: Record<string, number>;
  people: Record<string, number>;
  sheets: Record<string, number>;
  mf: Record<string, number>;
  entries: Record<string, number>;
  violations: Record<string, number>;
  emulatorErrors: string[];
  /** Sum of per-seed wall times (ms), and the batch's own wall time. */
  seedMs: number;
  wallMs: number;
}

export function emptySummary(mutant?: Mutant): Summary {
  return {
    mutant,
    seeds: 0,
    failing: [],
    executions: 0,
    interleaved: 0,
    killed: 0,
    errors: 0,
    drainRuns: 0,
    journals: 0,
    rows: 0,
    arrivals: 0,
    simulatedMinutes: 0,
    faults: {},
    people: {},
    sheets: {},
    mf: {},
    entries: {},
    violations: {},
    emulatorErrors: [],
    seedMs: 0,
    wallMs: 0,
  };
}

function addBag(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

export function addSeed(s: Summary, r: SeedResult): void {
  const st: Stats = r.stats;
  s.seeds += 1;
  s.executions += st.executions;
  s.interleaved += st.interleaved;
  s.killed += st.killed;
  s.errors += st.errors;
  s.drainRuns += st.drainRuns;
  s.journals += st.journals;
  s.rows += st.rows;
  s.arrivals += st.arrivals;
  s.simulatedMinutes += st.simulatedMinutes;
  addBag(s.faults, st.faults);
  addBag(s.people, st.people);
  addBag(s.sheets, st.sheets);
  addBag(s.mf, st.mf);
  addBag(s.entries, st.entries);
  for (const v of r.violations) s.violations[v.kind] = (s.violations[v.kind] ?? 0) + 1;
  s.emulatorErrors.push(...st.emulatorErrors.map((e) => `seed ${r.seed}: ${e}`));
  s.seedMs += r.ms;
  if (r.violations.length > 0 || r.error) {
    s.failing.push({
      seed: r.seed,
      violations: r.violations,
      error: r.error,
      shrunk: r.shrunk,
      trace: r.trace,
      errorSamples: r.stats.errorSamples,
    });
    if (r.error) s.violations.error = (s.violations.error ?? 0) + 1;
  }
}

export function mergeSummaries(into: Summary, from: Summary): void {
  for (const k of [
    'seeds',
    'executions',
    'interleaved',
    'killed',
    'errors',
    'drainRuns',
    'journals',
    'rows',
    'arrivals',
    'simulatedMinutes',
    'seedMs',
  ] as const) {
    into[k] += from[k];
  }
  addBag(into.faults, from.faults);
  addBag(into.people, from.people);
  addBag(into.sheets, from.sheets);
  addBag(into.mf, from.mf);
  addBag(into.violations, from.violations);
  into.failing.push(...from.failing);
  into.failing.sort((a, b) => a.seed - b.seed);
  into.emulatorErrors.push(...from.emulatorErrors);
}

/** Runs the seeds here, one after another, sharing one worker pool. */
export function runBatch(o: BatchOptions): Summary {
  const started = performance.now();
  const summary = emptySummary(o.mutant);
  const pool = new WorkerPool();
  try {
    for (const seed of o.seeds) {
      const r = runSeed(seed, {
        bundleDir: bundleDirOf(o.mutant),
        pool,
        shrink: o.shrink,
        trace: o.trace,
        path: o.path,
        peopleAnytime: o.peopleAnytime,
        newerActs: o.newerActs,
      });
      addSeed(summary, r);
      o.onSeed?.(r);
      if (o.stop && (r.violations.length > 0 || r.error)) break;
    }
  } finally {
    pool.close();
  }
  summary.wallMs = performance.now() - started;
  return summary;
}

const CLI = path.join(ROOT, 'sim', 'simulate', 'cli.ts');

/**
 * Splits the seeds over `jobs` child processes (each runs `cli.ts --json` on every jobs-th seed) and
 * sums their summaries. With `stop`, the first failing seed ends every child.
 */
export async function runParallel(o: BatchOptions & { jobs: number }): Promise<Summary> {
  const started = performance.now();
  const total = emptySummary(o.mutant);
  const parts = Array.from({ length: o.jobs }, (_, k) => o.seeds.filter((_, i) => i % o.jobs === k)).filter(
    (p) => p.length > 0,
  );
  const children = new Set<ReturnType<typeof spawn>>();
  let stopped = false;
  await Promise.all(
    parts.map(
      (seeds) =>
        new Promise<void>((resolve, reject) => {
          const args = ['--import', 'tsx', CLI, '--json', '--no-build', '--list', seeds.join(',')];
          if (o.mutant) args.push('--mutant', o.mutant);
          if (o.stop) args.push('--stop');
          if (!o.shrink) args.push('--no-shrink');
          if (o.trace) args.push('--verbose');
          if (o.peopleAnytime) args.push('--people-anytime');
          if (o.newerActs) args.push('--newer-acts', o.newerActs.length > 0 ? o.newerActs.join(',') : 'none');
          const child = spawn(process.execPath, args, {
            cwd: ROOT,
            env: { ...process.env, TZ: 'Asia/Tokyo' },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          children.add(child);
          let out = '';
          let err = '';
          child.stdout.setEncoding('utf8');
          child.stderr.setEncoding('utf8');
          child.stdout.on('data', (chunk: string) => {
            out += chunk;
            let nl = out.indexOf('\n');
            while (nl >= 0) {
              const line = out.slice(0, nl);
              out = out.slice(nl + 1);
              nl = out.indexOf('\n');
              if (!line.startsWith('{')) continue;
              const msg = JSON.parse(line) as { seed?: SeedResult; summary?: Summary };
              if (msg.seed) {
                o.onSeed?.(msg.seed);
                if (o.stop && (msg.seed.violations.length > 0 || msg.seed.error) && !stopped) {
                  stopped = true;
                  for (const c of children) if (c !== child && c.exitCode === null) c.kill();
                }
              }
              if (msg.summary) mergeSummaries(total, msg.summary);
            }
          });
          child.stderr.on('data', (chunk: string) => {
            err += chunk;
          });
          child.on('error', reject);
          child.on('close', (code, signal) => {
            children.delete(child);
            if (code === 0 || code === 1 || (stopped && signal)) resolve();
            else reject(new Error(`simulation child exited with ${code ?? signal}:\n${err}`));
          });
        }),
    ),
  );
  total.wallMs = performance.now() - started;
  return total;
}

const fmt = (n: number) => n.toLocaleString('en-US');

function bag(b: Record<string, number>): string {
  const entries = Object.entries(b).sort((x, y) => y[1] - x[1]);
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k} ${fmt(n)}`).join(', ');
}

export function reproduceCommand(seed: number, mutant?: Mutant, fcPath?: string, flags = ''): string {
  return `npm run sim -- --seeds 1 --from ${seed}${mutant ? ` --mutant ${mutant}` : ''}${fcPath ? ` --path ${fcPath}` : ''}${flags} --verbose`;
}

/** The report `npm run sim` prints. */
export function formatSummary(s: Summary): string {
  const violations = Object.values(s.violations).reduce((a, b) => a + b, 0);
  const secs = s.wallMs / 1000;
  const lines = [
    `bundle: ${s.mutant ? `dist-mutants/${s.mutant}` : 'dist'}`,
    `seeds run: ${fmt(s.seeds)} (${s.failing.length} failing)`,
    `executions: ${fmt(s.executions)} (${fmt(s.interleaved)} overlapping another, ${fmt(s.killed)} killed, ${fmt(s.errors)} ended with an error, ${fmt(s.drainRuns)} in the drain)`,
    `simulated: ${fmt(Math.round(s.simulatedMinutes / 60))} hours, ${fmt(s.rows)} 台帳 rows, ${fmt(s.journals)} journals posted, ${fmt(s.arrivals)} lines arriving later`,
    `faults injected: ${bag(s.faults)}`,
    `people: ${bag(s.people)}`,
    `Sheets worlds: ${bag(s.sheets)}`,
    `MF worlds: ${bag(s.mf)}`,
    `entry points run: ${bag(s.entries)}`,
    `invariant violations: ${violations}${violations > 0 ? ` (${bag(s.violations)})` : ''}`,
    `time: ${secs.toFixed(1)} s wall, ${(s.seedMs / Math.max(1, s.seeds) / 1000).toFixed(2)} s per seed, ${(s.seeds / Math.max(secs, 0.001)).toFixed(2)} seeds/s`,
  ];
  if (s.emulatorErrors.length > 0) lines.push(`emulator errors: ${s.emulatorErrors.slice(0, 5).join(' | ')}`);
  for (const f of s.failing) {
    lines.push('');
    lines.push(
      `FAILED seed ${f.seed}: ${f.violations.length} violation(s)${f.error ? ` and an error: ${f.error.split('\n')[0]}` : ''}`,
    );
    for (const v of f.violations.slice(0, 8)) lines.push(`  ${v.kind}: ${v.detail}`);
    lines.push(`  reproduce: ${reproduceCommand(f.seed, s.mutant, undefined, s.flags)}`);
    if (f.trace.length === 0) lines.push('  (add --verbose to see what happened step by step)');
    for (const e of f.errorSamples) lines.push(`  an execution ended with an error: ${e}`);
    if (f.trace.length > 0) lines.push('  what happened:', ...f.trace.map((t) => `    ${t}`));
    if (f.shrunk) {
      const sc = f.shrunk.scenario;
      const events = sc.slots.reduce((n, x) => n + 1 + x.menus.length + x.acts.length + x.faults.length, 0);
      lines.push(
        `  shrunk in ${f.shrunk.steps} runs to ${sc.slots.length} slot(s), ${events} event(s), ${sc.data.lines} lines: ${f.shrunk.violations
          .slice(0, 3)
          .map((v) => `${v.kind}: ${v.detail}`)
          .join('; ')}`,
      );
      lines.push(`  replay the shrunk case: ${reproduceCommand(f.seed, s.mutant, f.shrunk.path, s.flags)}`);
      lines.push(`  shrunk scenario: ${JSON.stringify(sc)}`);
    }
  }
  return lines.join('\n');
}
