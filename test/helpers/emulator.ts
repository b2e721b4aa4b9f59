/** Test helpers: an emulator over the built bundle, or over a small fixture script. */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Emulator } from '../../sim/gas/index';
import { sheetsOptions, sheetsWorldFromEnv } from '../../sim/gas/switches';
import type { WorldOptions } from '../../sim/gas/world';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** dist/, or the bundle KICHO_TEST_DIST names (a test build: test/sim-simulate/skeleton-mutants.test.ts). */
export const DIST = process.env.KICHO_TEST_DIST
  ? path.resolve(process.env.KICHO_TEST_DIST)
  : path.join(ROOT, 'dist');

/** The shipped bundle (dist/, built by `npm test` before the tests run). */
export function bundleEmulator(options: WorldOptions = {}): Emulator {
  return new Emulator({ bundleDir: DIST, ...sheetsOptions(sheetsWorldFromEnv()), ...options });
}

let previous: string | undefined;

/**
 * The bundle of the version before issue 13 (test/fixtures/kicho-daf53d4), unpacked into a temporary
 * folder once per process: the code that wrote the 台帳s this version must keep working with.
 */
export function previousBundleDir(): string {
  if (previous) return previous;
  const from = path.join(ROOT, 'test', 'fixtures', 'kicho-daf53d4');
  const dir = mkdtempSync(path.join(tmpdir(), 'kicho-previous-'));
  writeFileSync(path.join(dir, 'Code.js'), gunzipSync(readFileSync(path.join(from, 'Code.js.gz'))));
  copyFileSync(path.join(from, 'appsscript.json'), path.join(dir, 'appsscript.json'));
  previous = dir;
  return dir;
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
