/**
 * `npm run bench:scale [-- ROWS [LINES]]` (default 200,000 and 500): a large 台帳 end to end in the
 * emulator (scale.ts) — import, classify, post, reconcile, 古い行をアーカイブ until nothing is left to move,
 * import again — with each execution's Sheets calls, cells, UrlFetch calls and modelled time.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScale, scaleTable } from './scale';

const here = path.dirname(fileURLToPath(import.meta.url));
const rows = Number(process.argv[2] ?? 200_000);
const lines = Number(process.argv[3] ?? 500);
const t0 = performance.now();
const r = runScale(rows, lines, path.join(here, '..', '..', 'dist'));
const ok = r.keysTwice === 0 && r.keysMissing === 0 && r.reimported === 0 && r.outcome.exactlyOnce === lines;
process.stdout.write(
  `${[
    ...scaleTable(r),
    '',
    `new lines posted exactly once: ${r.outcome.exactlyOnce}/${lines}; keys twice ${r.keysTwice}, missing ${r.keysMissing}; import after the archive added ${r.reimported}`,
    ...r.notes.map((n) => `note: ${n}`),
    `(${((performance.now() - t0) / 1000).toFixed(1)} s real)`,
  ].join('\n')}\n`,
);
process.exit(ok && r.notes.length === 0 ? 0 : 1);
