/** 「CSVを取り込む」 in headless Chromium: pick a Shift_JIS file, preview with the bad line, import. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import type { Page } from 'playwright-core';
import { SAMPLE_CARD_CSV, SAMPLE_CARD_SOURCE } from '../../sim/csv-sample';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { kichoWorld, OWNER, records } from '../helpers/kicho';

const browser = sharedBrowser();

/** Picks the sample card statement as Shift_JIS bytes and waits for its preview. */
async function pickCardFile(page: Page): Promise<void> {
  await page.setInputFiles('#file', {
    name: 'card.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(iconv.encode(SAMPLE_CARD_CSV, 'cp932')),
  });
  await page.waitForFunction("document.getElementById('status').textContent.includes('取り込む')");
  await settled(page);
}

test('a Shift_JIS card statement: preview shows the lines and the unreadable one by number; 取り込む adds the good lines once', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const shown = server.open('openCsvImport');
    assert.equal(shown.type, 'modal');
    const page = await newPage(browser(), { width: 760, height: 600 });
    await page.goto(shown.url);
    await settled(page);
    await page.fill('#source', SAMPLE_CARD_SOURCE);
    await pickCardFile(page);
    const preview = await page.locator('#preview').innerText();
    assert.match(preview, /ﾀｸｼｰ ﾄｳｷﾖｳ/, 'decoded from Shift_JIS');
    assert.match(preview, /6 行目/, 'the unreadable amount is reported with its line number');
    assert.equal(await page.isEnabled('#import'), true);
    assert.equal(w.ledger().length, 0, 'the preview imports nothing');
    await screenshot(page, 'csv-import');

    await page.click('#import');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /取り込みました/);
    const csvRows = w.ledger().filter((r) => String(r.キー).startsWith('csv:'));
    assert.equal(csvRows.length, 5, 'five readable lines, the twin taxi rides both');
    assert.ok(csvRows.every((r) => r.口座 === SAMPLE_CARD_SOURCE && r.状態 === '未判定'));
    assert.ok(records(w.emu, '取込元').some((r) => r.名前 === SAMPLE_CARD_SOURCE));

    // The same file again through the dialog adds nothing.
    const again = await newPage(browser(), { width: 760, height: 600 });
    await again.goto(server.open('openCsvImport').url);
    await settled(again);
    await again.fill('#source', SAMPLE_CARD_SOURCE);
    await pickCardFile(again);
    await again.click('#import');
    await settled(again);
    assert.equal(w.ledger().filter((r) => String(r.キー).startsWith('csv:')).length, 5);
  } finally {
    await server.close();
  }
});
