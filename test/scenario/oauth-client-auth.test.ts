/**
 * OAuth client authentication (issue 12 §3): MF's App Portal registers each app with client_secret_basic
 * or client_secret_post and refuses the other. The connection sidebar's saveOAuthClient takes the method,
 * the token request follows it through the OAuth2 library's own request building (the emulator's library
 * builds the request as the real one does: the secret always in the body, token headers merged, the
 * payload handler last), and a refused client says which setting to check.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Emulator } from '../../sim/gas/index';
import {
  FakeMf,
  TEST_CLIENT_ID,
  TEST_CLIENT_ID_BASIC,
  TEST_CLIENT_SECRET,
  TEST_CLIENT_SECRET_BASIC,
} from '../../sim/mf/fake-mf';
import { fileContract } from '../contract/shared';
import { DIST } from '../helpers/emulator';
import { OWNER } from '../helpers/kicho';

const TOKEN_URL = 'https://api.biz.moneyforward.com/token';

function world() {
  const emu = new Emulator({ bundleDir: DIST, owner: OWNER, start: '2026-11-30T09:00:00+09:00' });
  const mf = new FakeMf({ seed: 4, now: () => emu.world.clock.now() });
  for (const host of ['api-accounting.moneyforward.com', 'api.biz.moneyforward.com'])
    emu.world.fetch.route(
      host,
      fileContract.wrap((req) => mf.handle(req)),
    );
  emu.run('setup');
  const settings = emu.world.spreadsheet.sheets.find((s) => s.name === '設定');
  for (let r = 2; settings && r <= settings.lastRow(); r++) {
    if (settings.value(r, 1) === '取込開始日') settings.setValue(r, 2, '2026-01-01');
    if (settings.value(r, 1) === '取込終了日') settings.setValue(r, 2, '2026-06-30');
  }
  return { emu, mf };
}

/** What a person does in the sidebar: save the client, open 「MFで許可する」, come back to /usercallback. */
function connect(emu: Emulator, mf: FakeMf, id: string, secret: string, method: string) {
  const saved = emu.run('saveOAuthClient', { user: OWNER, args: [id, secret, method] });
  const value = saved.value as { ok: boolean; authorizationUrl: string };
  assert.equal(value.ok, true, JSON.stringify(saved.value));
  const consent = mf.handle({ method: 'GET', url: value.authorizationUrl, headers: {} });
  const back = new URL(consent.headers.Location ?? '');
  return emu.userCallback(Object.fromEntries(back.searchParams));
}

function tokenRequests(emu: Emulator) {
  return emu.world.fetch.log.filter((r) => r.url === TOKEN_URL);
}

function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

const APPS = [
  { method: 'client_secret_basic', id: TEST_CLIENT_ID_BASIC, secret: TEST_CLIENT_SECRET_BASIC },
  { method: 'client_secret_post', id: TEST_CLIENT_ID, secret: TEST_CLIENT_SECRET },
] as const;

describe('OAuth client authentication, both ways', () => {
  for (const app of APPS) {
    test(`${app.method}: consent, import, and a refresh an hour later all authenticate the registered way`, () => {
      const { emu, mf } = world();
      assert.equal(mf.clientAuthMethod(app.id), app.method);
      const cb = connect(emu, mf, app.id, app.secret, app.method);
      assert.equal(cb.status, 'ok', JSON.stringify(cb.error));
      assert.match(JSON.stringify(cb.value), /MFに接続しました/);

      const first = emu.run('importTransactions');
      assert.ok(((first.value as { added: number }).added ?? 0) > 0, JSON.stringify(first.value));
      emu.advance(3600_000);
      const second = emu.run('importTransactions');
      assert.equal((second.value as { ok: boolean }).ok, true, JSON.stringify(second.value));

      const sent = tokenRequests(emu);
      assert.deepEqual(
        sent.map((r) => new URLSearchParams(r.body ?? '').get('grant_type')),
        ['authorization_code', 'refresh_token'],
      );
      for (const r of sent) {
        const form = new URLSearchParams(r.body ?? '');
        const basic = header(r.headers, 'authorization');
        if (app.method === 'client_secret_basic') {
          assert.equal(basic, `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`);
          assert.equal(form.get('client_secret'), null, 'the secret travels only in the header');
        } else {
          assert.equal(basic, undefined);
          assert.equal(form.get('client_secret'), app.secret);
          assert.equal(form.get('client_id'), app.id);
        }
      }
      assert.ok(sent.every((r) => r.status === 200));
    });
  }

  test('saved with the other method, the consent ends in invalid_client and kicho says which setting to check', () => {
    const { emu, mf } = world();
    // The app was registered with CLIENT_SECRET_BASIC, but the sidebar was left on POST.
    const cb = connect(emu, mf, TEST_CLIENT_ID_BASIC, TEST_CLIENT_SECRET_BASIC, 'client_secret_post');
    assert.equal(cb.status, 'ok');
    const page = JSON.stringify(cb.value);
    assert.match(page, /invalid_client/);
    assert.match(page, /クライアント認証方式/);
    assert.match(page, /client_secret_basic か client_secret_post/);
    assert.ok(!page.includes(TEST_CLIENT_SECRET_BASIC), 'no secret on the page');
    assert.equal(tokenRequests(emu).at(-1)?.status, 401);
  });

  test('an unknown method is refused before anything is saved', () => {
    const { emu } = world();
    const r = emu.run('saveOAuthClient', { user: OWNER, args: [TEST_CLIENT_ID, TEST_CLIENT_SECRET, 'none'] });
    assert.equal((r.value as { ok: boolean }).ok, false);
    assert.equal(emu.world.properties.script.get('MF_CLIENT_ID'), undefined);
  });
});
