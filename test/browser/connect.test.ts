/**
 * The MF connection sidebar in headless Chromium, its google.script.run calls answered by the bundle
 * in the emulator against the fake MF: see the connected office, disconnect, a wrong key refused,
 * the right key checked and saved, the OAuth steps with the redirect URI.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TEST_API_KEY } from '../../sim/mf/fake-mf';
import { TEST_OFFICE_CODE } from '../../sim/mf/seed';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { kichoWorld, OWNER, records } from '../helpers/kicho';

const SIDEBAR = { width: 300, height: 720 };

const browser = sharedBrowser();

describe('MFに接続 (sidebar)', () => {
  test('shows the connected office; 接続を解除 removes the key and tokens', async () => {
    const w = kichoWorld();
    const server = await new DialogServer(w.emu, OWNER).start();
    try {
      const shown = server.open('openConnection');
      assert.equal(shown.type, 'sidebar');
      const page = await newPage(browser(), SIDEBAR);
      await page.goto(shown.url);
      await settled(page);
      const office = w.mf.office.name;
      assert.match(await page.locator('#status').innerText(), new RegExp(`「${office}」に接続しています`));
      await screenshot(page, 'connect-connected');

      page.once('dialog', (d) => void d.accept());
      await page.click('#disconnect');
      await settled(page);
      assert.match(await page.locator('#status').innerText(), /接続を解除しました/);
      const props = w.emu.world.properties.script;
      assert.equal(props.get('MF_API_KEY') ?? null, null);
      assert.equal(props.get('MF_OFFICE_CODE') ?? null, null);
      assert.equal(props.get('MF_TOKEN_CACHE') ?? null, null, 'the cached token is gone too');
      const post = w.run('postApproved');
      assert.match(JSON.stringify(post.value), /MFに接続されていません/);
    } finally {
      await server.close();
    }
  });

  test('a wrong key is refused without saving; the right one is checked against MF and saved, never shown again', async () => {
    const w = kichoWorld();
    w.emu.world.properties.script.delete('MF_API_KEY');
    w.emu.world.properties.script.delete('MF_OFFICE_CODE');
    const server = await new DialogServer(w.emu, OWNER).start();
    try {
      const page = await newPage(browser(), SIDEBAR);
      await page.goto(server.open('openConnection').url);
      await settled(page);
      assert.match(await page.locator('#status').innerText(), /まだMFに接続されていません/);

      // Keyboard only: type, tab, type, Enter submits.
      await page.focus('#apiKey');
      await page.keyboard.type('mf_api_wrong_key_123456');
      await page.keyboard.press('Tab');
      await page.keyboard.type(TEST_OFFICE_CODE);
      await page.keyboard.press('Enter');
      await settled(page);
      const refused = await page.locator('#status').innerText();
      assert.match(refused, /保存していません/);
      assert.doesNotMatch(refused, /mf_api_wrong_key_123456/, 'the typed key is not echoed');
      assert.equal(w.emu.world.properties.script.get('MF_API_KEY') ?? null, null);
      await screenshot(page, 'connect-refused');

      await page.fill('#apiKey', TEST_API_KEY);
      await page.click('#saveApiKey');
      await settled(page);
      assert.match(await page.locator('#status').innerText(), /接続しました/);
      assert.equal(w.emu.world.properties.script.get('MF_API_KEY'), TEST_API_KEY);
      assert.equal(await page.inputValue('#apiKey'), '', 'the field is cleared');
      const html = await page.content();
      assert.ok(!html.includes(TEST_API_KEY));
      const log = JSON.stringify(records(w.emu, 'ログ'));
      assert.match(log, /APIキー方式で/);
      assert.ok(!log.includes(TEST_API_KEY));
      for (const call of server.calls)
        assert.ok(!JSON.stringify(call.result.value ?? '').includes(TEST_API_KEY));
      assert.equal(w.run('importTransactions').status, 'ok');
      assert.ok(w.ledger().length > 0, 'connected: the import works');
    } finally {
      await server.close();
    }
  });

  test('OAuth: the redirect URI to register, then the consent link after saving the client', async () => {
    const w = kichoWorld();
    const server = await new DialogServer(w.emu, OWNER).start();
    try {
      const page = await newPage(browser(), SIDEBAR);
      await page.goto(server.open('openConnection').url);
      await settled(page);
      await page.click('#tab-oauth');
      assert.equal(await page.isVisible('#panel-oauth'), true);
      assert.equal(await page.isVisible('#panel-apikey'), false);
      const uri = await page.inputValue('#redirectUri');
      assert.match(uri, /^https:\/\/script\.google\.com\/macros\/d\/[^/]+\/usercallback$/);
      await page.fill('#clientId', 'kicho-client');
      await page.fill('#clientSecret', 'kicho-secret-value');
      await page.click('#saveOAuth');
      await settled(page);
      assert.equal(await page.isVisible('#authorize'), true);
      const href = await page.getAttribute('#authorize', 'href');
      assert.match(String(href), /client_id=kicho-client/);
      assert.match(String(href), /redirect_uri=/);
      assert.ok(!(await page.content()).includes('kicho-secret-value'));
      const props = w.emu.world.properties.script;
      assert.equal(props.get('MF_CLIENT_SECRET'), 'kicho-secret-value');
      assert.equal(props.get('MF_API_KEY') ?? null, null, 'OAuth replaces the API key');
      await screenshot(page, 'connect-oauth');
    } finally {
      await server.close();
    }
  });
});
