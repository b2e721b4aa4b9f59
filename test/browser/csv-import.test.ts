/** 「CSVを取り込む」 in headless Chromium: pick a Shift_JIS file, preview with the bad line, import. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import type { Page } from 'playwright-core';
import { LAYOUT_SAMPLES, type LayoutSample, sampleBytes } from '../../sim/csv-layout-samples';
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

test('a bank file in its real shape: the preview names the bank; a file no layout knows is mapped once and 「この形式を保存」 keeps it', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const mufg = LAYOUT_SAMPLES.find((s) => s.layout === 'mufg') as LayoutSample;
    const page = await newPage(browser(), { width: 760, height: 600 });
    await page.goto(server.open('openCsvImport').url);
    await settled(page);
    await page.fill('#source', mufg.source);
    await page.setInputFiles('#file', {
      name: 'meisai.csv',
      mimeType: 'text/csv',
      buffer: sampleBytes(mufg),
    });
    await page.waitForFunction("document.getElementById('status').textContent.includes('取り込む')");
    await settled(page);
    assert.match(await page.locator('#found').innerText(), /三菱UFJ銀行の明細として読みました（6 行）/);
    assert.match(await page.locator('#preview').innerText(), /振込１ カ）テストショウジ/);
    await page.click('#import');
    await settled(page);
    assert.equal(w.ledger().filter((r) => String(r.キー).startsWith('csv:')).length, 6);

    // A bank no layout knows: 列を指定, then 「この形式を保存」.
    const other = [
      '取扱日,区分,相手,引落,入金額,残り',
      '2026/05/01,振込,ﾃｽﾄｼﾖｳｼﾞ,,50000,150000',
      '2026/05/09,引落,ﾃﾞﾝｷ,3300,,146700',
    ].join('\r\n');
    const p2 = await newPage(browser(), { width: 760, height: 600 });
    await p2.goto(server.open('openCsvImport').url);
    await settled(p2);
    await p2.fill('#source', '地元信金');
    await p2.setInputFiles('#file', {
      name: 'x.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(iconv.encode(other, 'cp932')),
    });
    await p2.waitForFunction("document.getElementById('status').textContent.includes('取り込めません')");
    await settled(p2);
    assert.match(await p2.locator('#preview').innerText(), /列を指定/);
    await p2.selectOption('#preset', 'custom');
    await settled(p2);
    await p2.selectOption('#c-date', '1');
    await p2.selectOption('#c-description', '2');
    await p2.selectOption('#c-description2', '3');
    await p2.selectOption('#c-withdrawal', '4');
    await p2.selectOption('#c-deposit', '5');
    await p2.selectOption('#c-balance', '6');
    await p2.check('#save-layout');
    await p2.waitForFunction("document.getElementById('status').textContent.includes('取り込む')");
    await settled(p2);
    assert.match(
      await p2.locator('#savable').innerText(),
      /列: 日付=1, 摘要=2\+3, 出金=4, 入金=5, 残高=6, 見出し=あり/,
    );
    await screenshot(p2, 'csv-import-save-layout');
    await p2.click('#import');
    await settled(p2);
    assert.match(await p2.locator('#preview').innerText(), /この形式.*を取込元「地元信金」に保存しました/);
    assert.equal(
      records(w.emu, '取込元').find((r) => r.名前 === '地元信金')?.取込形式,
      '列: 日付=1, 摘要=2+3, 出金=4, 入金=5, 残高=6, 見出し=あり',
    );
  } finally {
    await server.close();
  }
});
