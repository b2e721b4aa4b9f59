/** Triggers, properties, cache, session, utilities and HTML as the emulator models them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixtureEmulator } from '../helpers/emulator';

describe('ScriptApp triggers', () => {
  const CODE = `
    function install(n) { return ScriptApp.newTrigger('tick').timeBased().everyMinutes(n).create().getUniqueId(); }
    function mine() { return ScriptApp.getProjectTriggers().map(function (t) { return t.getHandlerFunction(); }); }
    function clear() { ScriptApp.getProjectTriggers().forEach(function (t) { ScriptApp.deleteTrigger(t); }); }
    function tick(e) { SpreadsheetApp.getActiveSheet().appendRow([Session.getEffectiveUser().getEmail(), e.triggerUid, e.minute]); }`;

  test('everyMinutes accepts only 1, 5, 10, 15, 30', () => {
    const emu = fixtureEmulator(CODE);
    assert.equal(emu.run('install', { args: [15] }).status, 'ok');
    const bad = emu.run('install', { args: [7] });
    assert.equal(bad.status, 'error');
    assert.match(bad.error?.message ?? '', /everyMinutes/);
  });

  test('triggers are visible only to their creator and limited to 20 per user', () => {
    const emu = fixtureEmulator(CODE);
    emu.run('install', { args: [5], user: 'alice@example.com' });
    assert.deepEqual(emu.run('mine', { user: 'alice@example.com' }).value, ['tick']);
    assert.deepEqual(emu.run('mine', { user: 'bob@example.com' }).value, []);
    for (let i = 0; i < 19; i++) emu.run('install', { args: [30], user: 'alice@example.com' });
    const over = emu.run('install', { args: [30], user: 'alice@example.com' });
    assert.match(over.error?.message ?? '', /too many triggers/);
    emu.run('clear', { user: 'bob@example.com' });
    assert.equal(emu.world.triggers.list.length, 20, 'bob cannot delete what he cannot see');
  });

  test('advancing the clock fires due triggers as trigger executions of their owner', () => {
    const emu = fixtureEmulator(CODE);
    emu.run('install', { args: [10], user: 'alice@example.com' });
    const runs = emu.advance(35 * 60_000);
    assert.equal(runs.length, 3);
    assert.ok(
      runs.every(
        (r) =>
          r.result.status === 'ok' && r.result.kind === 'trigger' && r.result.user === 'alice@example.com',
      ),
    );
    const sheet = emu.world.spreadsheet.sheets[0];
    assert.equal(sheet.lastRow(), 3);
    assert.equal(sheet.value(1, 1), 'alice@example.com');
  });

  test('a simple trigger may not create triggers', () => {
    const emu = fixtureEmulator(
      `function onOpen() { ScriptApp.newTrigger('x').timeBased().everyMinutes(5).create(); }`,
    );
    const r = emu.openSpreadsheet();
    assert.equal(r.status, 'error');
    assert.match(r.error?.message ?? '', /You do not have permission to call ScriptApp.newTrigger/);
  });
});

describe('PropertiesService and CacheService', () => {
  test('user properties are per user; script properties are shared', () => {
    const emu = fixtureEmulator(`
      function put(v) { PropertiesService.getUserProperties().setProperty('k', v); PropertiesService.getScriptProperties().setProperty('s', v); }
      function get() { return [PropertiesService.getUserProperties().getProperty('k'), PropertiesService.getScriptProperties().getProperty('s')]; }`);
    emu.run('put', { args: ['alice'], user: 'alice@example.com' });
    assert.deepEqual(emu.run('get', { user: 'alice@example.com' }).value, ['alice', 'alice']);
    assert.deepEqual(emu.run('get', { user: 'bob@example.com' }).value, [null, 'alice']);
  });

  test('values over 9 KB are refused', () => {
    const emu = fixtureEmulator(
      `function big() { PropertiesService.getScriptProperties().setProperty('k', new Array(9300).join('x')); }`,
    );
    const r = emu.run('big');
    assert.equal(r.status, 'error');
    assert.match(r.error?.message ?? '', /Argument too large/);
  });

  test('cache entries expire on the virtual clock', () => {
    const emu = fixtureEmulator(`
      function put() { CacheService.getScriptCache().put('k', 'v', 60); }
      function get() { return CacheService.getScriptCache().get('k'); }`);
    emu.run('put');
    assert.equal(emu.run('get').value, 'v');
    emu.advance(61_000);
    assert.equal(emu.run('get').value, null);
  });
});

describe('Session, Utilities, HtmlService, Logger', () => {
  test('Session reports the user and the manifest time zone; a simple trigger may not know a non-owner', () => {
    const emu = fixtureEmulator(`
      function who() { return [Session.getActiveUser().getEmail(), Session.getEffectiveUser().getEmail(), Session.getScriptTimeZone()]; }
      function onOpen() { SpreadsheetApp.getActive().toast(Session.getActiveUser().getEmail() || '(unknown)'); }`);
    assert.deepEqual(emu.run('who', { user: 'bob@example.com' }).value, [
      'bob@example.com',
      'bob@example.com',
      'Asia/Tokyo',
    ]);
    emu.openSpreadsheet('bob@example.com');
    assert.equal(emu.world.ui.events.find((e) => e.type === 'toast')?.message, '(unknown)');
  });

  test('computeDigest returns signed bytes; formatDate uses Java patterns', () => {
    const emu = fixtureEmulator(`function f() {
      var d = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, 'abc');
      var hex = d.map(function (b) { return ('0' + (b & 0xff).toString(16)).slice(-2); }).join('');
      return [d.some(function (b) { return b < 0; }), hex, Utilities.formatDate(new Date(Date.UTC(2026, 9, 1, 15, 4, 5)), 'Asia/Tokyo', "yyyy-MM-dd'T'HH:mm:ss EEE")];
    }`);
    const [hasNegative, hex, formatted] = emu.run('f').value as [boolean, string, string];
    assert.equal(hasNegative, true);
    assert.equal(hex, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(formatted, '2026-10-02T00:04:05 Fri');
  });

  test('base64 round trip of UTF-8 text and UUIDs in v4 form, deterministic per seed', () => {
    const code = `function f() { return [Utilities.base64Encode('記帳'), Utilities.newBlob(Utilities.base64Decode(Utilities.base64Encode('記帳'))).getDataAsString(), Utilities.getUuid()]; }`;
    const [b64, back, uuid] = fixtureEmulator(code, { seed: 5 }).run('f').value as string[];
    assert.equal(b64, Buffer.from('記帳').toString('base64'));
    assert.equal(back, '記帳');
    assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal((fixtureEmulator(code, { seed: 5 }).run('f').value as string[])[2], uuid);
  });

  test('a Shift_JIS blob decodes to Japanese text', () => {
    const emu = fixtureEmulator(
      `function f(bytes) { return Utilities.newBlob(bytes).getDataAsString('Shift_JIS'); }`,
    );
    const bytes = [...Buffer.from([0x93, 0xfa, 0x95, 0x74, 0x2c, 0x93, 0x45, 0x97, 0x76])].map((b) =>
      b > 127 ? b - 256 : b,
    );
    assert.equal(emu.run('f', { args: [bytes] }).value, '日付,摘要');
  });

  test('HtmlService serves project files and evaluates scriptlets with escaping', () => {
    const emu = fixtureEmulator(
      `function page() { var t = HtmlService.createTemplateFromFile('dialog'); t.name = '<b>山田</b>'; return t.evaluate().getContent(); }`,
      {},
      { 'dialog.html': '<p><?= name ?></p><? for (var i = 0; i < 2; i++) { ?><i><?!= i ?></i><? } ?>' },
    );
    assert.equal(emu.run('page').value, '<p>&lt;b&gt;山田&lt;/b&gt;</p><i>0</i><i>1</i>');
  });

  test('Logger and console output is captured per execution', () => {
    const emu = fixtureEmulator(`function f() { Logger.log('n=%s', 3); console.warn('careful'); }`);
    assert.deepEqual(emu.run('f').logs, ['n=3', '[warn] careful']);
  });
});
