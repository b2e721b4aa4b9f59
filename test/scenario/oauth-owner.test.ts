/**
 * OAuth tokens are per user and triggers run as their creator: when the trigger owner is not the
 * account that connected MF, scheduled runs say who must connect (and setup and the sidebar warn).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Emulator } from '../../sim/gas/index';
import { FakeMf, TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../../sim/mf/fake-mf';
import { records } from '../../sim/person';
import { DIST } from '../helpers/emulator';
import { OWNER } from '../helpers/kicho';

const CLERK = 'clerk@example.com';

function consent(emu: Emulator, mf: FakeMf, user: string): void {
  const status = emu.run('connectionStatus', { user }).value as { authorizationUrl: string };
  assert.ok(status.authorizationUrl, 'the sidebar offers MFで許可する');
  const answer = mf.handle({ method: 'GET', url: status.authorizationUrl, headers: {} });
  const back = new URL(answer.headers.Location);
  const cb = emu.userCallback(Object.fromEntries(back.searchParams), user);
  assert.equal(cb.status, 'ok', JSON.stringify(cb.error));
}

test('the owner installed the trigger, a clerk connected MF: the scheduled run says the owner must connect; then it works', () => {
  const emu = new Emulator({ bundleDir: DIST, owner: OWNER, editors: [CLERK] });
  const mf = new FakeMf({ seed: 4, now: () => emu.world.clock.now() });
  for (const host of ['api-accounting.moneyforward.com', 'api.biz.moneyforward.com'])
    emu.world.fetch.route(host, (req) => mf.handle(req));
  emu.world.properties.script.set('MF_CLIENT_ID', TEST_CLIENT_ID);
  emu.world.properties.script.set('MF_CLIENT_SECRET', TEST_CLIENT_SECRET);
  assert.equal(emu.run('setup', { user: OWNER }).status, 'ok');
  consent(emu, mf, CLERK);
  assert.equal(emu.world.properties.script.get('KICHO_MF_CONNECTED_BY'), CLERK);

  const sidebar = emu.run('connectionStatus', { user: CLERK }).value as { ownerWarning: string };
  assert.match(sidebar.ownerWarning, new RegExp(`${OWNER} がメニュー「記帳 > 接続と設定 > MFに接続」`));
  const again = emu.run('setup', { user: OWNER }).value as { messages: string[] };
  assert.match(again.messages.join(' '), /MFに（OAuth方式で）接続したのは clerk@example\.com/);

  const sent = emu.world.fetch.log.length;
  const [run] = emu.advance(16 * 60_000);
  assert.equal(run.result.user, OWNER);
  assert.equal((run.result.value as { ok: boolean }).ok, false);
  assert.equal(emu.world.fetch.log.length, sent, 'nothing sent without a token');
  const log = records(emu.world, 'ログ')[0];
  assert.equal(log.処理, '定期実行');
  assert.match(
    String(log.メッセージ),
    new RegExp(
      `定期実行はトリガーを作った ${OWNER} のアカウントで動きますが、MFに（OAuth方式で）接続したのは ${CLERK}`,
    ),
  );

  // The owner connects too: the next scheduled run goes through.
  consent(emu, mf, OWNER);
  const [next] = emu.advance(16 * 60_000);
  assert.equal((next.result.value as { ok: boolean }).ok, true, JSON.stringify(next.result.value));
  assert.equal(
    (emu.run('connectionStatus', { user: OWNER }).value as { ownerWarning: string }).ownerWarning,
    '',
  );
});
