/**
 * The shipped thing: dist/Code.js parses as a classic ES2019 script, loads in the emulator with no
 * Node globals, and its entry points run by name as Apps Script would call them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'acorn';
import { GAS_MESSAGES } from '../sim/gas/index';
import type { MenuSpec } from '../sim/gas/services/ui';
import { LEDGER_HEADERS, SHEET_SPECS } from '../src/core/schema';
import { SETTING_DEFAULTS } from '../src/core/settings';
import { MENU_GROUPS, MENU_ITEMS } from '../src/ui/menu';
import { bundleEmulator, DIST, ROOT, sheetValues } from './helpers/emulator';

const code = readFileSync(path.join(DIST, 'Code.js'), 'utf8');

describe('the bundle', () => {
  test('is a classic ES2019 script (no import/export, nothing newer)', () => {
    assert.doesNotThrow(() => parse(code, { ecmaVersion: 2019, sourceType: 'script' }));
  });

  test('declares every entry point as a top-level function', () => {
    for (const name of ['onOpen', 'setup', ...MENU_ITEMS.map(([, handler]) => handler)]) {
      assert.match(code, new RegExp(`^function ${name}\\(`, 'm'), name);
    }
  });

  test('every menu path a message names (「記帳 > まとまり > 項目」) is a real path of the menu', () => {
    const real = new Set(
      MENU_GROUPS.flatMap((g) => g.items.map(([label]) => `記帳 > ${g.title} > ${label}`)),
    );
    const groups = MENU_GROUPS.map((g) => g.title).join('|');
    const labels = MENU_ITEMS.map(([label]) => label).join('|');
    // A path written without its group (the flat menu's 「記帳 > 初期設定」) sends a person to look for it.
    const named = [...code.matchAll(new RegExp(`記帳 > (?:(?:${groups}) > )?(?:${labels})`, 'g'))].map(
      (m) => m[0],
    );
    assert.ok(named.length >= 30, `messages name menu items (${named.length})`);
    assert.deepEqual([...new Set(named.filter((p) => !real.has(p)))], []);
  });

  test('keeps Japanese text readable (utf8 charset, not \\u escapes)', () => {
    assert.ok(code.includes('記帳'));
  });

  test('uses no host API that Apps Script lacks (free identifiers in the parsed bundle)', () => {
    const forbidden = new Set([
      'setTimeout',
      'setInterval',
      'fetch',
      'URL',
      'URLSearchParams',
      'require',
      'process',
      'Buffer',
      'TextEncoder',
      'TextDecoder',
      'structuredClone',
    ]);
    const found = new Set<string>();
    // Walk the AST: an identifier counts unless it is a property name (x.fetch, { fetch: … }).
    const walk = (node: unknown, parent?: Record<string, unknown>, key?: string): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const n of node) walk(n, parent, key);
        return;
      }
      const n = node as Record<string, unknown>;
      if (n.type === 'Identifier') {
        const isProperty =
          (parent?.type === 'MemberExpression' && key === 'property' && !parent.computed) ||
          (parent?.type === 'Property' && key === 'key' && !parent.computed) ||
          (parent?.type === 'MethodDefinition' && key === 'key');
        if (!isProperty && forbidden.has(String(n.name))) found.add(String(n.name));
      }
      for (const [k, v] of Object.entries(n)) if (k !== 'type' && v && typeof v === 'object') walk(v, n, k);
    };
    walk(parse(code, { ecmaVersion: 2019, sourceType: 'script' }));
    assert.deepEqual([...found], []);
  });

  test('ships the manifest: Tokyo time, V8, explicit scopes, OAuth2 library 43', () => {
    const manifest = JSON.parse(readFileSync(path.join(DIST, 'appsscript.json'), 'utf8'));
    assert.equal(manifest.timeZone, 'Asia/Tokyo');
    assert.equal(manifest.runtimeVersion, 'V8');
    assert.equal(manifest.exceptionLogging, 'STACKDRIVER');
    for (const scope of [
      'spreadsheets.currentonly',
      'script.container.ui',
      'script.external_request',
      'script.scriptapp',
      'userinfo.email',
    ]) {
      assert.ok(manifest.oauthScopes.includes(`https://www.googleapis.com/auth/${scope}`), scope);
    }
    const lib = manifest.dependencies.libraries[0];
    assert.deepEqual([lib.userSymbol, lib.version], ['OAuth2', '43']);
    assert.equal(lib.developmentMode, undefined);
  });

  test('clasp would push exactly the bundle, its dialogs and the manifest (checked offline, no credentials)', () => {
    // The committed example stands for the .clasp.json a person gets from deploy:new or --script-id.
    const args = ['show-file-status', '--json', '-P', '.clasp.json.example'];
    const out = execFileSync(path.join(ROOT, 'node_modules/.bin/clasp'), args, {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const status = JSON.parse(out);
    const html = readdirSync(DIST)
      .filter((f) => f.endsWith('.html'))
      .map((f) => `dist/${f}`);
    assert.ok(html.length > 0);
    assert.deepEqual(
      [...status.filesToPush].sort(),
      ['dist/Code.js', 'dist/appsscript.json', ...html].sort(),
    );
    assert.deepEqual(status.untrackedFiles, []);
  });

  test('every HTML file the code or a template names is in the bundle', () => {
    const sources = [
      code,
      ...readdirSync(DIST)
        .filter((f) => f.endsWith('.html'))
        .map((f) => readFileSync(path.join(DIST, f), 'utf8')),
    ];
    const named = new Set<string>();
    for (const text of sources) {
      // Handlers name their dialog through src/gas/dialog.ts htmlTemplate(name); templates include by name.
      for (const m of text.matchAll(
        /(?:create(?:TemplateFromFile|HtmlOutputFromFile)|htmlTemplate)\(['"]([^'"]+)['"]\)/g,
      ))
        named.add(m[1]);
    }
    assert.ok(named.size >= 3, [...named].join(', '));
    for (const name of named) assert.ok(existsSync(path.join(DIST, `${name}.html`)), `${name}.html`);
  });
});

describe('entry points in the emulator', () => {
  test('onOpen as a simple trigger adds the menu 「記帳」 grouped by task, and every item names a global function of the bundle', () => {
    const emu = bundleEmulator();
    const r = emu.openSpreadsheet();
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const menu = emu.world.ui.menusOf(emu.world.owner).find((m) => m.title === '記帳');
    assert.ok(menu, 'menu 記帳 exists');
    // What onOpen built, walked as a person opens it: submenus, then the items in each.
    const leaves: { path: string; label: string; handler: string }[] = [];
    const walk = (spec: MenuSpec, path: string): void => {
      for (const item of spec.items) {
        if (item.submenu) {
          assert.ok(item.submenu.items.length > 0, `${path} > ${item.submenu.title} is not empty`);
          walk(item.submenu, `${path} > ${item.submenu.title}`);
        } else if (!item.separator) {
          leaves.push({ path, label: String(item.label), handler: String(item.handler) });
        }
      }
    };
    walk(menu, '記帳');
    assert.deepEqual(
      menu.items.filter((i) => i.submenu).map((i) => i.submenu?.title),
      MENU_GROUPS.map((g) => g.title),
      'the top level is the task groups',
    );
    assert.deepEqual(
      leaves.map((l) => [l.label, l.handler]),
      MENU_ITEMS.map(([label, handler]) => [label, handler]),
    );
    assert.equal(new Set(leaves.map((l) => l.handler)).size, leaves.length, 'no function twice');
    assert.ok(leaves.length >= 21, 'every item the flat menu had is still there');
    for (const item of leaves) {
      assert.match(code, new RegExp(`^function ${item.handler}\\(`, 'm'), `${item.path} > ${item.label}`);
    }
    // Clicked as Apps Script calls them, by name: each resolves to a function of the loaded bundle (what it
    // then does on a sheet with no setup does not matter here), and a name that is not there would say so.
    const notFound = (name: string) => `Script function not found: ${name}`;
    assert.equal(
      emu.run('noSuchMenuHandler', { kind: 'menu' }).error?.message,
      notFound('noSuchMenuHandler'),
    );
    for (const item of leaves) {
      const clicked = emu.run(item.handler, { kind: 'menu' });
      assert.notEqual(clicked.error?.message, notFound(item.handler), `${item.path} > ${item.label}`);
    }
  });

  test('onOpen also works when run from the menu or the editor by the owner', () => {
    const emu = bundleEmulator();
    assert.equal(emu.run('onOpen', { kind: 'menu' }).status, 'ok');
    assert.ok(emu.world.ui.menusOf(emu.world.owner).some((m) => m.title === '記帳'));
  });

  test('onOpen in a trigger execution cannot use getUi', () => {
    const emu = bundleEmulator();
    const r = emu.run('onOpen', { kind: 'trigger' });
    assert.equal(r.status, 'error');
    assert.equal(r.error?.message, GAS_MESSAGES.getUiFromTrigger);
  });

  test('setup creates every sheet with its headers, and a second run adds nothing', () => {
    const emu = bundleEmulator();
    const first = emu.run('setup');
    assert.equal(first.status, 'ok', JSON.stringify(first.error));
    assert.deepEqual(first.internalErrors, []);
    const names = emu.world.spreadsheet.sheets.map((s) => s.name);
    for (const spec of SHEET_SPECS) {
      assert.ok(names.includes(spec.name), spec.name);
      // 設定 also gets 説明 (what may be typed), a column no run needs.
      const extra = spec.name === '設定' ? ['説明'] : [];
      assert.deepEqual(sheetValues(emu, spec.name)[0], [...spec.headers, ...extra], spec.name);
    }
    assert.deepEqual(
      sheetValues(emu, '設定')
        .slice(1)
        .map((r) => r[0]),
      SETTING_DEFAULTS.map(([item]) => item),
    );
    const ledger = emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.equal(ledger?.frozenRows, 1);

    const snapshot = SHEET_SPECS.filter((s) => s.name !== 'ログ').map((s) => sheetValues(emu, s.name));
    const second = emu.run('setup');
    assert.equal(second.status, 'ok');
    assert.deepEqual((second.value as { createdSheets: string[] }).createdSheets, []);
    assert.deepEqual(
      emu.world.spreadsheet.sheets.map((s) => s.name),
      names,
    );
    assert.deepEqual(
      SHEET_SPECS.filter((s) => s.name !== 'ログ').map((s) => sheetValues(emu, s.name)),
      snapshot,
    );
    assert.equal(sheetValues(emu, 'ログ').length, 3, 'one log line per run');
  });

  test('setup keeps columns people moved and adds only the missing headers at the end', () => {
    const emu = bundleEmulator();
    emu.run('setup');
    const ledger = emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    // A person swaps two columns and deletes the last header.
    ledger.setValue(1, 1, '状態');
    ledger.setValue(1, 2, 'キー');
    ledger.setValue(1, LEDGER_HEADERS.length, '');
    const r = emu.run('setup');
    assert.deepEqual((r.value as { addedHeaders: Record<string, string[]> }).addedHeaders, {
      台帳: ['指紋'],
    });
    const header = sheetValues(emu, '台帳')[0];
    assert.deepEqual(header.slice(0, 2), ['状態', 'キー']);
    assert.equal(header[LEDGER_HEADERS.length - 1], '指紋');
  });

  test('the log line is written with its timestamp as text', () => {
    const emu = bundleEmulator();
    emu.run('setup');
    const [header, line] = sheetValues(emu, 'ログ');
    assert.equal(header[0], '日時');
    assert.equal(typeof line[0], 'string');
    assert.match(String(line[0]), /^2026-11-30T\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(line[1], emu.world.owner);
  });
});
