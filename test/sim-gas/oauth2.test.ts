/**
 * The fake OAuth2 library, end to end against the fake MF's authorization server: authorization
 * URL with a state token, the /usercallback round trip to authCallback, token storage in user
 * properties, refresh after expiry, and reset.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeMf, TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../../sim/mf/fake-mf';
import { fixtureEmulator } from '../helpers/emulator';

const AUTH = 'https://api.biz.moneyforward.com';
const CODE = `
  function service_() {
    return OAuth2.createService('mf')
      .setAuthorizationBaseUrl('${AUTH}/authorize')
      .setTokenUrl('${AUTH}/token')
      .setClientId('${TEST_CLIENT_ID}')
      .setClientSecret('${TEST_CLIENT_SECRET}')
      .setCallbackFunction('authCallback')
      .setPropertyStore(PropertiesService.getUserProperties())
      .setLock(LockService.getUserLock())
      .setScope('mfc/accounting/offices.read mfc/accounting/journal.write');
  }
  function authUrl() { return service_().getAuthorizationUrl(); }
  function authCallback(request) {
    return service_().handleCallback(request) ? 'connected' : 'denied';
  }
  function status() { var s = service_(); return s.hasAccess() ? s.getAccessToken() : null; }
  function disconnect() { service_().reset(); }
  function redirectUri() { return service_().getRedirectUri(); }`;

function setup() {
  const emu = fixtureEmulator(CODE);
  const mf = new FakeMf({ seed: 3, now: () => emu.world.clock.now() });
  emu.world.fetch.route('api.biz.moneyforward.com', (req) => mf.handle(req));
  return { emu, mf };
}

/** What the person's browser does: open the authorization URL, follow MF's redirect to /usercallback. */
function consent(emu: ReturnType<typeof setup>['emu'], mf: FakeMf, user: string) {
  const url = emu.run('authUrl', { user }).value as string;
  const res = mf.handle({ method: 'GET', url, headers: {} });
  assert.equal(res.status, 302);
  const location = new URL(res.headers.Location);
  assert.equal(location.pathname, `/macros/d/${emu.world.scriptId}/usercallback`);
  return emu.userCallback(Object.fromEntries(location.searchParams), user);
}

describe('OAuth2 library fake', () => {
  test('authorization code flow stores a token per user', () => {
    const { emu, mf } = setup();
    assert.equal(emu.run('status', { user: 'alice@example.com' }).value, null);
    const cb = consent(emu, mf, 'alice@example.com');
    assert.equal(cb.status, 'ok', JSON.stringify(cb.error));
    assert.equal(cb.value, 'connected');
    const token = emu.run('status', { user: 'alice@example.com' }).value;
    assert.equal(typeof token, 'string');
    assert.equal(
      emu.run('status', { user: 'bob@example.com' }).value,
      null,
      'tokens live in user properties',
    );
    assert.ok(emu.world.properties.users.get('alice@example.com')?.has('oauth2.mf'));
  });

  test('an expired token is refreshed with the rotating refresh token', () => {
    const { emu, mf } = setup();
    consent(emu, mf, 'alice@example.com');
    const first = emu.run('status', { user: 'alice@example.com' }).value;
    emu.advance(2 * 60 * 60 * 1000);
    const second = emu.run('status', { user: 'alice@example.com' }).value;
    assert.equal(typeof second, 'string');
    assert.notEqual(second, first);
    const refreshes = mf.requestLog.filter((r) => r.path === '/token');
    assert.equal(refreshes.length, 2);
  });

  test('a state token expires after its timeout', () => {
    const { emu } = setup();
    const url = new URL(emu.run('authUrl').value as string);
    const state = url.searchParams.get('state') ?? '';
    assert.ok(emu.world.ui.resolveStateToken(state, emu.world.clock.now()));
    emu.advance(3601 * 1000);
    assert.throws(() => emu.userCallback({ state, code: 'x' }), /Invalid or expired state token/);
  });

  test('reset disconnects, and the redirect URI names the script', () => {
    const { emu, mf } = setup();
    consent(emu, mf, 'alice@example.com');
    emu.run('disconnect', { user: 'alice@example.com' });
    assert.equal(emu.run('status', { user: 'alice@example.com' }).value, null);
    assert.equal(
      emu.run('redirectUri').value,
      `https://script.google.com/macros/d/${emu.world.scriptId}/usercallback`,
    );
  });
});
