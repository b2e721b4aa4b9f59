/**
 * The Sheets world a test run is in: KICHO_SHEETS (set by scripts/run-tests.mjs's `worlds` level) reaches
 * every kicho world the scenario helpers build, so that level is not the default world run three times.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SHEETS_WORLDS, sheetsWorld, sheetsWorldFromEnv } from '../../sim/gas/switches';
import { kichoWorld } from '../helpers/kicho';

test('kichoWorld runs in the Sheets world KICHO_SHEETS names (kept-formula when unset)', () => {
  const expected = sheetsWorldFromEnv() ?? SHEETS_WORLDS[0];
  const { emu } = kichoWorld();
  assert.equal(emu.world.plainTextApostrophe, expected.plainTextApostrophe);
  assert.equal(emu.world.plainTextStopsFormulas, expected.plainTextStopsFormulas);
  assert.equal(emu.world.spreadsheet.plainTextApostrophe, expected.plainTextApostrophe);
});

test('every world has a name KICHO_SHEETS accepts; an unknown one is refused with the list', () => {
  for (const w of SHEETS_WORLDS) assert.deepEqual(sheetsWorld(w.name), w);
  assert.deepEqual(
    SHEETS_WORLDS.map((w) => w.name),
    ['kept-formula', 'kept-text', 'stripped-formula', 'stripped-text'],
  );
  assert.throws(() => sheetsWorldFromEnv({ KICHO_SHEETS: 'kept' }), /kept-formula \/ kept-text/);
  assert.equal(sheetsWorldFromEnv({}), undefined);
});
