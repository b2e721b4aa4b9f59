/**
 * The guide's pictures are the ones the browser tests take (issue 29). Each browser test compares what it
 * takes with the committed copy in docs/images (test/helpers/browser.ts, checkGuideImage); this file checks
 * that the comparison catches a stale picture, and that every committed picture is both taken by a test and
 * shown in a document (no orphan, no hand-made picture).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { compareImages, GUIDE_IMAGES } from '../helpers/browser';
import { ROOT } from '../helpers/emulator';

type Png = { width: number; height: number; data: Buffer };
const { PNG } = createRequire(import.meta.url)('playwright-core/lib/utilsBundle') as {
  PNG: { sync: { read(b: Buffer): Png; write(p: Png): Buffer } };
};

const committed = readdirSync(GUIDE_IMAGES).filter((f) => f.endsWith('.png'));

test('a committed picture that no longer matches is caught; the same picture, re-encoded, is not', () => {
  const original = readFileSync(path.join(GUIDE_IMAGES, 'setup-guide.png'));
  const png = PNG.sync.read(original);
  assert.equal(compareImages(PNG.sync.write(png), original), null);
  // One short word's worth of changed text: a 40 × 12 block of dark pixels somewhere in the dialog.
  for (let y = 100; y < 112; y++)
    for (let x = 200; x < 240; x++) {
      const i = (y * png.width + x) * 4;
      png.data[i] = png.data[i + 1] = png.data[i + 2] = 20;
    }
  assert.match(compareImages(PNG.sync.write(png), original)?.errorMessage ?? '', /pixels .* are different/);
});

test('every committed picture is taken by a browser test and shown in the README or the guide', () => {
  const sources = readdirSync(path.join(ROOT, 'test', 'browser'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(path.join(ROOT, 'test', 'browser', f), 'utf8'))
    .join('\n');
  const taken = new Set([...sources.matchAll(/screenshot\(\s*\w+,\s*'([^']+)'/g)].map((m) => m[1]));
  const docs = [path.join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const f of readdirSync(dir, { withFileTypes: true })) {
      if (f.isDirectory()) walk(path.join(dir, f.name));
      else if (f.name.endsWith('.md')) docs.push(path.join(dir, f.name));
    }
  };
  walk(path.join(ROOT, 'docs'));
  const text = docs.map((f) => readFileSync(f, 'utf8')).join('\n');
  for (const file of committed) {
    const name = file.replace(/\.png$/, '');
    assert.ok(taken.has(name), `docs/images/${file} is taken by a browser test`);
    assert.ok(text.includes(`images/${file}`), `docs/images/${file} is shown in a document`);
  }
});
