/**
 * One bench job (an implementation on one N × E world), run in a child process so that two jobs use
 * the two cores; the result goes back over IPC. Also where a cut-short job is extrapolated.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type AuditResult, runAudit } from './audit';
import { type JobResult, runKicho } from './kicho';
import { runNaive } from './naive';
import { datasetWithNone, type ExecutionFigures, type Outcome } from './world';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Virtual ms a cell of a read range costs (sim/gas/world.ts DEFAULT_LATENCY.sheetsReadPerCell). */
const READ_PER_CELL_MS = 0.002;
/** Apps Script kills an execution at its first service call after 6 minutes. */
const EXECUTION_LIMIT_MS = 6 * 60_000;

export interface JobSpec {
  impl: 'kicho' | 'naive';
  n: number;
  e: number;
  /** kicho: 1回の送信上限. */
  batch?: number;
  /** kicho: stop after this many postApproved executions; naive: after this many lines. Then extrapolate. */
  prefix?: number;
  /** naive with a prefix: at most this many lines per execution (see runNaive). */
  perExecution?: number;
}

export interface Totals {
  executions: number;
  sheetsCalls: number;
  urlFetches: number;
  propertyOps: number;
  virtualMs: number;
  realMs: number;
}

export interface JobSummary {
  spec: JobSpec;
  /** What the job would total run to the end (= measured unless extrapolated). */
  totals: Totals;
  measured: Totals;
  extrapolated: boolean;
  /** Lines the exactly-once check covers (all N, or those reached before the cut). */
  checkedLines: number;
  outcome: Outcome;
  leftWaiting: number;
  leftSending: number;
  /** kicho: max Sheets calls of one postApproved execution; naive: of one execution. */
  maxSheetsPerPost: number;
  maxExecutionVirtualMs: number;
  killed: number;
  notes: string[];
  /** Real ms for the whole job, world preparation included. */
  jobRealMs: number;
}

function sum(list: readonly ExecutionFigures[]): Totals {
  return {
    executions: list.length,
    sheetsCalls: list.reduce((a, x) => a + x.sheetsCalls, 0),
    urlFetches: list.reduce((a, x) => a + x.urlFetches, 0),
    propertyOps: list.reduce((a, x) => a + x.propertyOps, 0),
    virtualMs: list.reduce((a, x) => a + x.virtualMs, 0),
    realMs: list.reduce((a, x) => a + x.realMs, 0),
  };
}

function add(a: Totals, b: Totals, times = 1): Totals {
  return {
    executions: a.executions + b.executions * times,
    sheetsCalls: a.sheetsCalls + b.sheetsCalls * times,
    urlFetches: a.urlFetches + b.urlFetches * times,
    propertyOps: a.propertyOps + b.propertyOps * times,
    virtualMs: a.virtualMs + b.virtualMs * times,
    realMs: a.realMs + b.realMs * times,
  };
}

function scale(a: Totals, k: number): Totals {
  return {
    executions: a.executions * k,
    sheetsCalls: a.sheetsCalls * k,
    urlFetches: a.urlFetches * k,
    propertyOps: a.propertyOps * k,
    virtualMs: a.virtualMs * k,
    realMs: a.realMs * k,
  };
}

/**
 * The rest of a cut-short kicho job: the remaining rows cost what they cost in the mean measured
 * postApproved execution (fetches, time), in whole executions (each with its fixed Sheets calls).
 */
function kichoTotals(r: JobResult): Totals {
  const measured = sum(r.executions);
  const left = r.postsLeft ?? 0;
  if (left === 0) return measured;
  const posts = r.executions.filter((x) => x.name === 'postApproved');
  const mean = scale(sum(posts), 1 / posts.length);
  const rest = scale(mean, left);
  rest.executions = Math.ceil(left);
  rest.sheetsCalls = Math.ceil(left) * mean.sheetsCalls;
  return add(measured, rest);
}

/**
 * A naive job cut after P of N lines: per-line cost from the prefix (minus its executions' fixed part:
 * token, masters, listing, measured by one execution that handles no line), the key column read
 * growing by one cell per appended row, executions as many as 6-minute runs need.
 */
function naiveTotals(
  r: JobResult & { overhead?: ExecutionFigures; rowsAppended: number },
  n: number,
): Totals {
  const measured = sum(r.executions);
  const p = r.rowsAppended;
  if (!r.overhead || p >= n || p === 0) return measured;
  const fixed = sum([r.overhead]);
  const perLine = scale(add(measured, fixed, -measured.executions), 1 / p);
  const growthMs = (READ_PER_CELL_MS * (n - p)) / 2;
  const lineMs = perLine.virtualMs + growthMs;
  const perExecution = Math.floor((EXECUTION_LIMIT_MS - fixed.virtualMs) / lineMs);
  const executions = Math.ceil(n / perExecution);
  const lines = scale(perLine, n);
  lines.virtualMs += n * growthMs;
  lines.executions = 0;
  return add(lines, fixed, executions);
}

export function runJob(spec: JobSpec): JobSummary {
  const t0 = performance.now();
  const dataset = datasetWithNone(spec.n);
  const notes: string[] = [];
  let result: JobResult & { overhead?: ExecutionFigures; rowsAppended?: number };
  let totals: Totals;
  let extrapolated = false;
  if (spec.impl === 'kicho') {
    result = runKicho(dataset, spec.e, spec.batch ?? 200, path.join(ROOT, 'dist'), spec.prefix);
    totals = kichoTotals(result);
    if (result.postsLeft) {
      extrapolated = true;
      notes.push(
        `measured ${result.executions.length - 2} postApproved executions, extrapolated ${Math.ceil(result.postsLeft)} more`,
      );
    }
  } else {
    const naive = runNaive(dataset, spec.e, spec.prefix ?? spec.n, spec.perExecution);
    result = naive;
    totals = naiveTotals(naive, spec.n);
    if (naive.overhead && naive.rowsAppended < spec.n) {
      extrapolated = true;
      notes.push(`measured the first ${naive.rowsAppended} of ${spec.n} lines, extrapolated the rest`);
    }
  }
  const measured = sum(result.executions);
  const posts = result.executions.filter((x) => x.name === 'postApproved' || x.name === 'postAll');
  return {
    spec,
    totals,
    measured,
    extrapolated,
    checkedLines: result.outcome.lines,
    outcome: result.outcome,
    leftWaiting: result.leftWaiting,
    leftSending: result.leftSending,
    maxSheetsPerPost: Math.max(0, ...posts.map((x) => x.sheetsCalls)),
    maxExecutionVirtualMs: Math.max(0, ...result.executions.map((x) => x.virtualMs)),
    killed: result.executions.filter((x) => x.status === 'killed').length,
    notes: [...notes, ...result.notes],
    jobRealMs: performance.now() - t0,
  };
}

/** The 重複点検 case: `{ audit: J }` on the command line. */
export interface AuditJobSpec {
  audit: number;
}

// As a child process: run the job named on the command line and send the summary to the parent.
if (process.send && process.argv[2]) {
  const spec = JSON.parse(process.argv[2]) as JobSpec | AuditJobSpec;
  const summary: JobSummary | AuditResult =
    'audit' in spec ? runAudit({ journals: spec.audit }, path.join(ROOT, 'dist')) : runJob(spec);
  process.send(summary, () => process.exit(0));
}
