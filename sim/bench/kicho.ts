/**
 * The whole posting job with the real built bundle (dist/): setup (not measured), then
 * importTransactions, classifyPending with one rule that auto-approves every line, and postApproved
 * executions repeated until no row is 送信待ち — as a time-driven trigger would run them.
 */
import { performance } from 'node:perf_hooks';
import { Emulator } from '../gas/index';
import type { MfDataset } from '../mf/types';
import {
  attachMf,
  countState,
  type ExecutionFigures,
  figures,
  fillExistingRows,
  ledgerKeys,
  noneIds,
  type Outcome,
  OWNER,
  outcome,
  START,
  setupBenchOffice,
  sheet,
} from './world';

export interface JobResult {
  executions: ExecutionFigures[];
  /**
   * When the job was cut short: the rows still 送信待ち, in postApproved executions' worth (the mean
   * measured one; fractional, the last one is partial). 0 when it ran to the end.
   */
  postsLeft?: number;
  outcome: Outcome;
  /** Rows left 送信待ち / 送信中 when the job stopped. */
  leftWaiting: number;
  leftSending: number;
  notes: string[];
}

/**
 * `maxPosts` cuts the job short after that many postApproved executions (the bench extrapolates the
 * rest from them); by default it runs until no row is 送信待ち.
 */
export function runKicho(
  dataset: MfDataset,
  e: number,
  batchLimit: number,
  bundleDir: string,
  maxPosts = Number.POSITIVE_INFINITY,
): JobResult {
  const emu = new Emulator({ bundleDir, owner: OWNER, start: START });
  const mf = attachMf(emu, dataset);
  setupBenchOffice(emu, { '1回の送信上限': String(batchLimit) });
  fillExistingRows(sheet(emu, '台帳'), e, dataset);

  const executions: ExecutionFigures[] = [];
  const notes: string[] = [];
  const run = (name: string) => {
    const t0 = performance.now();
    const r = emu.run(name, { kind: 'trigger', user: OWNER });
    const f = figures(name, r, performance.now() - t0);
    executions.push(f);
    if (r.status !== 'ok') notes.push(`${name} #${executions.length}: ${r.status} (${f.error ?? ''})`);
    if (r.internalErrors.length > 0) notes.push(`${name}: emulator errors ${r.internalErrors.join(' | ')}`);
    return r;
  };
  run('importTransactions');
  run('classifyPending');
  const n = noneIds(dataset).length;
  // A scheduled run every 5–15 minutes would do the same; the cap only stops a job that makes no progress.
  const cap = Math.ceil(n / 50) + 10;
  let posts = 0;
  let postsLeft = 0;
  while (countState(emu, '送信待ち') > 0 && posts < cap) {
    if (posts >= maxPosts) {
      const posted = n - countState(emu, '送信待ち');
      postsLeft = countState(emu, '送信待ち') / Math.max(1, posted / posts);
      break;
    }
    const before = countState(emu, '送信待ち');
    run('postApproved');
    posts++;
    if (countState(emu, '送信待ち') >= before) {
      notes.push(`postApproved #${posts} made no progress (${before} rows 送信待ち); stopped`);
      break;
    }
  }
  // When cut short, the check covers the lines already posted; the rest must still be 送信待ち.
  const waiting = postsLeft > 0 ? ledgerKeys(emu, '送信待ち') : new Set<string>();
  return {
    executions,
    postsLeft,
    outcome: outcome(
      emu,
      mf,
      noneIds(dataset).filter((id) => !waiting.has(`mf:${id}`)),
    ),
    leftWaiting: countState(emu, '送信待ち'),
    leftSending: countState(emu, '送信中'),
    notes,
  };
}
