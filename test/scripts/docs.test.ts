/**
 * The README and the guide a person follows (issue 29): the two commands, links that lead somewhere, and no
 * engineering words in the bookkeeper's sections (they live in docs/engineering.md).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/emulator';

const GUIDE = path.join(ROOT, 'docs', 'guide');
const docs = [
  path.join(ROOT, 'README.md'),
  path.join(ROOT, 'docs', 'engineering.md'),
  ...readdirSync(GUIDE)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(GUIDE, f)),
];

test('the README shows the two commands exactly, what to install first, and Windows PowerShell 5.1’s &&', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes('npm ci && npm start'));
  assert.ok(readme.includes('npm ci && npm test'));
  assert.match(readme, /macOS/);
  assert.match(readme, /Windows PowerShell 5\.1 は `&&` を受け付けません/);
  assert.match(readme, /Linux/);
  assert.ok(readme.split('\n').length < 80, 'short');
});

test('every relative link in the README and the docs leads to a file', () => {
  for (const file of docs) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const where = path.resolve(path.dirname(file), target.split('#')[0]);
      assert.ok(existsSync(where), `${path.relative(ROOT, file)} → ${target}`);
    }
  }
});

test('the bookkeeper’s sections use no engineering words', () => {
  const jargon =
    /flush|ロック|スクリプトプロパティ|\b403\b|\b5xx\b|\b429\b|NFKC|SHA-256|\/journals|trial_balance/;
  // events.md is for whoever sets up Zapier or Make (JSON and HTTP are its subject).
  for (const name of [
    'README.md',
    'install.md',
    'routines.md',
    'screens.md',
    'reference.md',
    'ai.md',
    'invoice.md',
  ]) {
    const text = readFileSync(path.join(GUIDE, name), 'utf8');
    const hits = text.split('\n').filter((l) => jargon.test(l));
    assert.deepEqual(hits, [], name);
  }
});

test('the guide explains every 状態 and every 操作, and names every menu item', async () => {
  const reference = readFileSync(path.join(GUIDE, 'reference.md'), 'utf8');
  for (const state of ['未判定', '要確認', '送信待ち', '送信中', '不明', '完了', '失敗', '除外', '削除中'])
    assert.match(reference, new RegExp(`^\\| ${state} \\|`, 'm'), state);
  for (const op of ['承認', '除外', '再試行', '戻す', '削除', '残す'])
    assert.match(reference, new RegExp(`^\\| ${op} \\|`, 'm'), op);
  const { MENU_ITEMS } = await import('../../src/ui/menu');
  for (const [label] of MENU_ITEMS) assert.match(reference, new RegExp(`\\| ${label} \\|`), label);
});
