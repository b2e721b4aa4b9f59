/**
 * Write buffering: what one execution writes is invisible to others until it flushes or ends, and
 * is lost when it is killed. These tests fail if buffering is removed from the emulator.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExecutionKilled } from '../../sim/gas/index';
import { fixtureEmulator, sheetValues } from '../helpers/emulator';

const WRITE = `SpreadsheetApp.getActiveSheet().getRange('A1').setValue('claimed')`;
const READ = `SpreadsheetApp.getActiveSheet().getRange('A1').getValue()`;

describe('sheet write buffering', () => {
  test('another execution does not see unflushed writes', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    a.eval(WRITE);
    const b = emu.open();
    assert.equal(b.eval(READ), '');
    a.eval('SpreadsheetApp.flush()');
    assert.equal(b.eval(READ), 'claimed');
    a.end();
    b.end();
  });

  test('the writer reads its own writes (a read of the sheet applies them)', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    a.eval(WRITE);
    assert.equal(a.eval(READ), 'claimed');
    a.end();
  });

  test('normal completion applies buffered writes', () => {
    const emu = fixtureEmulator(`function write() { ${WRITE}; }`);
    const r = emu.run('write');
    assert.equal(r.status, 'ok');
    assert.deepEqual(sheetValues(emu, 'シート1'), [['claimed']]);
  });

  test('an execution that throws still has its writes applied (the script ended, it was not killed)', () => {
    const emu = fixtureEmulator(`function fail() { ${WRITE}; throw new Error('boom'); }`);
    const r = emu.run('fail');
    assert.equal(r.status, 'error');
    assert.equal(r.error?.message, 'boom');
    assert.deepEqual(sheetValues(emu, 'シート1'), [['claimed']]);
  });

  test('a killed execution loses its unflushed writes but keeps flushed ones', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    a.eval(`SpreadsheetApp.getActiveSheet().getRange('A1').setValue('flushed'); SpreadsheetApp.flush();`);
    a.eval(`SpreadsheetApp.getActiveSheet().getRange('A2').setValue('lost')`);
    a.kill();
    assert.throws(() => a.eval(READ), ExecutionKilled);
    const r = a.end();
    assert.equal(r.status, 'killed');
    assert.deepEqual(sheetValues(emu, 'シート1'), [['flushed']]);
  });

  test('write-through mode makes every write visible at once', () => {
    const emu = fixtureEmulator('', { writePolicy: 'write-through' });
    const a = emu.open();
    a.eval(WRITE);
    const b = emu.open();
    assert.equal(b.eval(READ), 'claimed');
    a.end();
    b.end();
  });

  test('appendRow lands at the end as of commit time, so two writers never overwrite each other', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    const b = emu.open();
    a.eval(`SpreadsheetApp.getActiveSheet().appendRow(['a'])`);
    b.eval(`SpreadsheetApp.getActiveSheet().appendRow(['b'])`);
    b.end();
    a.end();
    assert.deepEqual(sheetValues(emu, 'シート1'), [['b'], ['a']]);
  });
});
