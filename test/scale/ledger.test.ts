/**
 * A large 台帳 end to end in the emulator (issue 18), the built bundle by entry point names: import,
 * classify, post, reconcile, 古い行をアーカイブ until nothing is left to move (more than one run: at most
 * ARCHIVE_ROWS_PER_RUN rows a run), and an import that brings nothing back. Counts, not timings. 60,000
 * rows here keeps npm test within its budget; `npm run bench:scale` runs 200,000 (README figures), and
 * KICHO_SCALE_ROWS=200000 runs this test at that size.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runScale, scaleTable } from '../../sim/bench/scale';
import { ARCHIVE_ROWS_PER_RUN, ENTRIES_PER_CELL } from '../../src/core/archive';
import { DIST } from '../helpers/emulator';

const ROWS = Number(process.env.KICHO_SCALE_ROWS ?? 60_000);
const LINES = 300;

test(`a 台帳 of ${ROWS.toLocaleString('en')} rows: post, reconcile, archive, import again`, () => {
  const r = runScale(ROWS, LINES, DIST);
  console.log(scaleTable(r).join('\n'));
  assert.deepEqual(r.notes, []);
  for (const e of r.executions) assert.equal(e.status, 'ok', e.name);
  assert.equal(r.outcome.exactlyOnce, LINES);
  assert.equal(r.outcome.duplicated, 0);
  // Rows of earlier years (before 12 months ago) moved; this year's stayed with the new lines.
  assert.ok(r.archivedRows > ROWS * 0.9, `${r.archivedRows} archived`);
  assert.equal(r.ledgerRows + r.archivedRows, ROWS + LINES);
  assert.equal(r.keysTwice, 0);
  assert.equal(r.keysMissing, 0);
  assert.equal(r.reimported, 0);
  // The key index: a handful of cells read in one call.
  assert.equal(r.indexCells, 1 + Math.ceil(r.archivedRows / ENTRIES_PER_CELL));
  const archives = r.executions.filter((e) => e.name === 'archiveLedger');
  assert.equal(archives.length, Math.ceil(r.archivedRows / ARCHIVE_ROWS_PER_RUN) + 1);
  // Batched: an archive run's Sheets calls do not grow with the rows it moves.
  for (const e of archives) assert.ok(e.sheetsCalls <= 45, `${e.sheetsCalls} Sheets calls`);
  for (const e of r.executions) assert.ok(e.virtualMs < 6 * 60_000, `${e.name} within 6 minutes`);
});
