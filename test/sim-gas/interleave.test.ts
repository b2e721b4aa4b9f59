/**
 * Executions in worker threads, interleaved call by call by a seeded scheduler over one world.
 * Without the lock, some interleavings lose an update; with it and a flush before release, none do.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runInterleaved, seededPick } from '../../sim/gas/interleave';
import { fixtureEmulator } from '../helpers/emulator';

const CODE = `
  function bump(useLock) {
    var lock = LockService.getScriptLock();
    if (useLock && !lock.tryLock(30000)) return 'busy';
    var cell = SpreadsheetApp.getActiveSheet().getRange('A1');
    var n = Number(cell.getValue()) || 0;
    cell.setValue(n + 1);
    SpreadsheetApp.flush();
    if (useLock) lock.releaseLock();
    return n + 1;
  }`;

function finalCount(seed: number, useLock: boolean): { count: unknown; results: string[] } {
  const emu = fixtureEmulator(CODE);
  const results = runInterleaved(
    emu.world,
    [
      { name: 'bump', args: [useLock], user: 'alice@example.com' },
      { name: 'bump', args: [useLock], user: 'bob@example.com' },
    ],
    seededPick(seed),
  );
  return {
    count: emu.world.spreadsheet.sheets[0].value(1, 1),
    results: results.map((r) => `${r.status}:${r.value}`),
  };
}

describe('interleaved executions', () => {
  test('the same seed gives the same interleaving', () => {
    assert.deepEqual(finalCount(7, false), finalCount(7, false));
  });

  test('without the lock some seed loses an update', () => {
    const counts = new Set<unknown>();
    for (let seed = 1; seed <= 12 && counts.size < 2; seed++) counts.add(finalCount(seed, false).count);
    assert.ok(counts.has(1), `expected a lost update among ${[...counts]}`);
  });

  test('with the lock every interleaving counts both, or one run reports busy', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const { count, results } = finalCount(seed, true);
      const busy = results.filter((r) => r === 'ok:busy').length;
      assert.equal(count, 2 - busy, `seed ${seed}: ${results}`);
    }
  });
});

describe('a contended tryLock', () => {
  const HOLD = `
    function hold(ms) {
      var lock = LockService.getScriptLock();
      if (!lock.tryLock(15000)) return 'busy';
      Utilities.sleep(ms);
      lock.releaseLock();
      return 'held';
    }`;
  test('times out 15 s after the call, even when the lock came free meanwhile and another waiter took it', () => {
    for (const seed of [1, 2, 3, 4]) {
      const emu = fixtureEmulator(HOLD);
      const results = runInterleaved(
        emu.world,
        [
          { name: 'hold', args: [10_000] },
          { name: 'hold', args: [10_000], startAt: emu.world.clock.now() + 100 },
          { name: 'hold', args: [10_000], startAt: emu.world.clock.now() + 100 },
        ],
        seededPick(seed),
      );
      // The first holds 0–10 s; one waiter takes it at 10 s until 20 s; the other's 15 s run out at ~15 s.
      assert.deepEqual(
        results.map((r) => r.value).sort(),
        ['busy', 'held', 'held'],
        `seed ${seed}: ${JSON.stringify(results.map((r) => [r.value, r.endedAt - r.startedAt]))}`,
      );
      const busy = results.find((r) => r.value === 'busy');
      assert.ok(busy && busy.endedAt - busy.startedAt < 16_000, 'the busy one gave up at its own deadline');
    }
  });
});
