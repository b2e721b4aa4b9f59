/**
 * Runs sim/bench/naive.js as its own Apps Script project (Code.js in a temp dir) against a world
 * prepared like kicho's: the same existing 台帳 rows and the same fake MF data. Executions are
 * repeated until one ends by itself (every listed line handled); each may be killed at 6 minutes.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { Emulator } from '../gas/index';
import type { MfDataset } from '../mf/types';
import type { JobResult } from './kicho';
import {
  attachMf,
  countState,
  type ExecutionFigures,
  figures,
  fillExistingRows,
  ledgerKeys,
  noneIds,
  OWNER,
  outcome,
  START,
  WINDOW,
} from './world';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface NaiveResult extends JobResult {
  /** Lines the naive script was allowed to handle (all N, or a prefix when the run would be too long). */
  processedLimit: number;
  /** New 台帳 rows the naive script appended. */
  rowsAppended: number;
  /** With a prefix: one execution that handles no line (token, masters, listing), to extrapolate from. */
  overhead?: ExecutionFigures;
}

/**
 * `limit` < N measures a prefix of that many lines (extrapolated by the caller). `perExecution` caps
 * the lines of one execution: on a large 台帳 each line costs ~0.2 s of real time, and the emulator
 * stops a guest that runs for 120 real seconds.
 */
export function runNaive(
  dataset: MfDataset,
  e: number,
  limit: number,
  perExecution = Number.POSITIVE_INFINITY,
): NaiveResult {
  const dir = mkdtempSync(path.join(tmpdir(), 'kicho-naive-'));
  try {
    copyFileSync(path.join(here, 'naive.js'), path.join(dir, 'Code.js'));
    const emu = new Emulator({ bundleDir: dir, owner: OWNER, start: START });
    const mf = attachMf(emu, dataset);
    emu.world.properties.script.set('IMPORT_START', WINDOW[0]);
    emu.world.properties.script.set('IMPORT_END', WINDOW[1]);
    const ledger = emu.world.spreadsheet.addSheet('台帳');
    LEDGER_HEADERS.forEach((h, i) => {
      ledger.setValue(1, i + 1, h);
    });
    fillExistingRows(ledger, e, dataset);

    const n = noneIds(dataset).length;
    let overhead: ExecutionFigures | undefined;
    if (limit < n) {
      emu.world.properties.script.set('BENCH_LINE_LIMIT', '0');
      const t0 = performance.now();
      overhead = figures(
        'postAll',
        emu.run('postAll', { kind: 'trigger', user: OWNER }),
        performance.now() - t0,
      );
    }
    const executions: ExecutionFigures[] = [];
    const notes: string[] = [];
    const appended = () => Math.max(0, ledger.lastRow() - 1 - e);
    // Each execution handles at least a few hundred lines before the 6-minute kill; the cap only
    // stops a job that makes no progress.
    const cap = Math.ceil(limit / 50) + 10;
    while (executions.length < cap) {
      const before = appended();
      if (before >= limit) break;
      const allowed = Math.min(limit - before, perExecution);
      emu.world.properties.script.set('BENCH_LINE_LIMIT', String(allowed));
      const t0 = performance.now();
      const r = emu.run('postAll', { kind: 'trigger', user: OWNER });
      executions.push(figures('postAll', r, performance.now() - t0));
      if (r.internalErrors.length > 0) notes.push(`postAll: emulator errors ${r.internalErrors.join(' | ')}`);
      if (r.status === 'error') {
        notes.push(`postAll #${executions.length}: error ${executions.at(-1)?.error}`);
        break;
      }
      // Ended by itself before its cap: every listed line is handled.
      if (r.status === 'ok' && appended() - before < allowed) break;
      if (appended() === before) {
        notes.push(`postAll #${executions.length} appended nothing; stopped`);
        break;
      }
    }
    if (executions.length >= cap) notes.push(`stopped after ${cap} executions`);
    // With a prefix, the check covers the lines the script reached (those with a 台帳 row).
    const keys = limit >= n ? undefined : ledgerKeys(emu);
    const ids = noneIds(dataset).filter((id) => keys === undefined || keys.has(`mf:${id}`));
    return {
      executions,
      outcome: outcome(emu, mf, ids),
      leftWaiting: countState(emu, '送信待ち'),
      leftSending: countState(emu, '送信中'),
      notes,
      processedLimit: limit,
      rowsAppended: appended(),
      overhead,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
