/** Granular consent (granted scopes per user) and the daily quotas, with Apps Script's messages. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SCOPE } from '../../sim/gas/authorization';
import { GAS_MESSAGES } from '../../sim/gas/errors';
import { fixtureEmulator } from '../helpers/emulator';

const ALL = [
  SCOPE.spreadsheetsCurrent,
  SCOPE.containerUi,
  SCOPE.externalRequest,
  SCOPE.scriptApp,
  SCOPE.email,
];

const CODE = `
  function attempt(fn) { try { return String(fn()); } catch (e) { return String(e); } }
  function fetchIt() { return attempt(() => UrlFetchApp.fetch('https://api.example.com/x').getResponseCode()); }
  function sheetIt() { return attempt(() => SpreadsheetApp.getActiveSpreadsheet().getSheets().length); }
  function triggersIt() { return attempt(() => ScriptApp.getProjectTriggers().length); }
  function uiIt() { return attempt(() => SpreadsheetApp.getUi()); }
  function email() { return Session.getActiveUser().getEmail(); }
  function info(scopes) {
    var i = scopes ? ScriptApp.getAuthorizationInfo(ScriptApp.AuthMode.FULL, scopes) : ScriptApp.getAuthorizationInfo(ScriptApp.AuthMode.FULL);
    return [i.getAuthorizationStatus(), i.getAuthorizationUrl(), i.getAuthorizedScopes()];
  }
  function requireAll() { ScriptApp.requireAllScopes(ScriptApp.AuthMode.FULL); return 'went on'; }
  function requireSome(scopes) { ScriptApp.requireScopes(ScriptApp.AuthMode.FULL, scopes); return 'went on'; }
  function fetchMany(n) { var out = []; for (var i = 0; i < n; i++) out.push(attempt(() => UrlFetchApp.fetch('https://api.example.com/x').getResponseCode())); return out; }
  function busy(ms) { Utilities.sleep(ms); SpreadsheetApp.getActiveSpreadsheet().getSheets(); return 'done'; }`;

function emulator(options: Parameters<typeof fixtureEmulator>[1] = {}) {
  const emu = fixtureEmulator(CODE, options);
  emu.world.fetch.route('api.example.com', () => ({ status: 200, headers: {}, body: 'ok' }));
  return emu;
}

describe('granted scopes per user', () => {
  test('a user who unticked a permission gets Apps Script’s message from the call that needs it', () => {
    const emu = emulator({ grants: { 'bob@example.com': [SCOPE.spreadsheetsCurrent, SCOPE.containerUi] } });
    const bob = { user: 'bob@example.com' };
    assert.equal(
      emu.run('fetchIt', bob).value,
      'Exception: You do not have permission to call UrlFetchApp.fetch. Required permissions: https://www.googleapis.com/auth/script.external_request',
    );
    assert.equal(emu.world.fetch.log.length, 0, 'nothing was sent');
    assert.equal(
      emu.run('triggersIt', bob).value,
      'Exception: You do not have permission to call ScriptApp.getProjectTriggers. Required permissions: https://www.googleapis.com/auth/script.scriptapp',
    );
    assert.equal(emu.run('sheetIt', bob).value, '1');
    assert.equal(emu.run('email', bob).value, '', 'no userinfo.email: the address reads as empty');
    // The owner granted everything.
    assert.equal(emu.run('fetchIt').value, '200');
  });

  test('sheets without its scope: the (a || b) form of the message', () => {
    const emu = emulator({ grants: { 'bob@example.com': [SCOPE.containerUi] } });
    assert.equal(
      emu.run('sheetIt', { user: 'bob@example.com' }).value,
      'Exception: You do not have permission to call SpreadsheetApp.getActiveSpreadsheet. Required permissions: (https://www.googleapis.com/auth/spreadsheets.currentonly || https://www.googleapis.com/auth/spreadsheets)',
    );
  });

  test('getAuthorizationInfo: status, URL and the authorized scopes, for the manifest or a list', () => {
    const emu = emulator({ grants: { 'bob@example.com': [SCOPE.spreadsheetsCurrent, SCOPE.containerUi] } });
    const [status, url, scopes] = emu.run('info', { user: 'bob@example.com' }).value as [
      string,
      string,
      string[],
    ];
    assert.equal(status, 'REQUIRED');
    assert.match(url, /^https:\/\/script\.google\.com\/macros\/d\/.+\/authorize$/);
    assert.deepEqual(scopes, [SCOPE.spreadsheetsCurrent, SCOPE.containerUi]);
    const listed = emu.run('info', { user: 'bob@example.com', args: [[SCOPE.containerUi]] }).value;
    assert.deepEqual(listed, ['NOT_REQUIRED', null, [SCOPE.containerUi]]);
    assert.deepEqual(emu.run('info').value, ['NOT_REQUIRED', null, ALL]);
  });

  test('requireAllScopes ends a menu run with Google’s prompt for the missing scopes; granted, the run goes on', () => {
    const emu = emulator({ grants: { 'bob@example.com': [SCOPE.spreadsheetsCurrent] } });
    const r = emu.run('requireAll', { user: 'bob@example.com' });
    assert.equal(r.status, 'error');
    assert.equal(r.error?.message, GAS_MESSAGES.authorizationRequired);
    const prompt = emu.world.ui.events.find((e) => e.type === 'authorization');
    assert.deepEqual(prompt?.scopes, [
      SCOPE.containerUi,
      SCOPE.externalRequest,
      SCOPE.scriptApp,
      SCOPE.email,
    ]);
    emu.world.grants.grantAll('bob@example.com');
    assert.equal(emu.run('requireAll', { user: 'bob@example.com' }).value, 'went on');
    // A scope the manifest does not declare is an error, not a prompt.
    assert.equal(
      emu.run('requireSome', { args: [['https://www.googleapis.com/auth/drive']] }).status,
      'error',
    );
    // In a trigger nobody sees a prompt.
    const before = emu.world.ui.events.length;
    emu.world.grants.set('bob@example.com', []);
    assert.equal(emu.run('requireAll', { user: 'bob@example.com', kind: 'trigger' }).status, 'error');
    assert.equal(emu.world.ui.events.length, before);
  });
});

describe('daily quotas per account', () => {
  test('UrlFetch: the consumer day ends at 20,000 calls with the real message and nothing sent; Workspace has 100,000', () => {
    const emu = emulator({ accounts: { 'work@example.com': 'workspace' } });
    const t = emu.world.clock.now();
    emu.world.quotas.use('owner@example.com', 'urlfetch', 19_998, t);
    emu.world.quotas.use('work@example.com', 'urlfetch', 19_998, t);
    const sent = emu.world.fetch.log.length;
    assert.deepEqual(emu.run('fetchMany', { args: [3] }).value, [
      '200',
      '200',
      `Exception: ${GAS_MESSAGES.urlfetchQuota}`,
    ]);
    assert.equal(emu.world.fetch.log.length, sent + 2, 'the refused call never left');
    assert.deepEqual(emu.run('fetchMany', { user: 'work@example.com', args: [3] }).value, [
      '200',
      '200',
      '200',
    ]);
  });

  test('rolling-24h: the day resets 24 h after its first request; tokyo-midnight: at 0:00 in Tokyo', () => {
    for (const reset of ['rolling-24h', 'tokyo-midnight'] as const) {
      // 09:00 Tokyo on 2026-11-30.
      const emu = emulator({ quotaReset: reset });
      emu.world.quotas.use('owner@example.com', 'urlfetch', 20_000, emu.world.clock.now());
      assert.match(String(emu.run('fetchIt').value), /too many times for one day/, reset);
      emu.advanceTo(Date.parse('2026-12-01T00:30:00+09:00'));
      const atHalfPastMidnight = String(emu.run('fetchIt').value);
      emu.advanceTo(Date.parse('2026-12-01T09:30:00+09:00'));
      const nextMorning = String(emu.run('fetchIt').value);
      if (reset === 'tokyo-midnight') assert.equal(atHalfPastMidnight, '200');
      else assert.match(atHalfPastMidnight, /too many times for one day/);
      assert.equal(nextMorning, '200', reset);
    }
  });

  test('bandwidth throttle: Apps Script’s message with the URL, nothing sent', () => {
    const emu = emulator();
    emu.world.fetch.bandwidthExceeded = 1;
    assert.equal(
      emu.run('fetchIt').value,
      'Exception: Bandwidth quota exceeded: https://api.example.com/x. Try reducing the rate of data transfer.',
    );
    assert.equal(emu.world.fetch.log.length, 0);
    assert.equal(emu.run('fetchIt').value, '200');
  });

  test('trigger runtime: 90 min a day for consumer accounts; a trigger run past it is ended with the real message', () => {
    const emu = emulator();
    const t = emu.world.clock.now();
    emu.world.quotas.use('owner@example.com', 'triggerRuntimeMs', 89 * 60_000, t);
    const r = emu.run('busy', { kind: 'trigger', args: [90_000] });
    assert.equal(r.status, 'killed');
    assert.equal(r.error?.message, GAS_MESSAGES.computerTime);
    // Menu runs do not spend trigger runtime and are not stopped by it.
    assert.equal(emu.run('busy', { args: [90_000] }).value, 'done');
    // The day is spent: the next trigger run ends at its first call.
    assert.equal(emu.run('busy', { kind: 'trigger', args: [0] }).status, 'killed');
    assert.ok(
      emu.world.quotas.used('owner@example.com', 'triggerRuntimeMs', emu.world.clock.now()) >= 90 * 60_000,
    );
  });
});
