/** What a person sees around the runs: progress toasts, menu items, 要確認を開く, ヘルプ, 自動実行の設定. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXAMPLE_RULES, kichoWorld } from '../helpers/kicho';

function approved() {
  const w = kichoWorld();
  w.addRules(EXAMPLE_RULES);
  w.run('importTransactions');
  w.run('classifyPending');
  return w;
}

describe('progress', () => {
  test('a menu postApproved shows 「n/total 件送信済み」 toasts ending at the total; a trigger run shows none', () => {
    const w = approved();
    const waiting = w.ledger().filter((r) => r.状態 === '送信待ち').length;
    const before = w.emu.world.ui.events.length;
    w.run('postApproved');
    const toasts = w.emu.world.ui.events.slice(before).filter((e) => e.type === 'toast');
    assert.ok(toasts.length >= 1);
    assert.ok(toasts.every((t) => /^\d+\/\d+ 件送信済み$/.test(String(t.message))));
    assert.equal(toasts.at(-1)?.message, `${waiting}/${waiting} 件送信済み`);

    const w2 = approved();
    const mark = w2.emu.world.ui.events.length;
    w2.run('postApproved', { kind: 'trigger', args: [{ triggerUid: 't1', authMode: 'FULL' }] });
    assert.equal(w2.emu.world.ui.events.slice(mark).filter((e) => e.type === 'toast').length, 0);
  });
});
