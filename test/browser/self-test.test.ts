/**
 * The 本番前チェック dialog in headless Chromium over the real bundle: the results one row per item, the
 * MF posting check's confirm step (its question names the line; nothing is sent until it is ticked), the
 * check after the tick, and an NG that stops posting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { EXAMPLE_RULES, kichoWorld, OWNER } from '../helpers/kicho';

const browser = sharedBrowser();
const SIZE = { width: 680, height: 600 };
const POSTS = (w: ReturnType<typeof kichoWorld>) =>
  w.mf.requestLog.filter((e) => e.method === 'POST' && e.path.startsWith('/api/v3/')).length;

test('the results; the posting check asks naming the line, runs only once ticked; an NG says posting is stopped', async () => {
  const w = kichoWorld();
  w.addRules(EXAMPLE_RULES);
  w.run('importTransactions');
  w.run('classifyPending');
  const first = w.ledger().find((r) => r.状態 === '送信待ち');
  assert.ok(first);
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), SIZE);
    const shown = server.open('selfTest');
    assert.equal(shown.title, '本番前チェック');
    await page.goto(shown.url);
    assert.equal(await page.locator('#rows tr').count(), 13);
    assert.match(await page.locator('#status').innerText(), /確認待ち 1 件。合格です/);
    assert.equal(await page.locator('tr[data-item="sheets-round-trip"] [data-result]').innerText(), 'OK');
    assert.equal(await page.locator('tr[data-item="mf-office"] [data-result]').innerText(), 'OK');
    assert.match(
      await page.locator('tr[data-item="sheets-plain-text"]').innerText(),
      /書式「書式なしテキスト」のセルでは、先頭の「'」が文字として残ります/,
    );
    // The confirm step: the question names the row (date, amount, description); nothing sent yet.
    assert.equal(await page.locator('#confirm').isVisible(), true);
    assert.equal(await page.locator('tr[data-item="mf-posting"] [data-result]').innerText(), '確認待ち');
    const question = await page.locator('#questions').innerText();
    assert.match(question, new RegExp(`台帳 \\d+ 行目（${first.取引日}、${first.入出金} [\\d,]+ 円、「`));
    assert.match(question, /MF に 1 件だけ登録します/);
    assert.match(await page.locator('#again').innerText(), /チェックを入れた項目も行って/);
    const posts = POSTS(w);
    await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    await screenshot(page, 'self-test');

    // Not ticked: the check runs again without it.
    await page.click('#again');
    await settled(page);
    assert.deepEqual(server.calls.at(-1)?.args, [[]]);
    assert.equal(await page.locator('tr[data-item="mf-posting"] [data-result]').innerText(), '確認待ち');
    assert.equal(POSTS(w), posts);

    // Ticked: exactly one line is posted, found in MF, and the second run sends nothing.
    const box = page.locator('input[name=confirmed]');
    assert.match(String(await box.getAttribute('value')), /^mf-posting:[0-9a-f]{16}$/);
    await box.check();
    await page.click('#again');
    await settled(page);
    assert.equal(server.calls.at(-1)?.fn, 'selfTestConfirm');
    assert.equal(POSTS(w), posts + 1);
    assert.equal(await page.locator('tr[data-item="mf-posting"] [data-result]').innerText(), 'OK');
    assert.match(
      await page.locator('tr[data-item="mf-posting"]').innerText(),
      /2 回目は何も送られないことを確かめました/,
    );
    assert.match(await page.locator('#status').innerText(), /合格です/);
    assert.equal(await page.locator('#confirm').isHidden(), true, 'nothing left to ask in this run');
    await page.locator('tr[data-item="mf-posting"]').scrollIntoViewIfNeeded();
    await screenshot(page, 'self-test-posted');

    // Keys stop reading back (a world where Google's documented behaviour fails): the same dialog, again.
    w.emu.world.spreadsheet.automaticApostrophe = 'kept';
    await page.click('#again');
    await settled(page);
    assert.equal(await page.locator('tr[data-item="sheets-round-trip"] [data-result]').innerText(), 'NG');
    assert.match(
      await page.locator('tr[data-item="sheets-round-trip"]').innerText(),
      /この NG が直るまで登録を止めます/,
    );
    assert.match(await page.locator('#status').innerText(), /NG が直るまで登録を止めます/);
    assert.match(String(await page.locator('#status').getAttribute('class')), /error/);
    assert.equal(POSTS(w), posts + 1);
    await page.locator('#status').scrollIntoViewIfNeeded();
    await screenshot(page, 'self-test-ng');
  } finally {
    await server.close();
  }
});
