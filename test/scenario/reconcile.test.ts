/** reconcile(): unknown outcomes are looked up in MF before anything is sent again. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

const MINUTE = 60_000;

function approveFirst(w: KichoWorld, n: number): string[] {
  w.run('importTransactions');
  const keys = w
    .ledger()
    .slice(0, n)
    .map((r) => String(r.キー));
  for (const k of keys) {
    w.edit(k, '勘定科目', '消耗品費');
    w.edit(k, '操作', '承認');
  }
  return keys;
}

const state = (w: KichoWorld, key: string) => w.ledger().find((r) => r.キー === key);
const journals = (w: KichoWorld, key: string) =>
  w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key))).length;

describe('reconcile', () => {
  test('commit-then-timeout: the journal is found and the row completes, never re-sent', () => {
    const w = kichoWorld();
    const [key] = approveFirst(w, 1);
    w.mf.injectFault({ kind: 'commit-then-timeout', match: { method: 'POST' } });
    w.run('postApproved');
    assert.equal(state(w, key)?.状態, '不明');
    w.run('reconcile');
    const row = state(w, key);
    assert.equal(row?.状態, '完了');
    assert.equal(row?.MF仕訳ID, w.mf.journals().find((j) => j.tags.includes(remoteTagOf(key)))?.id);
    assert.equal(journals(w, key), 1);
  });

  test('5xx before commit: nothing in MF; after the grace period the row is sent again, once', () => {
    const w = kichoWorld();
    const [key] = approveFirst(w, 1);
    w.mf.injectFault({ kind: '5xx-before-commit', match: { method: 'POST' } });
    w.run('postApproved');
    assert.equal(state(w, key)?.状態, '不明');
    w.run('reconcile');
    assert.equal(state(w, key)?.状態, '不明', 'within the grace period nothing changes');
    w.emu.advance(16 * MINUTE);
    w.run('reconcile');
    assert.equal(state(w, key)?.状態, '送信待ち');
    w.run('postApproved');
    assert.equal(state(w, key)?.状態, '完了');
    assert.equal(journals(w, key), 1);
  });

  test('a journal MF does not list yet (visibility lag) keeps the row 不明 until it shows', () => {
    const w = kichoWorld();
    const [key] = approveFirst(w, 1);
    w.mf.injectFault({ kind: 'visibility-lag', lagReads: 3 });
    w.mf.injectFault({ kind: 'commit-then-timeout', match: { method: 'POST' } });
    w.run('postApproved');
    w.emu.advance(20 * MINUTE);
    w.run('reconcile');
    assert.equal(state(w, key)?.状態, '不明', 'MF says the line is journalized: wait, do not resend');
    for (let i = 0; i < 3; i++) w.run('reconcile');
    assert.equal(state(w, key)?.状態, '完了');
    assert.equal(journals(w, key), 1);
  });

  test('a 送信中 row past its lease (its run was killed) is looked up and completes or is resent', () => {
    const w = kichoWorld();
    const keys = approveFirst(w, 2);
    // Killed right after MF committed the first journal, before any result was written.
    let sent = 0;
    w.emu.world.beforeCall = (_e, call) => {
      if (call.s === 'fetch' && JSON.stringify(call.a).includes('journalize')) sent += 1;
      return sent === 2 ? 'kill' : undefined;
    };
    assert.equal(w.run('postApproved').status, 'killed');
    w.emu.world.beforeCall = undefined;
    assert.deepEqual(
      keys.map((k) => state(w, k)?.状態),
      ['送信中', '送信中'],
    );
    w.run('reconcile');
    assert.deepEqual(
      keys.map((k) => state(w, k)?.状態),
      ['送信中', '送信中'],
      'within the lease: another run may still be sending',
    );
    w.emu.advance(16 * MINUTE);
    w.run('reconcile');
    assert.deepEqual(
      keys.map((k) => state(w, k)?.状態),
      ['完了', '送信待ち'],
    );
    w.run('postApproved');
    for (const k of keys) assert.equal(journals(w, k), 1);
  });

  test('attempts used up → 要確認 with a メモ, not another send', () => {
    const w = kichoWorld();
    const [key] = approveFirst(w, 1);
    w.setSetting('最大試行回数', '1');
    w.mf.injectFault({ kind: '5xx-before-commit', match: { method: 'POST' } });
    w.run('postApproved');
    w.emu.advance(16 * MINUTE);
    w.run('reconcile');
    const row = state(w, key);
    assert.equal(row?.状態, '要確認');
    assert.match(String(row?.メモ), /上限 1 回/);
    assert.equal(journals(w, key), 0);
  });
});
