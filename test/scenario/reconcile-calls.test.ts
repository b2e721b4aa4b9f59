/**
 * Reconcile of 1,000 不明 rows (issue 18): MF calls must not grow with the rows. 500 rows were posted
 * (their answers lost: 不明, no MF仕訳ID), 500 were never sent; one reconcile run on the built bundle
 * finds the 500 journals and, after the grace period, returns the rest to 送信待ち — in ≤ 25 MF calls.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  attachMf,
  countState,
  datasetWithNone,
  headerCols,
  OWNER,
  START,
  setupBenchOffice,
  sheet,
} from '../../sim/bench/world';
import { Emulator } from '../../sim/gas/index';
import { DIST } from '../helpers/emulator';

const ROWS = 1_000;
const MAX_MF_CALLS = 25;

describe('reconcile of 1,000 不明 rows', () => {
  test(`finds the posted journals and frees the rest in ≤ ${MAX_MF_CALLS} MF calls`, () => {
    const emu = new Emulator({ bundleDir: DIST, owner: OWNER, start: START });
    const mf = attachMf(emu, datasetWithNone(ROWS));
    setupBenchOffice(emu, { '1回の送信上限': '1000' });
    for (const name of ['importTransactions', 'classifyPending'])
      assert.equal(emu.run(name, { kind: 'trigger', user: OWNER }).status, 'ok');

    const ledger = sheet(emu, '台帳');
    const col = headerCols(ledger);
    const rows = () => {
      const out: number[] = [];
      for (let r = 2; r <= ledger.lastRow(); r++)
        if (ledger.value(r, col.get('状態') as number) === '送信待ち') out.push(r);
      return out;
    };
    const waiting = rows();
    assert.equal(waiting.length, ROWS);
    // Half are never sent: they look like rows whose execution died after the claim.
    const neverSent = waiting.filter((_, i) => i % 2 === 1);
    for (const r of neverSent) ledger.setValue(r, col.get('状態') as number, '不明');
    for (let i = 0; i < 3 && countState(emu, '送信待ち') > 0; i++)
      assert.equal(emu.run('postApproved', { kind: 'trigger', user: OWNER }).status, 'ok');
    assert.equal(countState(emu, '完了'), ROWS / 2);
    // The answers of the posted half are lost: 不明 without MF仕訳ID, as after a timeout.
    for (const r of waiting) {
      ledger.setValue(r, col.get('状態') as number, '不明');
      ledger.setValue(r, col.get('MF仕訳ID') as number, '');
      ledger.setValue(r, col.get('完了日時') as number, '');
      ledger.setValue(r, col.get('更新日時') as number, '2026-11-01T00:00:00.000Z');
    }
    // The clock only: due triggers would reconcile first.
    emu.world.clock.advance(60 * 60_000);
    const journals = mf.journals().length;

    const run = emu.run('reconcile', { kind: 'trigger', user: OWNER });
    assert.equal(run.status, 'ok', JSON.stringify(run.error));
    assert.ok(
      run.counters.urlFetches <= MAX_MF_CALLS,
      `${run.counters.urlFetches} MF calls for ${ROWS} 不明 rows (> ${MAX_MF_CALLS})`,
    );
    assert.equal(countState(emu, '完了'), ROWS / 2, 'every posted row found');
    assert.equal(countState(emu, '送信待ち'), ROWS / 2, 'every unsent row free to send again');
    assert.equal(countState(emu, '不明'), 0);
    assert.equal(mf.journals().length, journals, 'reconcile posts nothing');
    for (const r of waiting.filter((_, i) => i % 2 === 0)) {
      const id = String(ledger.value(r, col.get('MF仕訳ID') as number));
      const tx = String(ledger.value(r, col.get('明細ID') as number));
      assert.ok(
        mf.journalsForTransaction(tx).some((j) => j.id === id),
        `row ${r}: journal ${id}`,
      );
    }
  });
});
