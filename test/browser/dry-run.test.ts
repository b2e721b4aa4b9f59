/** The dry-run dialog in headless Chromium: the plan, then 実行 runs exactly it — or nothing if the 台帳 changed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DialogServer } from '../../sim/ui/dialog-server';
import { remoteTagOf } from '../../src/core/keys';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { EXAMPLE_RULES, kichoWorld, OWNER } from '../helpers/kicho';

const browser = sharedBrowser();

function ours(w: ReturnType<typeof kichoWorld>) {
  return w.mf.journals().filter((j) => j.tags.some((t) => t.startsWith('kc-')));
}

function readyWorld() {
  const w = kichoWorld();
  w.addRules(EXAMPLE_RULES);
  w.run('importTransactions');
  w.run('classifyPending');
  return w;
}

test('実行 posts exactly the previewed rows', async () => {
  const w = readyWorld();
  const waiting = w.ledger().filter((r) => r.状態 === '送信待ち');
  assert.ok(waiting.length > 0);
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 640, height: 600 });
    await page.goto(server.open('dryRun').url);
    assert.match(await page.locator('#sendCount').innerText(), new RegExp(`^${waiting.length}$`));
    assert.equal(await page.locator('#preview tr').count(), Math.min(waiting.length, 100));
    await screenshot(page, 'dry-run');
    assert.equal(ours(w).length, 0, 'the dry run posts nothing');

    const alertsBefore = w.emu.world.ui.events.filter((e) => e.type === 'alert').length;
    await page.click('#run');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), new RegExp(`${waiting.length} 件を登録しました`));
    const journals = ours(w);
    assert.equal(journals.length, waiting.length);
    for (const r of waiting) {
      assert.equal(journals.filter((j) => j.tags.includes(remoteTagOf(String(r.キー)))).length, 1);
    }
    assert.equal(server.calls.at(-1)?.fn, 'postPreviewed');
    const alerts = w.emu.world.ui.events.filter((e) => e.type === 'alert').length;
    assert.equal(alerts, alertsBefore, 'no alert over the dialog');
  } finally {
    await server.close();
  }
});

test('a 台帳 changed after the preview is refused: nothing is posted, the person is told to run the dry run again', async () => {
  const w = readyWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 640, height: 600 });
    await page.goto(server.open('dryRun').url);
    // A person changes the account of a row the plan would send.
    const row = w.ledger().find((r) => r.状態 === '送信待ち');
    assert.ok(row);
    w.edit(String(row.キー), '勘定科目', row.勘定科目 === '消耗品費' ? '旅費交通費' : '消耗品費');
    await page.click('#run');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /ドライランの後に台帳が変わった/);
    assert.equal(ours(w).length, 0);
    assert.ok(
      w.ledger().every((r) => r.状態 !== '送信中'),
      'nothing claimed',
    );
    await screenshot(page, 'dry-run-refused');

    // Run again: the new preview includes the edit and runs.
    const again = await newPage(browser(), { width: 640, height: 600 });
    await again.goto(server.open('dryRun').url);
    await again.click('#run');
    await settled(again);
    assert.match(await again.locator('#status').innerText(), /件を登録しました/);
    assert.ok(ours(w).length > 0);
  } finally {
    await server.close();
  }
});
