/**
 * Import, classify and the 要確認 refresh read a few columns of every 台帳 row, and whole only the rows
 * they act on (issue 18), on the built bundle in the emulator: the cells read per execution grow with
 * the 台帳 by those columns, not by 22; rows a person sorts between the scan and the read of whole rows
 * are found again; a 完了 row edited after posting reaches 要確認 within the day's full check.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  attachMf,
  datasetWithNone,
  fillExistingRows,
  OWNER,
  START,
  setupBenchOffice,
  sheet,
} from '../../sim/bench/world';
import { Emulator } from '../../sim/gas/index';
import { records as recordsOf } from '../../sim/person';
import { DIST } from '../helpers/emulator';
import { kichoWorld } from '../helpers/kicho';

function benchWorld(n: number, e: number) {
  const dataset = datasetWithNone(n);
  const emu = new Emulator({ bundleDir: DIST, owner: OWNER, start: START });
  attachMf(emu, dataset);
  setupBenchOffice(emu, { '1回の送信上限': '1000' });
  fillExistingRows(sheet(emu, '台帳'), e, dataset);
  const cells = (name: string) => {
    const r = emu.run(name, { kind: 'trigger', user: OWNER });
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.deepEqual(r.internalErrors, []);
    return r.counters.sheetsCells ?? 0;
  };
  return { emu, cells };
}

function ledgerOf(emu: Emulator) {
  return recordsOf(emu.world, '台帳');
}

/**
 * Reverses the 台帳's data rows (a person sorting) just before the first read of whole 台帳 rows below
 * `below` (every column: the span read). Returns how many times it did.
 */
function sortBeforeSpanRead(emu: Emulator, below: number): () => number {
  let sorted = 0;
  const ledger = emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
  assert.ok(ledger);
  emu.world.beforeCall = (_exec, call) => {
    const ref = (call.a?.[0] ?? {}) as { sh?: number; r?: number; w?: number };
    if (sorted > 0 || call.s !== 'sheets' || call.m !== 'getValues' || ref.sh !== ledger.id) return undefined;
    if ((ref.r ?? 0) > below && (ref.w ?? 0) >= 22) {
      sorted++;
      const last = ledger.lastRow();
      ledger.rows.splice(1, last - 1, ...ledger.rows.slice(1, last).reverse());
    }
    return undefined;
  };
  return () => {
    emu.world.beforeCall = undefined;
    return sorted;
  };
}

describe('cells read per execution', () => {
  test('grow with the 台帳 by the scanned columns only (import 5, classify 3; 4 more when the rules changed)', () => {
    const small = benchWorld(200, 2_000);
    const big = benchWorld(200, 12_000);
    const extra = 10_000;
    const per = (a: number, b: number) => (b - a) / extra;
    const importGrowth = per(small.cells('importTransactions'), big.cells('importTransactions'));
    // The first classification after the rule was added counts the rules' overlaps on every line.
    const firstClassify = per(small.cells('classifyPending'), big.cells('classifyPending'));
    for (const w of [small, big])
      assert.equal(ledgerOf(w.emu).filter((r) => r.状態 === '送信待ち').length, 200);
    const againClassify = per(small.cells('classifyPending'), big.cells('classifyPending'));
    // A whole read is 22 cells a row (the 台帳 has 22 columns): import read it twice, classify once.
    assert.ok(importGrowth <= 5.01, `import reads ${importGrowth} cells per extra row`);
    assert.ok(firstClassify <= 7.01, `classify reads ${firstClassify} cells per extra row`);
    assert.ok(againClassify <= 3.01, `classify (rules unchanged) reads ${againClassify} cells per extra row`);
  });
});

describe('rows moved between the scan and the read of whole rows', () => {
  test('classify: a person reverses the 台帳 just before the span is read; every row keeps its own decision', () => {
    const w = benchWorld(50, 3_000);
    w.cells('importTransactions');
    const before = new Map(ledgerOf(w.emu).map((r) => [String(r.キー), r]));
    const done = sortBeforeSpanRead(w.emu, 2);
    w.cells('classifyPending');
    assert.equal(done(), 1, 'the sort happened');
    const after = ledgerOf(w.emu);
    assert.equal(after.length, before.size);
    for (const r of after) {
      const was = before.get(String(r.キー));
      assert.ok(was, `row ${r.キー} was there`);
      if (was.状態 === '未判定') {
        assert.equal(r.状態, '送信待ち', `${r.キー} decided`);
        assert.equal(r.勘定科目, '消耗品費');
      } else {
        // Rows the run did not decide keep every cell (a write across moved rows would break them).
        for (const h of ['状態', '勘定科目', '摘要', '金額', 'MF仕訳ID', '指紋', 'メモ'])
          assert.equal(String(r[h]), String(was[h]), `${r.キー} ${h}`);
      }
    }
  });

  test('import: rows sorted between the scan and the read of whole rows; a broken key is put back on its own row, nothing added twice', () => {
    const w = kichoWorld();
    assert.equal(w.run('importTransactions').status, 'ok');
    const rows = w.ledger();
    const victim = rows[3];
    const key = String(victim.キー);
    w.edit(key, 'キー', 'mf:broken');
    const done = sortBeforeSpanRead(w.emu, 1);
    const r = w.run('importTransactions');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.equal(done(), 1, 'the sort happened');
    const after = w.ledger();
    assert.equal(after.length, rows.length, 'no line added a second time');
    const restored = after.filter((x) => x.キー === key);
    assert.equal(restored.length, 1);
    assert.equal(restored[0].明細ID, victim.明細ID);
    assert.equal(after.filter((x) => x.キー === 'mf:broken').length, 0);
  });
});

describe('要確認: a 完了 row edited after posting', () => {
  const EDITED = '登録した後で内容が変更されています。';

  function posted() {
    const w = kichoWorld();
    assert.equal(w.run('importTransactions').status, 'ok');
    const keys = w
      .ledger()
      .slice(0, 3)
      .map((r) => String(r.キー));
    for (const k of keys) {
      w.edit(k, '勘定科目', '消耗品費');
      w.edit(k, '操作', '承認');
    }
    assert.equal(w.run('classifyPending').status, 'ok');
    assert.equal(w.run('postApproved').status, 'ok');
    for (const k of keys) assert.equal(w.ledger().find((r) => r.キー === k)?.状態, '完了');
    return { w, keys };
  }

  const reasons = (w: ReturnType<typeof kichoWorld>, key: string) =>
    recordsOf(w.emu.world, '要確認')
      .filter((r) => r.キー === key)
      .map((r) => String(r.理由));

  test('listed by the day’s full check within 24 hours of scheduled runs, kept while edited, gone once put back; never sent again', () => {
    const { w, keys } = posted();
    // The day's full check (a scheduled run with nothing due does it first).
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    const journals = w.mf.journals().length;
    const key = keys[1];
    w.edit(key, '勘定科目', '旅費交通費');
    // A narrow refresh does not read the nine columns of every 完了 row: not listed yet.
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    assert.deepEqual(reasons(w, key), []);
    // Within a day of scheduled runs the full check lists it.
    w.emu.world.clock.advance(24 * 3_600_000);
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    assert.deepEqual(reasons(w, key), [EDITED]);
    // Narrow refreshes keep it (re-checked from its own row) …
    assert.equal(w.run('classifyPending', { kind: 'trigger' }).status, 'ok');
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    assert.deepEqual(reasons(w, key), [EDITED]);
    // … until the person puts it back.
    w.edit(key, '勘定科目', '消耗品費');
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    assert.deepEqual(reasons(w, key), []);
    assert.equal(w.mf.journals().length, journals, 'nothing sent again');
  });

  test('the menu 「要確認を開く」 lists it at once', () => {
    const { w, keys } = posted();
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    w.edit(keys[0], '税区分', '対象外');
    assert.equal(w.run('openReview').status, 'ok');
    assert.deepEqual(reasons(w, keys[0]), [EDITED]);
  });
});
