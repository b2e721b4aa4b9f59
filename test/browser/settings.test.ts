/** The 設定 editor dialog in headless Chromium over the bundle in the emulator. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { kichoWorld, OWNER, records } from '../helpers/kicho';

const browser = sharedBrowser();

const setting = (w: ReturnType<typeof kichoWorld>, item: string) =>
  records(w.emu, '設定').find((r) => r.項目 === item)?.値;

test('an invalid value is shown at its field and nothing is saved; fixed, all values are saved and the trigger follows 照合間隔', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const shown = server.open('openSettings');
    assert.equal(shown.type, 'modal');
    const page = await newPage(browser(), { width: 560, height: 640 });
    await page.goto(shown.url);
    await settled(page);
    const field = (item: string) => page.locator(`.field[data-item="${item}"]`);
    assert.equal(await field('取込開始日').locator('input').inputValue(), '2026-01-01');

    await field('1回の送信上限').locator('input').fill('たくさん');
    await field('照合間隔（分）').locator('select').selectOption('5');
    await field('取込開始日').locator('input').fill('2026-04-01');
    await page.click('#save');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /保存していません/);
    assert.match(await field('1回の送信上限').locator('.error').innerText(), /1〜1000 の整数/);
    assert.equal(await field('1回の送信上限').locator('input').getAttribute('aria-invalid'), 'true');
    assert.equal(
      await page.evaluate('document.activeElement && document.activeElement.name'),
      '1回の送信上限',
      'focus moves to the first invalid field',
    );
    assert.equal(String(setting(w, '取込開始日')), '2026-01-01', 'nothing saved while a value is invalid');
    await screenshot(page, 'settings-invalid');

    await field('1回の送信上限').locator('input').fill('300');
    await page.click('#save');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /設定を保存しました/);
    assert.match(await page.locator('#status').innerText(), /5 分ごと/);
    assert.equal(await field('1回の送信上限').locator('.error').innerText(), '');
    assert.equal(String(setting(w, '1回の送信上限')), '300');
    assert.equal(String(setting(w, '照合間隔（分）')), '5');
    assert.match(String(setting(w, '取込開始日')), /2026-04-01|Apr 01 2026/);
    const triggers = w.emu.world.triggers.visibleTo(OWNER).filter((t) => t.handler === 'runScheduled');
    assert.equal(triggers.length, 1);
    assert.equal(triggers[0].schedule?.everyMinutes, 5);
    await screenshot(page, 'settings-saved');

    await page.click('#close');
    await page.waitForFunction('true');
    for (let i = 0; i < 20 && !server.closed; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(server.closed, true, '閉じる closes the dialog');
  } finally {
    await server.close();
  }
});
