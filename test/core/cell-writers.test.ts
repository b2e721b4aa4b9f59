/**
 * Every value kicho writes goes through the one writer (src/gas/cells.ts): quoted text only into cells of
 * the automatic format, the documented way (DESIGN §9.4). A module that called setValues itself, or
 * formatted a range '@', would bring back the undocumented cases the writer avoids; found in a merge
 * (two new sheets formatted their id columns '@'), so it is checked here for every file under src/.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/emulator';

/** Deliberate exceptions, each with its reason. */
const ALLOWED_SET_VALUES: Record<string, string> = {
  'src/gas/cells.ts': 'the writer itself',
  'src/gas/workbook.ts': 'header rows: kicho’s own fixed Japanese words, never outside text',
  'src/gas/scratch-sheet.ts':
    '本番前チェック’s probe writes the undocumented cases on purpose, on a scratch sheet',
  'src/services/text-repair.ts':
    '初期設定’s repair writes only after clearing the cells’ format to automatic',
};

/** '@' on purpose: 本番前チェック asks what this account's Sheets does with it, on a scratch sheet. */
const ALLOWED_PLAIN_TEXT_FORMAT: Record<string, string> = {
  'src/gas/scratch-sheet.ts': 'the probe of the undocumented cases',
  'src/services/self-test-items.ts': 'the round trip in a plain-text column of the scratch sheet',
};

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => f.endsWith('.ts'));
}

test('only the writer in src/gas/cells.ts calls setValues, and nothing formats a range as plain text', () => {
  const offenders: string[] = [];
  for (const file of sources('src')) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const rel = file.split(path.sep).join('/');
    if (/\.setValues?\(/.test(text) && !(rel in ALLOWED_SET_VALUES)) offenders.push(`${rel}: setValues`);
    if (/setNumberFormats?\(\s*['"]@['"]/.test(text) && !(rel in ALLOWED_PLAIN_TEXT_FORMAT))
      offenders.push(`${rel}: setNumberFormat('@')`);
  }
  assert.deepEqual(offenders, []);
});
