/**
 * `npm run bench`: how the built bundle and the emulator behave on a large 台帳 (a benchmark, not a
 * test: it prints figures and asserts nothing). Service-call counts are exact; times are real time
 * on this machine and virtual (Apps Script latency model) time.
 */
import { performance } from 'node:perf_hooks';
import { LEDGER_HEADERS } from '../src/core/schema';
import { Emulator } from './gas/index';

const SIZES = (process.argv[2] ?? '1000,10000,100000').split(',').map(Number);

function ledgerRow(i: number): unknown[] {
  const values: Record<string, unknown> = {
    キー: `mf:BowMh${i.toString(36)}%2B3QQ%3D%3D`,
    状態: i % 7 === 0 ? '送信待ち' : '完了',
    取引日: `2026-${String((i % 12) + 1).padStart(2, '0')}-15`,
    入出金: i % 3 === 0 ? '入金' : '出金',
    金額: 1000 + (i % 5000),
    摘要: `ｱﾏｿﾞﾝ ${i}`,
    口座: '三井住友銀行',
    勘定科目: '消耗品費',
    試行回数: 1,
  };
  return LEDGER_HEADERS.map((h) => values[h] ?? '');
}

function measure(label: string, fn: () => { virtualMs: number; counters: Record<string, unknown> }): void {
  const t0 = performance.now();
  const { virtualMs, counters } = fn();
  const realMs = performance.now() - t0;
  process.stdout.write(
    `${label.padEnd(46)} real ${realMs.toFixed(0).padStart(6)} ms  virtual ${(virtualMs / 1000).toFixed(1).padStart(6)} s  ${JSON.stringify(counters)}\n`,
  );
}

for (const n of SIZES) {
  const emu = new Emulator({ bundleDir: 'dist' });
  emu.run('setup');
  const ledger = emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
  if (!ledger) throw new Error('setup did not create 台帳');
  ledger.maxRows = n + 1;
  for (let i = 0; i < n; i++) {
    for (const [j, v] of ledgerRow(i).entries()) ledger.setValue(i + 2, j + 1, v as never);
  }

  measure(`setup() with ${n} 台帳 rows`, () => {
    const r = emu.run('setup');
    const { sheetsReads, sheetsWrites, flushes, calls } = r.counters;
    return { virtualMs: r.endedAt - r.startedAt, counters: { calls, sheetsReads, sheetsWrites, flushes } };
  });

  measure(`one getValues + one setValues of ${n}×${LEDGER_HEADERS.length}`, () => {
    const exec = emu.open();
    const start = emu.world.clock.now();
    exec.eval(`var s = SpreadsheetApp.getActive().getSheetByName('台帳');
      var v = s.getRange(2, 1, s.getLastRow() - 1, s.getLastColumn()).getValues();
      s.getRange(2, 1, v.length, v[0].length).setValues(v); SpreadsheetApp.flush(); v.length`);
    const r = exec.end();
    const { sheetsReads, sheetsWrites, flushes, calls } = r.counters;
    return {
      virtualMs: emu.world.clock.now() - start,
      counters: { calls, sheetsReads, sheetsWrites, flushes },
    };
  });
}
