/**
 * Apps Script's services are reached only through src/gas (DESIGN §8, issue 28): every other file of src/
 * (main.ts, app, services, core, mf, ui) names no Apps Script global as a call or a property access. The globals
 * are the ones @types/google-apps-script and the OAuth2 library's types declare, so a service added to
 * the types is covered too. Files are parsed with TypeScript, so comments, strings and type names
 * (GoogleAppsScript.Spreadsheet.Sheet) never count.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../helpers/emulator';

/** `console` is declared there too, but it is the platform's logger in Node as well: not a service. */
const NOT_SERVICES = new Set(['console']);

function declaredGlobals(): Set<string> {
  const out = new Set<string>();
  for (const pkg of ['google-apps-script', 'google-apps-script-oauth2']) {
    const dir = path.join(ROOT, 'node_modules', '@types', pkg);
    for (const f of readdirSync(dir, { recursive: true })) {
      if (!String(f).endsWith('.d.ts')) continue;
      const text = readFileSync(path.join(dir, String(f)), 'utf8');
      for (const m of text.matchAll(/^declare (?:var|const|let) (\w+)/gm))
        if (!NOT_SERVICES.has(m[1])) out.add(m[1]);
    }
  }
  return out;
}

const GLOBALS = declaredGlobals();

/** `Global.member`, `Global[...]`, `Global(...)` or `new Global(...)` in `text`, as "line: Global". */
export function globalUses(file: string, text: string, globals: ReadonlySet<string> = GLOBALS): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    let target: ts.Expression | undefined;
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) target = node.expression;
    else if (ts.isCallExpression(node) || ts.isNewExpression(node)) target = node.expression;
    if (target && ts.isIdentifier(target) && globals.has(target.text)) {
      const line = sf.getLineAndCharacterOfPosition(target.getStart(sf)).line + 1;
      out.push(`${file}:${line}: ${target.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every .ts file of src/ outside src/gas. */
function checkedFiles(): string[] {
  return readdirSync(path.join(ROOT, 'src'), { recursive: true })
    .map((f) => `src/${String(f).split(path.sep).join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('src/gas/'));
}

test('no file of src/ outside src/gas calls an Apps Script global or reads a property of one', () => {
  const files = checkedFiles();
  // The walk saw the layers it guards.
  for (const dir of ['src/main.ts', 'src/app/', 'src/services/', 'src/core/', 'src/mf/', 'src/ui/'])
    assert.ok(
      files.some((f) => f.startsWith(dir)),
      dir,
    );
  const uses = files.flatMap((f) => globalUses(f, readFileSync(path.join(ROOT, f), 'utf8')));
  assert.deepEqual(
    uses,
    [],
    'reach the service through a thin adapter in src/gas (add one there if none fits)',
  );
});

test('the check knows the services and sees a use, but not one in a comment, a string or a type', () => {
  for (const name of [
    'SpreadsheetApp',
    'PropertiesService',
    'LockService',
    'UrlFetchApp',
    'ScriptApp',
    'Utilities',
    'HtmlService',
    'CacheService',
    'Session',
    'DriveApp',
    'Logger',
    'ContentService',
    'OAuth2',
  ])
    assert.ok(GLOBALS.has(name), name);
  assert.ok(!GLOBALS.has('console'));
  const text = [
    '/** SpreadsheetApp.flush() before the lock is released. */',
    "const s = 'Utilities.sleep(5)'; // LockService.getScriptLock()",
    'const t = `PropertiesService.getScriptProperties()`;',
    'let sheet: GoogleAppsScript.Spreadsheet.Sheet;',
    'const x = { Session: 1 }.Session + other.Logger.log;',
    'SpreadsheetApp.getUi();',
    'const lock = LockService["getScriptLock"]();',
    '  Utilities.sleep(1);',
  ].join('\n');
  assert.deepEqual(globalUses('fake.ts', text), [
    'fake.ts:6: SpreadsheetApp',
    'fake.ts:7: LockService',
    'fake.ts:8: Utilities',
  ]);
  // And src/gas, which the rule exempts, does use them (the walk would see them there).
  assert.ok(
    globalUses('src/gas/lock.ts', readFileSync(path.join(ROOT, 'src/gas/lock.ts'), 'utf8')).length > 0,
  );
});
