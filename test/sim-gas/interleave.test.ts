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
