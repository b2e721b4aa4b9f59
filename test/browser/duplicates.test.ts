/**
 * 重複点検 and 重複を削除 in headless Chromium: the period dialog runs the audit; the confirmation lists
 * exactly the journals set to 削除 (a group that would lose every journal is refused there), and its button
 * deletes them in MF — or nothing when the sheet changed since it was opened. Also the pictures of the
 * 重複点検 and 残高照合 sheets for the README.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { editRow, records } from '../../sim/person';
import { sheetHtml } from '../../sim/sheet-html';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, screenshot, settled, sharedBrowser } from '../helpers/browser';
import { ok, plantedWorld } from '../helpers/duplicate-book';
import { EXAMPLE_RULES, kichoWorld, OWNER } from '../helpers/kicho';

const browser = sharedBrowser();

function exists(w: ReturnType<typeof plantedWorld>['w'], id: string): boolean {
  return w.mf.journals().some((j) => j.id === id);
}

test('the period dialog runs 重複点検 and tells what it found', async () => {
  const { w } = plantedWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 560, height: 460 });
    await page.goto(server.open('openDuplicateAudit').url);
    await settled(page);
    assert.equal(await page.inputValue('#start'), '2026-04-01');
    assert.equal(await page.inputValue('#end'), '2026-06-30');
    await page.click('#run');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /点検しました（グループ \d+ 件）/);
    assert.match(await page.locator('#messages').innerText(), /削除候補 5 件/);
    await screenshot(page, 'duplicate-audit');
    assert.equal(server.calls.at(-1)?.fn, 'auditDuplicatesFor');
    assert.ok(records(w.emu.world, '重複点検').length > 0);

    const picture = await newPage(browser(), { width: 1400, height: 700 });
    await picture.goto(
      server.serve(
        sheetHtml(
          w.emu.world,
          '重複点検',
          'シート「重複点検」（npm test の偽 MF の帳簿）',
          [
            'グループ',
            '取引日',
            '金額',
            '借方',
            '貸方',
            '摘要',
            '作成元',
            '推定原因',
            '提案',
            '操作',
            '状態',
          ],
          ['推定原因'],
        ),
      ),
    );
    await screenshot(picture, 'duplicates-sheet', true);
  } finally {
    await server.close();
  }
});

test('the confirmation lists the chosen journals and deletes exactly them', async () => {
  const { w, planted: p } = plantedWorld();
  ok(w, 'auditDuplicates');
  const chosen = [p.sameLine.copy, p.csvAndLine.csv, p.hand.hand];
  for (const id of chosen) editRow(w.emu.world, '重複点検', '仕訳ID', id, '操作', '削除');
  // Both of the genuine twins: that group would lose every journal, so it is refused, not deleted.
  for (const id of p.twins.ids) editRow(w.emu.world, '重複点検', '仕訳ID', id, '操作', '削除');
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 720, height: 560 });
    await page.goto(server.open('openDuplicateDeletion').url);
    assert.equal(await page.locator('#rows tr').count(), 3);
    assert.equal(await page.locator('#count').innerText(), '3');
    assert.match(
      await page.locator('#refused').innerText(),
      /すべて削除することになるため、このグループは削除しません/,
    );
    await screenshot(page, 'duplicate-delete');
    assert.ok(
      chosen.every((id) => exists(w, id)),
      'opening the dialog deletes nothing',
    );
    await page.click('#run');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /MF から仕訳を 3 件削除しました/);
    assert.equal(server.calls.at(-1)?.fn, 'deleteDuplicates');
    assert.ok(chosen.every((id) => !exists(w, id)));
    assert.ok(p.twins.ids.every((id) => exists(w, id)));
    assert.equal(w.mf.requestLog.filter((e) => e.method === 'DELETE').length, 3);
    await screenshot(page, 'duplicate-deleted');
  } finally {
    await server.close();
  }
});

test('a sheet changed after the dialog opened: nothing is deleted, the person is told to open it again', async () => {
  const { w, planted: p } = plantedWorld();
  ok(w, 'auditDuplicates');
  editRow(w.emu.world, '重複点検', '仕訳ID', p.sameTag.copy, '操作', '削除');
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 720, height: 560 });
    await page.goto(server.open('openDuplicateDeletion').url);
    editRow(w.emu.world, '重複点検', '仕訳ID', p.hand.hand, '操作', '削除');
    await page.click('#run');
    await settled(page);
    assert.match(await page.locator('#status').innerText(), /変わったため、何も削除しませんでした/);
    assert.equal(w.mf.requestLog.filter((e) => e.method === 'DELETE').length, 0);
  } finally {
    await server.close();
  }
});

test('a picture of 残高照合 with its chart', async () => {
  const w = kichoWorld({ window: ['2026-04-01', '2026-06-30'] });
  w.addRules(EXAMPLE_RULES);
  const sources = w.emu.world.spreadsheet.sheets.find((s) => s.name === '取込元');
  assert.ok(sources);
  sources.setValue(2, 1, '○○信用金庫');
  sources.setValue(2, 2, '普通預金');
  const csv = [
    '日付,摘要,出金,入金,残高',
    '2026/04/01,ｶｲｾﾂ,,300000,300000',
    '2026/04/10,ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ,3280,,296720',
    '2026/05/12,ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ,1100,,295620',
    '2026/06/05,ﾀｸｼｰ ﾄｳｷﾖｳ,2140,,293480',
    '2026/07/01,ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ,500,,292980',
  ].join('\n');
  ok(w, 'importTransactions');
  ok(w, 'importCsv', [csv, '○○信用金庫']);
  ok(w, 'classifyPending');
  ok(w, 'postApproved');
  ok(w, 'checkBalances');
  // A person types the passbook's balances for the bank: April agrees once the lines still in the 台帳 are
  // booked, May is 12,000 yen off.
  const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === '残高照合');
  assert.ok(sheet);
  const bank = '三井住友銀行 代表口座 普通 1234567';
  const pending = (date: string) =>
    w
      .ledger()
      .filter(
        (r) => r.口座 === bank && String(r.取引日) <= date && !['完了', '除外'].includes(String(r.状態)),
      )
      .reduce((n, r) => n + (r.入出金 === '入金' ? 1 : -1) * Number(r.金額), 0);
  for (const [monthEnd, off] of [
    ['2026-04-30', 0],
    ['2026-05-31', 12_000],
  ] as const) {
    const at = records(w.emu.world, '残高照合').findIndex((r) => r.口座 === bank && r.月末 === monthEnd);
    const mf = Number(records(w.emu.world, '残高照合')[at].MFの残高);
    sheet.setValue(at + 2, 7, mf + pending(monthEnd) - off);
  }
  ok(w, 'checkBalances');
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 1400, height: 900 });
    await page.goto(
      server.serve(
        sheetHtml(
          w.emu.world,
          '残高照合',
          'シート「残高照合」（npm test の偽 MF の帳簿）',
          ['口座', '勘定科目', '補助科目', '月末', 'MFの残高', '明細の残高', '通帳残高', '差額', '説明'],
          ['説明'],
        ),
      ),
    );
    assert.equal(await page.locator('svg').count(), 1, 'the chart of the differences');
    await screenshot(page, 'balances-sheet', true);
  } finally {
    await server.close();
  }
});
