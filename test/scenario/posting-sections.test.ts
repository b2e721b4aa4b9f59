/**
 * What a later lock section of one posting execution reuses from the first (issue 18): the 台帳 header
 * read once, and the number formats of the span read once. A person changing either while the rows are
 * being sent must not make the settle write into the wrong column or leave a wrong value behind.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fillExistingRows } from '../../sim/bench/world';
import type { SheetModel } from '../../sim/gas/services/sheets-model';
import type { MfDataset } from '../../sim/mf/types';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

/**
 * `above` 完了 rows first (1,000: row 1 costs a read of its own in a later section; 0: it comes with the
 * span), then `n` imported rows approved.
 */
function approved(w: KichoWorld, n: number, above: number): string[] {
  if (above > 0)
    fillExistingRows(ledgerModel(w), above, { transactions: w.mf.transactions() } as unknown as MfDataset);
  const r = w.run('importTransactions');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  const keys = w
    .ledger()
    .filter((row) => row.状態 === '未判定')
    .slice(0, n)
    .map((row) => String(row.キー));
  for (const key of keys) {
    w.edit(key, '勘定科目', '消耗品費');
    w.edit(key, '操作', '承認');
  }
  return keys;
}

function ledgerModel(w: KichoWorld): SheetModel {
  const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
  assert.ok(sheet);
  return sheet;
}

function columnOf(sheet: SheetModel, header: string): number {
  for (let c = 1; c <= sheet.lastColumn(); c++) if (sheet.value(1, c) === header) return c;
  throw new Error(`no ${header}`);
}

/** Runs postApproved with `between` done once, by a person, while the first row is being sent. */
function postWithEdit(w: KichoWorld, between: () => void) {
  let done = false;
  w.emu.world.beforeCall = (_exec, call) => {
    if (!done && call.s === 'fetch' && JSON.stringify(call.a).includes('journalize')) {
      done = true;
      between();
    }
    return undefined;
  };
  const r = w.run('postApproved');
  w.emu.world.beforeCall = undefined;
  assert.ok(done, 'the edit happened between claim and settle');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  return r;
}

function assertPostedOnce(w: KichoWorld, keys: readonly string[]): void {
  const rows = new Map(w.ledger().map((r) => [String(r.キー), r]));
  for (const key of keys) {
    const journals = w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));
    assert.equal(journals.length, 1, `${key}: one journal`);
    assert.equal(rows.get(key)?.状態, '完了', key);
    assert.equal(rows.get(key)?.MF仕訳ID, journals[0].id, `${key}: MF仕訳ID under its own header`);
  }
}

describe('a later lock section checks what it reuses', () => {
  for (const [kind, above] of [
    ['moved', 0],
    ['renamed', 0],
    ['moved', 1_000],
    ['renamed', 1_000],
  ] as const) {
    test(`a column ${kind} while rows are sent (${above} rows above): the settle writes under the header as it is now`, () => {
      const w = kichoWorld();
      const keys = approved(w, 4, above);
      const sheet = ledgerModel(w);
      postWithEdit(w, () => {
        const a = columnOf(sheet, 'MF仕訳ID');
        const b = columnOf(sheet, 'メモ');
        // moved: the two columns trade places, cells and all; renamed: only their headers trade names.
        const last = kind === 'moved' ? sheet.lastRow() : 1;
        for (let r = 1; r <= last; r++) {
          const v = sheet.value(r, a);
          sheet.setValue(r, a, sheet.value(r, b));
          sheet.setValue(r, b, v);
        }
      });
      assertPostedOnce(w, keys);
      const memo = columnOf(sheet, 'メモ');
      const ids = new Set(w.mf.journals().map((j) => String(j.id)));
      for (let r = 2; r <= sheet.lastRow(); r++)
        assert.ok(!ids.has(String(sheet.value(r, memo))), `no journal id under メモ (row ${r})`);
      w.run('postApproved');
      assertPostedOnce(w, keys);
    });
  }

  test("cells formatted '@' while rows are sent (apostrophe kept): the settle's values are right, nothing is sent twice", () => {
    const w = kichoWorld({}, { plainTextApostrophe: 'kept' });
    const keys = approved(w, 4, 0);
    const sheet = ledgerModel(w);
    postWithEdit(w, () => {
      for (const h of ['状態', 'MF仕訳ID', '更新日時'])
        for (let r = 2; r <= sheet.lastRow(); r++)
          sheet.updateMeta(r, columnOf(sheet, h), { numberFormat: '@' });
    });
    const states = new Map(w.ledger().map((r) => [String(r.キー), String(r.状態)]));
    for (const key of keys) assert.equal(states.get(key), '完了', `${key}: no apostrophe kept in 状態`);
    assertPostedOnce(w, keys);
    w.run('postApproved');
    w.run('reconcile');
    assertPostedOnce(w, keys);
  });
});
