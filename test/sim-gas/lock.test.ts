/** LockService: one script lock for all executions, released when an execution ends or is killed. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GAS_MESSAGES, GuestError } from '../../sim/gas/index';
import { fixtureEmulator } from '../helpers/emulator';

const TRY = (ms: number) => `LockService.getScriptLock().tryLock(${ms})`;

describe('script lock', () => {
  test('a second execution cannot take the script lock while the first holds it', () => {
    const emu = fixtureEmulator('');
    const a = emu.open({ user: 'alice@example.com' });
    const b = emu.open({ user: 'bob@example.com' });
    assert.equal(a.eval(TRY(1000)), true);
    const before = emu.world.clock.now();
    assert.equal(b.eval(TRY(30_000)), false);
    assert.ok(emu.world.clock.now() - before >= 30_000, 'waiting spends the timeout');
    a.eval('LockService.getScriptLock().releaseLock()');
    assert.equal(b.eval(TRY(1000)), true);
    a.end();
    b.end();
  });

  test('different Lock objects in one execution are the same mutex; tryLock again is a no-op true', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    assert.equal(a.eval(`${TRY(10)} && ${TRY(10)} && LockService.getScriptLock().hasLock()`), true);
    a.end();
  });

  test('waitLock throws the real timeout message', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    const b = emu.open();
    a.eval(TRY(10));
    assert.throws(
      () => b.eval('LockService.getScriptLock().waitLock(5000)'),
      (e: unknown) =>
        e instanceof GuestError && e.message === GAS_MESSAGES.lockTimeout && e.guestName === 'Exception',
    );
    assert.equal(
      b.eval(`try { LockService.getScriptLock().waitLock(1) } catch (e) { String(e) }`),
      `Exception: ${GAS_MESSAGES.lockTimeout}`,
    );
    a.end();
    b.end();
  });

  test('the lock is released when the holder ends normally', () => {
    const emu = fixtureEmulator('function hold() { LockService.getScriptLock().tryLock(10); }');
    emu.run('hold');
    const b = emu.open();
    assert.equal(b.eval(TRY(10)), true);
    b.end();
  });

  test('the lock is released when the holder is killed', () => {
    const emu = fixtureEmulator('');
    const a = emu.open();
    a.eval(TRY(10));
    a.kill();
    const b = emu.open();
    assert.equal(b.eval(TRY(10)), true);
    b.end();
  });

  test('user locks only exclude the same user', () => {
    const emu = fixtureEmulator('');
    const a = emu.open({ user: 'alice@example.com' });
    const b = emu.open({ user: 'bob@example.com' });
    const a2 = emu.open({ user: 'alice@example.com' });
    assert.equal(a.eval('LockService.getUserLock().tryLock(10)'), true);
    assert.equal(b.eval('LockService.getUserLock().tryLock(10)'), true);
    assert.equal(a2.eval('LockService.getUserLock().tryLock(10)'), false);
    for (const x of [a, b, a2]) x.end();
  });

  test("LockService's transient error can be injected and is retryable", () => {
    const emu = fixtureEmulator(`
      function takeWithRetry() {
        for (var i = 0; i < 3; i++) {
          try { return LockService.getScriptLock().tryLock(100) ? 'got it after ' + i : 'busy'; }
          catch (e) { Utilities.sleep(100); }
        }
        return 'gave up';
      }`);
    emu.world.injectFault({
      service: 'lock',
      method: 'tryLock',
      message: GAS_MESSAGES.lockTooMany,
      times: 2,
    });
    const r = emu.run('takeWithRetry');
    assert.equal(r.value, 'got it after 2');
  });
});
