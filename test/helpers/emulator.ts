/** Test helpers: an emulator over the built bundle, or over a small fixture script. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Emulator } from '../../sim/gas/index';
import type { WorldOptions } from '../../sim/gas/world';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = path.join(ROOT, 'dist');

/** The shipped bundle (dist/, built by `npm test` before the tests run). */
export function bundleEmulator(options: WorldOptions = {}): Emulator {
  return new Emulator({ bundleDir: DIST, ...options });
}

/** An emulator whose "project" is `code` (plus optional HTML files), for testing the emulator itself. */
export function fixtureEmulator(
  code: string,
  options: WorldOptions = {},
  files: Record<string, string> = {},
): Emulator {
  const dir = mkdtempSync(path.join(tmpdir(), 'kicho-fixture-'));
  writeFileSync(path.join(dir, 'Code.js'), code);
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), content);
  return new Emulator({ bundleDir: dir, ...options });
}

/** Values of a sheet as the world holds them (committed data only), trimmed to the used area. */
export function sheetValues(emu: Emulator, name: string): unknown[][] {
  const sheet = emu.world.spreadsheet.sheets.find((s) => s.name === name);
  if (!sheet) throw new Error(`no sheet ${name}`);
  const out: unknown[][] = [];
  for (let r = 1; r <= sheet.lastRow(); r++) {
    const row: unknown[] = [];
    for (let c = 1; c <= sheet.lastColumn(); c++) row.push(sheet.value(r, c));
    out.push(row);
  }
  return out;
}
