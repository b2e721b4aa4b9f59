/** UrlFetchApp: routing, muteHttpExceptions, and Apps Script's exception messages. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TEST_API_KEY } from '../../sim/mf/fake-mf';
import { TEST_OFFICE_CODE } from '../../sim/mf/seed';
import { spawnFakeMf } from '../../sim/mf/spawn';
import { fixtureEmulator } from '../helpers/emulator';

const CODE = `
  function get(url, mute) {
    var r = UrlFetchApp.fetch(url, { muteHttpExceptions: !!mute });
    return [r.getResponseCode(), r.getContentText(), r.getHeaders()['X-Test'] || null];
  }
  function post(url, body) {
    return UrlFetchApp.fetch(url, { method: 'post', contentType: 'application/json', payload: JSON.stringify(body) }).getContentText();
  }
  function tryGet(url) { try { UrlFetchApp.fetch(url); return 'no error'; } catch (e) { return String(e); } }
  function onOpen() { UrlFetchApp.fetch('https://api.example.com/'); }`;

describe('UrlFetchApp', () => {
  test('routes to an in-process handler and returns its response', () => {
    const emu = fixtureEmulator(CODE);
    emu.world.fetch.route('api.example.com', (req) => ({
      status: 200,
      headers: { 'X-Test': 'yes' },
      body: JSON.stringify({
        method: req.method,
        path: new URL(req.url).pathname,
        body: req.body ?? null,
        ct: req.headers['Content-Type'] ?? null,
      }),
    }));
    assert.deepEqual(emu.run('get', { args: ['https://api.example.com/a?b=1'] }).value, [
      200,
      '{"method":"GET","path":"/a","body":null,"ct":null}',
      'yes',
    ]);
    assert.equal(
      emu.run('post', { args: ['https://api.example.com/p', { 摘要: 'ｱﾏｿﾞﾝ' }] }).value,
      '{"method":"POST","path":"/p","body":"{\\"摘要\\":\\"ｱﾏｿﾞﾝ\\"}","ct":"application/json"}',
    );
    assert.equal(emu.world.fetch.log.length, 2);
  });

  test('HTTP errors throw the real message unless muted', () => {
    const emu = fixtureEmulator(CODE);
    emu.world.fetch.route('api.example.com', () => ({
      status: 500,
      headers: {},
      body: '{"errors":[{"code":"internal_error"}]}',
    }));
    assert.equal(
      emu.run('tryGet', { args: ['https://api.example.com/x'] }).value,
      'Exception: Request failed for https://api.example.com returned code 500. Truncated server response: {"errors":[{"code":"internal_error"}]} (use muteHttpExceptions option to examine full response)',
    );
    assert.equal((emu.run('get', { args: ['https://api.example.com/x', true] }).value as unknown[])[0], 500);
  });

  test('timeouts take the whole deadline and are not muted; unknown hosts are DNS errors', () => {
    const emu = fixtureEmulator(CODE);
    emu.world.fetch.route('slow.example.com', () => ({
      status: 201,
      headers: {},
      body: '{}',
      fault: 'timeout',
    }));
    const before = emu.world.clock.now();
    assert.equal(
      emu.run('tryGet', { args: ['https://slow.example.com/j'] }).value,
      'Exception: Timeout: https://slow.example.com/j',
    );
    assert.ok(emu.world.clock.now() - before >= 60_000);
    assert.equal(
      emu.run('tryGet', { args: ['https://nowhere.example.org/'] }).value,
      'Exception: DNS error: https://nowhere.example.org/',
    );
  });

  test('an unreachable host throws Address unavailable; fetchAll fails whole when one request fails', () => {
    const emu = fixtureEmulator(`${CODE}
      function all(urls) { try { return UrlFetchApp.fetchAll(urls).map(function (r) { return r.getContentText(); }); } catch (e) { return String(e); } }`);
    emu.world.fetch.route('ok.example.com', (req) => ({
      status: 200,
      headers: {},
      body: new URL(req.url).pathname,
    }));
    emu.world.fetch.route('down.example.com', () => ({
      status: 200,
      headers: {},
      body: '',
      fault: 'unreachable',
    }));
    assert.equal(
      emu.run('tryGet', { args: ['https://down.example.com/'] }).value,
      'Exception: Address unavailable: https://down.example.com/',
    );
    assert.deepEqual(
      emu.run('all', { args: [['https://ok.example.com/a', 'https://ok.example.com/b']] }).value,
      ['/a', '/b'],
    );
    assert.equal(
      emu.run('all', { args: [['https://ok.example.com/a', 'https://down.example.com/']] }).value,
      'Exception: Address unavailable: https://down.example.com/',
    );
  });

  test('a simple trigger may not fetch', () => {
    const emu = fixtureEmulator(CODE);
    const r = emu.openSpreadsheet();
    assert.match(r.error?.message ?? '', /You do not have permission to call UrlFetchApp.fetch/);
  });

  test('each fetch is counted', () => {
    const emu = fixtureEmulator(CODE);
    emu.world.fetch.route('*', () => ({ status: 200, headers: {}, body: 'ok' }));
    const r = emu.run('get', { args: ['https://any.example.com/'] });
    assert.equal(r.counters.urlFetches, 1);
  });
});

describe('UrlFetchApp over real HTTP on loopback', () => {
  test('reaches the fake MF server in another process, synchronously, and maps its faults', async () => {
    const server = await spawnFakeMf({ seed: 2 });
    try {
      const emu = fixtureEmulator(`
        function office(base, key, code) {
          var ex = UrlFetchApp.fetch(base + '/auth/exchange', { method: 'post', headers: { Authorization: 'Bearer ' + key } });
          var token = JSON.parse(ex.getContentText()).access_token;
          var r = UrlFetchApp.fetch(base + '/api/v3/offices?office_code=' + code, { headers: { Authorization: 'Bearer ' + token } });
          return [r.getResponseCode(), JSON.parse(r.getContentText()).code];
        }
        function unauthenticated(base) {
          return UrlFetchApp.fetch(base + '/api/v3/offices', { muteHttpExceptions: true }).getResponseCode();
        }`);
      emu.world.fetch.allowLoopback = true;
      assert.deepEqual(emu.run('office', { args: [server.url, TEST_API_KEY, TEST_OFFICE_CODE] }).value, [
        200,
        TEST_OFFICE_CODE,
      ]);
      assert.equal(emu.run('unauthenticated', { args: [server.url] }).value, 401);
      const blocked = fixtureEmulator(
        `function f(u) { try { UrlFetchApp.fetch(u); } catch (e) { return String(e); } }`,
      );
      assert.match(
        String(blocked.run('f', { args: [`${server.url}/x`] }).value),
        /^Exception: DNS error: /,
        'loopback is off by default',
      );
    } finally {
      await server.close();
    }
  });
});
