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

test('AI判定: choosing a provider shows what is sent, to whom and the cost, and the save is refused until the yes is ticked', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 560, height: 640 });
    await page.goto(server.open('openSettings').url);
    await settled(page);
    assert.equal(
      await page.locator('#ai-consent').isHidden(),
      true,
      'nothing to agree to while AI判定 is オフ',
    );
    await page.locator('.field[data-item="AI判定"] select').selectOption('anthropic');
    assert.equal(await page.locator('#ai-consent').isVisible(), true);
    const text = await page.locator('#ai-consent').innerText();
    assert.match(text, /送り先: Anthropic（米国）/);
    assert.match(text, /取引日・金額・入出金・摘要/);
    assert.match(text, /下 4 桁のほかを \*/);
    assert.match(text, /費用: AI に聞くのは、ルールに当てはまらなかった明細 1 件につき 1 回/);
    assert.match(text, /入力 100 万トークンあたり 1 ドル/);
    assert.equal(await page.locator('#aiConsent').isChecked(), false);
    await page.locator('#ai-consent').scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-ai-consent');

    await page.click('#save');
    await settled(page);
    assert.match(
      await page.locator('#status').innerText(),
      /同意のチェックを入れてください。保存していません/,
    );
    assert.match(
      await page.locator('.field[data-item="AI判定"] .error').innerText(),
      /同意のチェックを入れてください/,
    );
    assert.equal(String(setting(w, 'AI判定')), 'オフ', 'not saved without the yes');

    await page.check('#aiConsent');
    await page.click('#save');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /AI判定を anthropic にしました/);
    assert.equal(String(setting(w, 'AI判定')), 'anthropic');
    assert.equal(await page.locator('#ai-consent').isHidden(), true, 'agreed: the box goes away');
  } finally {
    await server.close();
  }
});

test('the AI key: saved to properties, never shown back, the field cleared; removed again; the daily cost is shown', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  const secret = 'sk-test-AIKEY-0123456789abcdef';
  try {
    const shown = server.open('openSettings');
    const page = await newPage(browser(), { width: 560, height: 640 });
    await page.goto(shown.url);
    await settled(page);
    assert.match(await page.locator('#aiKeyState').innerText(), /まだ保存されていません/);
    assert.equal(await page.locator('#removeAiKey').isDisabled(), true);
    assert.match(await page.locator('#quota').innerText(), /15 分ごと（1日 96 回）/);
    await page.locator('.field[data-item="照合間隔（分）"] select').selectOption('5');
    assert.match(await page.locator('#quota').innerText(), /5 分ごと（1日 288 回）/);

    await page.fill('#aiKey', secret);
    await page.click('#saveAiKey');
    await settled(page);
    assert.equal(w.emu.world.properties.script.get('AI_API_KEY'), secret);
    assert.equal(await page.locator('#aiKey').inputValue(), '', 'the field is cleared');
    assert.match(await page.locator('#aiKeyState').innerText(), /保存されています/);
    assert.match(await page.locator('#status').innerText(), /保存しました/);
    assert.ok(!(await page.content()).includes(secret), 'the key is not on the page');
    await screenshot(page, 'settings-ai-key-saved');

    // Opened again, the dialog says a key is saved and never shows it.
    const again = await newPage(browser(), { width: 560, height: 640 });
    await again.goto(server.open('openSettings').url);
    await settled(again);
    assert.match(await again.locator('#aiKeyState').innerText(), /保存されています/);
    assert.equal(await again.locator('#aiKey').inputValue(), '');
    assert.ok(!(await again.content()).includes(secret));

    await again.click('#removeAiKey');
    await settled(again);
    assert.equal(w.emu.world.properties.script.get('AI_API_KEY'), undefined);
    assert.match(await again.locator('#aiKeyState').innerText(), /まだ保存されていません/);
    const everywhere = JSON.stringify(
      [...w.emu.world.spreadsheet.sheets.map((s) => s.name)].map((n) => records(w.emu, n)),
    );
    assert.ok(!everywhere.includes(secret) && !everywhere.includes('AIKEY'), 'no sheet holds the key');
    assert.ok(records(w.emu, 'ログ').some((l) => l.処理 === 'AIキーの削除'));
  } finally {
    await server.close();
  }
});

test('イベント受付: the URL with its key is shown once, the old one stops on rotation, and no sheet holds the key', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 560, height: 760 });
    await page.goto(server.open('openSettings').url);
    await settled(page);
    assert.match(await page.locator('#webhookState').innerText(), /止まっています/);
    assert.equal(await page.locator('#disableWebhook').isDisabled(), true);
    await page.click('#rotateWebhook');
    await settled(page);
    const url = await page.locator('#webhookUrl').inputValue();
    const key = new URL(url).searchParams.get('key') ?? '';
    assert.equal(key, w.emu.world.properties.script.get('KICHO_WEBHOOK_SECRET'));
    assert.match(url, /^https:\/\/script\.google\.com\/macros\/s\/.+\/exec\?key=[0-9a-f]{64}$/);
    assert.match(await page.locator('#status').innerText(), /今だけ表示します/);
    await page.locator('#webhook').scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-webhook-url');

    // Opened again: enabled, and the key is nowhere on the page.
    const again = await newPage(browser(), { width: 560, height: 760 });
    await again.goto(server.open('openSettings').url);
    await settled(again);
    assert.match(await again.locator('#webhookState').innerText(), /有効です/);
    assert.ok(!(await again.content()).includes(key), 'shown once only');
    await again.click('#rotateWebhook');
    await settled(again);
    const fresh = w.emu.world.properties.script.get('KICHO_WEBHOOK_SECRET');
    assert.notEqual(fresh, key);
    assert.match(await again.locator('#status').innerText(), /前の URL はもう使えません/);
    await again.click('#disableWebhook');
    await settled(again);
    assert.equal(w.emu.world.properties.script.get('KICHO_WEBHOOK_SECRET'), undefined);
    assert.match(await again.locator('#webhookState').innerText(), /止まっています/);
    const everywhere = JSON.stringify(w.emu.world.spreadsheet.sheets.map((s) => records(w.emu, s.name)));
    assert.ok(
      !everywhere.includes(key.slice(0, 8)) && !everywhere.includes(String(fresh).slice(0, 8)),
      'no sheet holds a key',
    );
  } finally {
    await server.close();
  }
});
