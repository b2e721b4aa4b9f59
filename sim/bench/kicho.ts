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
  headerCols,
  ledgerKeys,
  noneIds,
  type Outcome,
  OWNER,
  outcome,
  START,
  sheet,
  WINDOW,
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

function setSetting(emu: Emulator, item: string, value: string): void {
  const s = sheet(emu, '設定');
  for (let r = 2; r <= s.lastRow(); r++) if (s.value(r, 1) === item) s.setValue(r, 2, value);
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
  const setup = emu.run('setup', { kind: 'menu', user: OWNER });
  if (setup.status !== 'ok') throw new Error(`setup failed: ${JSON.stringify(setup.error)}`);
  setSetting(emu, '取込開始日', WINDOW[0]);
  setSetting(emu, '取込終了日', WINDOW[1]);
  setSetting(emu, '1回の送信上限', String(batchLimit));
  const rules = sheet(emu, 'ルール');
  const ruleCols = headerCols(rules);
  const rule: Record<string, unknown> = {
    優先度: 1,
    一致方法: '正規表現',
    キーワード: '.*',
    勘定科目: '消耗品費',
    自動承認: 'はい',
    有効: true,
  };
  const at = rules.lastRow() + 1;
  for (const [h, v] of Object.entries(rule)) rules.setValue(at, ruleCols.get(h) as number, v as never);
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
