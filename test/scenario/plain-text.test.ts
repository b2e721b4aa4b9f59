/**
 * Text written into cells people formatted '@' (plain text), in every Sheets world: kicho turns such a
 * cell back to the automatic format before writing text there (where the leading apostrophe is
 * documented to force text and not be stored), so keys and outside text read back exactly.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SHEETS_WORLDS, sheetsOptions } from '../../sim/gas/switches';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

function formatWholeSheetAsText(w: KichoWorld, name: string): void {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === name);
  assert.ok(s);
  for (let r = 2; r <= s.maxRows; r++)
    for (let c = 1; c <= s.lastColumn(); c++) s.updateMeta(r, c, { numberFormat: '@' });
}

describe("cells a person formatted '@'", () => {
  for (const world of SHEETS_WORLDS) {
    test(`${world.name}: an import into a 台帳 formatted as plain text keeps keys and descriptions exact`, () => {
      const w = kichoWorld({}, sheetsOptions(world));
      formatWholeSheetAsText(w, '台帳');
      const r = w.run('importTransactions');
      assert.equal(r.status, 'ok', JSON.stringify(r.error));
      const content = new Map(w.mf.transactions().map((t) => [t.id, t.content ?? '']));
      const rows = w.ledger();
      assert.ok(rows.length > 20);
      for (const row of rows) {
        assert.equal(row.キー, `mf:${row.明細ID}`);
        assert.equal(row.摘要, content.get(String(row.明細ID)));
      }
      const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === '台帳');
      for (let r = 2; s && r <= s.lastRow(); r++) {
        for (let c = 1; c <= s.lastColumn(); c++) assert.equal(s.meta(r, c)?.formula, undefined);
      }
      assert.equal((w.run('importTransactions').value as { added: number }).added, 0, 'nothing twice');
    });
  }
});
