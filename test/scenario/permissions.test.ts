/**
 * Granular consent: a person unticked a permission on Google's screen. Every entry point stops before
 * any work and says in Japanese which permission is missing, what it is for and how to grant it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SCOPE } from '../../sim/gas/authorization';
import { GAS_MESSAGES } from '../../sim/gas/errors';
import { kichoWorld, OWNER, records } from '../helpers/kicho';

const WITHOUT_FETCH = [SCOPE.spreadsheetsCurrent, SCOPE.containerUi, SCOPE.scriptApp, SCOPE.email];

describe('a missing permission', () => {
  test('at a menu entry: nothing is fetched or written, a Japanese alert names it, then Google’s prompt asks for it', () => {
    const w = kichoWorld();
    const clerk = 'clerk@example.com';
    w.emu.world.grants.set(clerk, WITHOUT_FETCH);
    const ledgerBefore = JSON.stringify(w.ledger());
    const sent = w.emu.world.fetch.log.length;
    const r = w.run('importTransactions', { user: clerk });
    assert.equal(r.error?.message, GAS_MESSAGES.authorizationRequired, 'the run ends with Google’s prompt');
    assert.equal(w.emu.world.fetch.log.length, sent, 'nothing was sent');
    assert.equal(JSON.stringify(w.ledger()), ledgerBefore);
    const alert = w.emu.world.ui.events.find((e) => e.type === 'alert' && e.user === clerk);
    assert.ok(alert, 'a Japanese explanation first');
    assert.match(String(alert.message), /外部サービスへの接続/);
    assert.match(String(alert.message), /MFクラウド会計/);
    assert.match(String(alert.message), /すべての項目にチェック/);
    assert.doesNotMatch(String(alert.message), /You do not have permission/);
    const prompt = w.emu.world.ui.events.find((e) => e.type === 'authorization');
    assert.deepEqual(prompt?.scopes, [SCOPE.externalRequest]);
    const log = records(w.emu, 'ログ')[0];
    assert.equal(log.処理, '明細の取込');
    assert.match(String(log.メッセージ), /外部サービスへの接続/);
    // Granted in Google's prompt, the same click works.
    w.emu.world.grants.grantAll(clerk);
    const again = w.run('importTransactions', { user: clerk });
    assert.equal(again.status, 'ok');
    assert.ok(((again.value as { added?: number }).added ?? 0) > 0);
  });

  test('at a trigger: the owner’s scheduled run stops, ログ says who must run 初期設定 and grant what', () => {
    const w = kichoWorld();
    w.setSetting('自動実行', 'オン');
    w.emu.world.grants.set(OWNER, WITHOUT_FETCH);
    const sent = w.emu.world.fetch.log.length;
    const runs = w.emu.advance(16 * 60_000);
    assert.ok(runs.length > 0, 'the trigger fired');
    for (const run of runs) {
      assert.equal(run.result.status, 'ok', JSON.stringify(run.result.error));
      assert.equal((run.result.value as { ok: boolean }).ok, false);
    }
    assert.equal(w.emu.world.fetch.log.length, sent, 'nothing was sent');
    assert.equal(w.ledger().length, 0, 'nothing imported');
    assert.equal(
      w.emu.world.ui.events.filter((e) => e.type === 'authorization').length,
      0,
      'no prompt in a trigger',
    );
    const log = records(w.emu, 'ログ')[0];
    assert.equal(log.処理, '定期実行');
    assert.match(String(log.メッセージ), /外部サービスへの接続/);
    assert.match(
      String(log.メッセージ),
      new RegExp(`${OWNER} がこのスプレッドシートを開き、メニュー「記帳 > 接続と設定 > 初期設定」`),
    );
  });

  test('without the sheet permission a trigger run cannot write ログ: it fails with the Japanese message', () => {
    const w = kichoWorld();
    w.emu.world.grants.set(OWNER, [SCOPE.containerUi, SCOPE.externalRequest, SCOPE.scriptApp, SCOPE.email]);
    const [run] = w.emu.advance(16 * 60_000);
    assert.equal(run.result.status, 'error');
    assert.match(String(run.result.error?.message), /このスプレッドシートの表示と管理/);
  });

  test('a dialog target (設定 dialog) answers with the Japanese message instead of an English exception', () => {
    const w = kichoWorld();
    w.emu.world.grants.set('clerk@example.com', WITHOUT_FETCH);
    const r = w.run('saveSettings', { user: 'clerk@example.com', args: [{}] });
    assert.equal(r.status, 'error');
    assert.match(String(r.error?.message), /外部サービスへの接続/);
  });
});
