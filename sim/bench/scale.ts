/**
 * A large 台帳 end to end (issue 18): `rows` 完了 rows of earlier years written host-side, then the real
 * entry points by name — import `lines` new MF lines, classify, post until nothing waits, reconcile,
 * 古い行をアーカイブ until nothing is left to move, and an import again — with every execution's Sheets
 * calls, cells, virtual and wall time. Used by test/scale (200,000 rows) and `npm run bench -- --scale`.
 */
import type { Emulator } from '../gas/index';
import { Emulator as Emu } from '../gas/index';
import {
  attachMf,
  countState,
  datasetWithNone,
  type ExecutionFigures,
  figures,
  fillExistingRows,
  headerCols,
  noneIds,
  type Outcome,
  OWNER,
  outcome,
  START,
  setupBenchOffice,
  sheet,
} from './world';

export interface ScaleFigures extends ExecutionFigures {
  cells: number;
}

export interface ScaleResult {
  rows: number;
  lines: number;
  executions: ScaleFigures[];
  outcome: Outcome;
  /** After the archive: rows on the 台帳, rows in 台帳アーカイブ, entries in the key index. */
  ledgerRows: number;
  archivedRows: number;
  indexCells: number;
  /** Rows on the 台帳 or archived, by key: none twice, none missing. */
  keysTwice: number;
  keysMissing: number;
  /** What the import after the archive added (nothing: every line is on the 台帳 or archived). */
  reimported: number;
  notes: string[];
}

function keysOf(emu: Emulator, name: string): string[] {
  const s = emu.world.spreadsheet.sheets.find((x) => x.name === name);
  if (!s) return [];
  const col = headerCols(s).get('キー') as number;
  const out: string[] = [];
  for (let r = 2; r <= s.lastRow(); r++) {
    const k = String(s.value(r, col));
    if (k !== '') out.push(k);
  }
  return out;
}

export function runScale(rows: number, lines: number, bundleDir: string, months = 12): ScaleResult {
  const dataset = datasetWithNone(lines);
  const emu = new Emu({ bundleDir, owner: OWNER, start: START });
  const mf = attachMf(emu, dataset);
  setupBenchOffice(emu, { '1回の送信上限': '1000', アーカイブまでの月数: String(months) });
  fillExistingRows(sheet(emu, '台帳'), rows, dataset);
  const before = new Set(keysOf(emu, '台帳'));

  const executions: ScaleFigures[] = [];
  const notes: string[] = [];
  const run = (name: string) => {
    const t0 = performance.now();
    const r = emu.run(name, { kind: 'trigger', user: OWNER });
    const f = figures(name, r, performance.now() - t0);
    executions.push({ ...f, cells: r.counters.sheetsCells ?? 0 });
    const value = r.value as { ok?: boolean; messages?: string[] } | undefined;
    if (r.status !== 'ok' || value?.ok === false)
      notes.push(
        `${name} #${executions.length}: ${r.status} ${f.error ?? ''} ${(value?.messages ?? []).join(' ')}`,
      );
    if (r.internalErrors.length > 0) notes.push(`${name}: emulator errors ${r.internalErrors.join(' | ')}`);
    return r;
  };
  run('importTransactions');
  run('classifyPending');
  for (let i = 0; i < 20 && countState(emu, '送信待ち') > 0; i++) run('postApproved');
  run('reconcile');
  // 古い行をアーカイブ moves ARCHIVE_ROWS_PER_RUN a run: again until a run moves nothing.
  for (let i = 0; i < 10; i++) {
    const r = run('archiveLedger');
    if ((r.value as { count?: number } | undefined)?.count === 0) break;
  }
  const post = outcome(emu, mf, noneIds(dataset));
  const again = run('importTransactions');
  const live = keysOf(emu, '台帳');
  const archived = keysOf(emu, '台帳アーカイブ');
  const seen = new Map<string, number>();
  for (const k of [...live, ...archived]) seen.set(k, (seen.get(k) ?? 0) + 1);
  const expected = new Set([...before, ...noneIds(dataset).map((id) => `mf:${id}`)]);
  const index = emu.world.spreadsheet.sheets.find((x) => x.name === 'アーカイブ索引');
  return {
    rows,
    lines,
    executions,
    outcome: post,
    ledgerRows: live.length,
    archivedRows: archived.length,
    indexCells: index ? index.lastRow() : 0,
    keysTwice: [...seen.values()].filter((n) => n > 1).length,
    keysMissing: [...expected].filter((k) => !seen.has(k)).length,
    reimported: Number((again.value as { added?: number } | undefined)?.added ?? -1),
    notes,
  };
}

/** One line per execution, for the bench and the test's log. */
export function scaleTable(r: ScaleResult): string[] {
  const out = [
    `台帳 ${r.rows.toLocaleString('en')} rows + ${r.lines} new lines: after the archive ${r.ledgerRows.toLocaleString('en')} on the 台帳, ${r.archivedRows.toLocaleString('en')} archived (index ${r.indexCells} cells)`,
    '| execution | status | Sheets calls | cells | UrlFetch | virtual s | wall s |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const e of r.executions)
    out.push(
      `| ${e.name} | ${e.status} | ${e.sheetsCalls} | ${e.cells.toLocaleString('en')} | ${e.urlFetches} | ${(e.virtualMs / 1000).toFixed(1)} | ${(e.realMs / 1000).toFixed(1)} |`,
    );
  return out;
}
