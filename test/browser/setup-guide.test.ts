/** 初期設定 in headless Chromium: setup runs, then the guide walks through the first steps. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { kichoWorld, OWNER, records } from '../helpers/kicho';

const browser = sharedBrowser();

test('the guide shows what is done, adds example rules on request, runs 本番前チェック, and counts the dry run', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const shown = server.open('setupWizard');
    assert.equal(shown.type, 'modal');
    const page = await newPage(browser(), { width: 520, height: 560 });
    await page.goto(shown.url);
    await settled(page);
    const step = (id: string) => page.locator(`li[data-step="${id}"]`);
    assert.equal(await step('connect').getAttribute('class'), 'done', 'kichoWorld is connected');
    assert.equal(await step('window').getAttribute('class'), 'done');
    assert.equal(await step('rules').getAttribute('class'), '');
    assert.equal(await step('selftest').getAttribute('class'), '');
    assert.equal(await step('dryrun').getAttribute('class'), '');
    await screenshot(page, 'setup-guide');

    await step('rules').locator('button[data-fn="addStarterRules"]').click();
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /例のルールを \d+ 件入れました/);
    assert.equal(await step('rules').getAttribute('class'), 'done');
    const rules = records(w.emu, 'ルール');
    assert.ok(rules.length >= 3);
    assert.ok(
      rules.every((r) => r.自動承認 === 'いいえ'),
      'examples never auto-approve',
    );

    await step('rules').locator('button[data-fn="addStarterRules"]').click();
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /ルールはもうあります/);
    assert.equal(records(w.emu, 'ルール').length, rules.length, 'never added twice');

    // 本番前チェック from the guide: it runs (and opens its own dialog); the step is then done.
    await step('selftest').locator('button[data-fn="selfTest"]').click();
    await settled(page);
    assert.ok(server.calls.some((c) => c.fn === 'selfTest' && c.result.status === 'ok'));
    assert.equal(await step('selftest').getAttribute('class'), 'done');
    assert.match(await step('selftest').innerText(), /に合格しました/);

    w.run('dryRun');
    await page.reload();
    await settled(page);
    assert.equal(await step('dryrun').getAttribute('class'), 'done');
  } finally {
    await server.close();
  }
});
