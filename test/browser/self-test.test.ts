/**
 * The 本番前チェック dialog in headless Chromium: the results of the real bundle (and its NG), and the
 * confirm step an item that does something real uses — shown with the shipped dialog over a small
 * backend that answers selfTest / selfTestConfirm the way the bundle does, with such an item.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { DIST, fixtureEmulator } from '../helpers/emulator';
import { EXAMPLE_RULES, kichoWorld, OWNER } from '../helpers/kicho';

const browser = sharedBrowser();
const SIZE = { width: 680, height: 600 };

test('the results, one row per item; もう一度チェック runs it again; an NG says posting is stopped', async () => {
  const w = kichoWorld();
  w.addRules(EXAMPLE_RULES);
  w.run('importTransactions');
  w.run('classifyPending');
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), SIZE);
    const shown = server.open('selfTest');
    assert.equal(shown.title, '本番前チェック');
    await page.goto(shown.url);
    assert.equal(await page.locator('#rows tr').count(), 9);
    assert.match(await page.locator('#status').innerText(), /合格です/);
    assert.equal(await page.locator('#confirm').isHidden(), true, 'nothing to confirm in this half');
    assert.equal(await page.locator('tr[data-item="sheets-round-trip"] [data-result]').innerText(), 'OK');
    assert.match(
      await page.locator('tr[data-item="sheets-plain-text"]').innerText(),
      /書式「書式なしテキスト」のセルでは、先頭の「'」が文字として残ります/,
    );
    await screenshot(page, 'self-test');

    // Keys stop reading back (a world where Google's documented behaviour fails): the same dialog, again.
    w.emu.world.spreadsheet.automaticApostrophe = 'kept';
    await page.click('#again');
    await settled(page);
    assert.equal(server.calls.at(-1)?.fn, 'selfTestConfirm');
    assert.equal(await page.locator('tr[data-item="sheets-round-trip"] [data-result]').innerText(), 'NG');
    assert.match(
      await page.locator('tr[data-item="sheets-round-trip"]').innerText(),
      /この NG が直るまで登録を止めます/,
    );
    assert.match(await page.locator('#status').innerText(), /NG が直るまで登録を止めます/);
    assert.match(String(await page.locator('#status').getAttribute('class')), /error/);
    await screenshot(page, 'self-test-ng');
  } finally {
    await server.close();
  }
});

/** A backend with an item that asks first (as the MF half's one-line posting check will). */
function confirmingBackend() {
  const report = (over: Record<string, unknown>) => ({
    group: 'MF',
    blocksPosting: false,
    at: '2026-11-30 09:15',
    question: null,
    ...over,
  });
  const before = {
    ok: true,
    passed: true,
    headline: '本番前チェック: OK 1 件、注意 0 件、NG 0 件、確認待ち 1 件。合格です。',
    reports: [
      report({
        id: 'office',
        title: '接続している事業者',
        result: 'OK',
        detail: 'テスト株式会社に接続しています。',
      }),
      report({
        id: 'post-one',
        title: '1 件だけ登録',
        result: '注意',
        detail: 'まだ行っていません（画面で内容を確かめてチェックを入れると行います）。',
        question: '2026-05-01 ﾃｽｳﾘﾖｳ 440 円（台帳 2 行目）を MF に 1 件だけ登録します。',
      }),
    ],
  };
  const after = {
    ...before,
    headline: '本番前チェック: OK 2 件、注意 0 件、NG 0 件。合格です。',
    reports: [
      before.reports[0],
      report({
        id: 'post-one',
        title: '1 件だけ登録',
        result: 'OK',
        detail: '登録して、2 回目は何も送られませんでした。',
      }),
    ],
  };
  const code = `
    var BEFORE = ${JSON.stringify(before)};
    var AFTER = ${JSON.stringify(after)};
    function selfTest() {
      var t = HtmlService.createTemplateFromFile('self-test');
      t.result = JSON.stringify(BEFORE);
      SpreadsheetApp.getUi().showModalDialog(t.evaluate().setWidth(680).setHeight(600), '本番前チェック');
    }
    function selfTestConfirm(ids) { return ids.indexOf('post-one') >= 0 ? AFTER : BEFORE; }
  `;
  const file = (name: string) => readFileSync(path.join(DIST, name), 'utf8');
  return fixtureEmulator(
    code,
    {},
    { 'self-test.html': file('self-test.html'), 'ui-style.html': file('ui-style.html') },
  );
}

test('the confirm step: the question names the line; only a ticked item is sent back to run', async () => {
  const emu = confirmingBackend();
  const server = await new DialogServer(emu, emu.world.owner).start();
  try {
    const page = await newPage(browser(), SIZE);
    await page.goto(server.open('selfTest').url);
    assert.equal(await page.locator('#confirm').isVisible(), true);
    assert.match(
      await page.locator('#questions').innerText(),
      /2026-05-01 ﾃｽｳﾘﾖｳ 440 円（台帳 2 行目）を MF に 1 件だけ登録します/,
    );
    assert.equal(await page.locator('tr[data-item="post-one"] [data-result]').innerText(), '確認待ち');
    assert.match(await page.locator('#again').innerText(), /チェックを入れた項目も行って/);
    await screenshot(page, 'self-test-confirm');

    // Not ticked: the check runs again without it.
    await page.click('#again');
    await settled(page);
    assert.deepEqual(server.calls.at(-1)?.args, [[]]);
    assert.equal(await page.locator('tr[data-item="post-one"] [data-result]').innerText(), '確認待ち');

    await page.check('input[name=confirmed][value="post-one"]');
    await page.click('#again');
    await settled(page);
    assert.deepEqual(server.calls.at(-1)?.args, [['post-one']]);
    assert.equal(await page.locator('tr[data-item="post-one"] [data-result]').innerText(), 'OK');
    assert.equal(await page.locator('#confirm').isHidden(), true);
    assert.match(await page.locator('#status').innerText(), /合格です/);
  } finally {
    await server.close();
  }
});
