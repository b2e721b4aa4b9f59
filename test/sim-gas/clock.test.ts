/** The virtual clock and the 6-minute limit. These fail if the kill is removed from the emulator. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GAS_MESSAGES } from '../../sim/gas/index';
import { fixtureEmulator, sheetValues } from '../helpers/emulator';

describe('virtual clock', () => {
  test('guest Date reads the virtual clock and Utilities.sleep advances it', () => {
    const emu = fixtureEmulator('', { start: '2026-04-01T09:00:00+09:00' });
    const a = emu.open();
    assert.equal(a.eval('new Date().toISOString()'), '2026-04-01T00:00:00.000Z');
    a.eval('Utilities.sleep(90000)');
    const now = a.eval('Date.now()') as number;
    assert.ok(now >= Date.parse('2026-04-01T00:01:30Z'));
    assert.equal(a.eval('new Date() instanceof Date && typeof Date() === "string"'), true);
    assert.equal(a.eval('new Date(2026, 0, 2).getDate()'), 2);
    a.end();
  });

  test('sleep is capped at five minutes', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    assert.match(String(a.eval('try { Utilities.sleep(300001) } catch (e) { String(e) }')), /^Exception: /);
    a.end();
  });
});

describe('6-minute limit', () => {
  const LOOP = `
    function work() {
      var sheet = SpreadsheetApp.getActiveSheet();
      sheet.getRange('A1').setValue('started'); SpreadsheetApp.flush();
      for (var i = 0; i < 10; i++) {
        Utilities.sleep(60000);
        sheet.getRange(i + 2, 1).setValue('minute ' + (i + 1));
      }
      return 'finished';
    }
    function caught() {
      try { work(); } catch (e) { SpreadsheetApp.getActiveSheet().getRange('B1').setValue('cleanup'); }
      return 'survived';
    }`;

  test('an execution past 6 minutes is killed at its next service call; unflushed writes are lost', () => {
    const emu = fixtureEmulator(LOOP);
    const r = emu.run('work');
    assert.equal(r.status, 'killed');
    assert.equal(r.error?.message, GAS_MESSAGES.maxExecutionTime);
    assert.ok(r.endedAt - r.startedAt >= 6 * 60_000);
    assert.deepEqual(sheetValues(emu, 'シート1'), [['started']]);
  });

  test('catching the kill does not help: no later call succeeds and the run still counts as killed', () => {
    const emu = fixtureEmulator(LOOP);
    const r = emu.run('caught');
    assert.equal(r.status, 'killed');
    assert.deepEqual(sheetValues(emu, 'シート1'), [['started']]);
  });

  test('a simple trigger has 30 seconds', () => {
    const emu = fixtureEmulator(
      `function onOpen() { Utilities.sleep(31000); SpreadsheetApp.getActive().toast('late'); }`,
    );
    const r = emu.openSpreadsheet();
    assert.equal(r.status, 'killed');
  });

  test('an execution under the limit finishes', () => {
    const emu = fixtureEmulator(
      `function quick() { Utilities.sleep(200000); return SpreadsheetApp.getActive().getName(); }`,
    );
    const r = emu.run('quick');
    assert.equal(r.status, 'ok');
    assert.equal(r.value, '記帳');
  });
});
