/** The scheduled run, its trigger, the lost-ledger guard with restore, and the 要確認 sheet. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { records } from '../../sim/person';
import { remoteTagOf } from '../../src/core/keys';
import { EXAMPLE_RULES, kichoWorld, OWNER } from '../helpers/kicho';

const MINUTE = 60_000;

describe('triggers', () => {
  test('setup installs one runScheduled trigger per 照合間隔 and replaces it when the interval changes', () => {
    const w = kichoWorld();
    const mine = () => w.emu.world.triggers.visibleTo(OWNER).filter((t) => t.handler === 'runScheduled');
    assert.equal(mine().length, 1);
    assert.equal(mine()[0].schedule?.everyMinutes, 15);
    w.run('setup');
    assert.equal(mine().length, 1, 'not duplicated');
    w.setSetting('照合間隔（分）', '5');
    w.run('setup');
    assert.equal(mine().length, 1);
    assert.equal(mine()[0].schedule?.everyMinutes, 5);
  });

  test('another account running setup adds no trigger and is told who owns them', () => {
    const w = kichoWorld();
    const r = w.run('setup', { user: 'bob@example.com' });
    assert.equal(w.emu.world.triggers.visibleTo('bob@example.com').length, 0);
    assert.match(JSON.stringify(r.value), new RegExp(`${OWNER} が設定しています`));
  });
});

describe('runScheduled', () => {
  test('with 自動実行 オン the trigger imports, classifies and posts; each line once, over several runs', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.setSetting('自動実行', 'オン');
    w.setSetting('1回の送信上限', '50');
    const runs = w.emu.advance(60 * MINUTE);
    assert.ok(runs.length >= 3);
    assert.ok(
      runs.every((r) => r.result.status === 'ok' && r.result.kind === 'trigger'),
      JSON.stringify(runs.map((r) => r.result.error)),
    );
    const rows = w.ledger();
    const approved = rows.filter((r) => r.判定元 !== '' && r.状態 !== '要確認');
    assert.ok(approved.length > 50);
    assert.ok(approved.every((r) => r.状態 === '完了'));
    for (const r of rows)
      assert.ok(w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(String(r.キー)))).length <= 1);
    const triggerExecs = new Set(runs.map((r) => r.result.id));
    assert.equal(
      w.emu.world.ui.events.filter((e) => triggerExecs.has(e.exec)).length,
      0,
      'no dialog from a trigger',
    );
    const review = records(w.emu.world, '要確認');
    assert.equal(review.length, rows.filter((r) => r.状態 === '要確認').length);
    assert.ok(review.every((r) => String(r.対応).length > 0 && String(r.行).includes('行目')));
  });

  test('with 自動実行 オフ it only reconciles', () => {
    const w = kichoWorld();
    const runs = w.emu.advance(20 * MINUTE);
    assert.equal(runs.length, 1);
    assert.equal(w.ledger().length, 0);
    assert.match(JSON.stringify(runs[0].result.value), /自動実行はオフ/);
  });
});

describe('lost ledger', () => {
  test('an emptied 台帳 blocks posting until restoreLedgerFromMf rebuilds the rows as 完了', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.run('importTransactions');
    w.run('classifyPending');
    w.run('postApproved');
    const posted = w.ledger().filter((r) => r.状態 === '完了').length;
    assert.ok(posted > 0);
    // A person deletes every data row by mistake.
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    ledger.rows.splice(1);
    const blocked = w.run('postApproved');
    assert.equal((blocked.value as { ok: boolean }).ok, false);
    assert.match(JSON.stringify(blocked.value), /台帳を復元/);
    const restored = w.run('restoreLedgerFromMf');
    assert.equal((restored.value as { restored: number }).restored, posted);
    const rows = w.ledger();
    assert.ok(rows.every((r) => r.状態 === '完了' && String(r.MF仕訳ID) !== ''));
    const again = w.run('postApproved');
    assert.equal((again.value as { ok: boolean }).ok, true);
    w.run('importTransactions');
    w.run('classifyPending');
    w.run('postApproved');
    for (const r of w.ledger())
      assert.ok(w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(String(r.キー)))).length <= 1);
  });

  test('only a person in a menu run, typing 続行, may post past the guard; a default click or a trigger never does', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    w.run('importTransactions');
    w.run('classifyPending');
    // A person approves everything left, but has deleted most rows before posting.
    w.run('postApproved');
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    const dataRows = w.ledger().length;
    assert.ok(dataRows > 8);
    ledger.rows.splice(1 + Math.floor(dataRows / 4));
    const prompts = () => w.emu.world.ui.events.filter((e) => e.type === 'prompt');

    const byDefault = w.run('postApproved');
    assert.equal((byDefault.value as { ok: boolean }).ok, false, 'the default answer does not confirm');
    assert.equal(prompts().length, 1);
    assert.match(String(prompts()[0].message), /続行/);

    w.emu.world.ui.answers.push({ button: 'OK', text: 'はい' });
    assert.equal((w.run('postApproved').value as { ok: boolean }).ok, false, 'a wrong word does not confirm');

    const before = prompts().length;
    const fromTrigger = w.run('postApproved', { kind: 'trigger' });
    assert.equal((fromTrigger.value as { ok: boolean }).ok, false);
    assert.equal(prompts().length, before, 'a trigger is never asked');

    w.emu.world.ui.answers.push({ button: 'OK', text: ' 続行 ' });
    const confirmed = w.run('postApproved');
    assert.equal((confirmed.value as { ok: boolean }).ok, true);
    assert.match(JSON.stringify(confirmed.value), /台帳の減少を確認して登録を続けました/);
    const log = records(w.emu.world, 'ログ').map((r) => JSON.stringify(r));
    assert.ok(
      log.some((l) => l.includes('台帳の減少を確認')),
      'the override is in ログ',
    );
    // The new row count is the baseline now: the next run is not blocked.
    assert.equal((w.run('postApproved').value as { ok: boolean }).ok, true);
  });
});
