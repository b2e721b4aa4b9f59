/** Rules, review through 操作, and the dry run, on the built bundle in the emulator. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXAMPLE_RULES, kichoWorld } from '../helpers/kicho';

describe('classifyPending', () => {
  test('rules fill the account and decide 送信待ち or 要確認; a second run changes nothing', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.run('importTransactions');
    const r = w.run('classifyPending');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const rows = w.ledger();
    const amazon = rows.filter((x) => x.摘要 === 'ｱﾏｿﾞﾝ');
    assert.ok(amazon.length > 0);
    for (const row of amazon) {
      assert.equal(row.状態, '送信待ち');
      assert.equal(row.勘定科目, '消耗品費');
      assert.equal(row.判定元, 'ルール#10');
      assert.ok(String(row.判定根拠).length > 0);
    }
    const furikomi = rows.filter((x) => String(x.摘要).startsWith('ﾌﾘｺﾐ') && x.入出金 === '入金');
    assert.ok(furikomi.every((x) => x.状態 === '要確認' && x.勘定科目 === '売掛金'));
    const unmatched = rows.filter((x) => x.判定元 === '');
    assert.ok(
      unmatched.every((x) => x.状態 === '要確認' && String(x.メモ).includes('当てはまるルールがありません')),
    );
    const snapshot = JSON.stringify(w.ledger());
    w.run('classifyPending');
    assert.equal(
      JSON.stringify(w.ledger()).replace(/"更新日時":"[^"]*"/g, ''),
      snapshot.replace(/"更新日時":"[^"]*"/g, ''),
    );
  });

  test('a person approves a 要確認 row through 操作; the 操作 is cleared and noted', () => {
    const w = kichoWorld();
    w.run('importTransactions');
    w.run('classifyPending');
    const row = w.ledger().find((x) => x.状態 === '要確認');
    assert.ok(row);
    w.edit(String(row.キー), '勘定科目', '雑費');
    w.edit(String(row.キー), '操作', '承認');
    w.run('classifyPending', { user: 'keiri@example.com' });
    const after = w.ledger().find((x) => x.キー === row.キー);
    assert.equal(after?.状態, '送信待ち');
    assert.equal(after?.操作, '');
    assert.match(String(after?.メモ), /承認: keiri@example.com/);
  });
});

describe('dryRun', () => {
  test('lists exactly what postApproved then sends, and changes nothing', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.run('importTransactions');
    w.run('classifyPending');
    const before = JSON.stringify(w.ledger());
    const journals = w.mf.journals().length;
    const d = w.run('dryRun');
    assert.equal(d.status, 'ok', JSON.stringify(d.error));
    assert.equal(JSON.stringify(w.ledger()), before, 'the 台帳 is unchanged');
    assert.equal(w.mf.journals().length, journals, 'nothing was posted');
    const toSend = (d.value as { toSend: string[] }).toSend;
    assert.ok(toSend.length > 0);
    assert.ok(w.emu.world.ui.events.some((e) => e.type === 'modal' && e.title === 'ドライラン'));
    const plan = w.emu.world.spreadsheet.sheets.find((s) => s.name === 'ドライラン');
    assert.equal((plan?.lastRow() ?? 0) - 1 >= toSend.length, true);
    w.setSetting('1回の送信上限', '1000');
    const d2 = w.run('dryRun');
    const planned = (d2.value as { toSend: string[] }).toSend;
    w.run('postApproved');
    const posted = w
      .ledger()
      .filter((x) => x.状態 === '完了' && x.MF仕訳ID !== '')
      .map((x) => x.キー);
    assert.deepEqual([...posted].sort(), [...planned].sort());
  });

  test('a trigger run of dryRun shows no dialog', () => {
    const w = kichoWorld();
    const d = w.run('dryRun', { kind: 'trigger' });
    assert.equal(d.status, 'ok');
    assert.equal(w.emu.world.ui.events.filter((e) => e.exec === d.id).length, 0);
  });
});
