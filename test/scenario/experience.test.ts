/** What a person sees around the runs: progress toasts, menu items, 要確認を開く, ヘルプ, 自動実行の設定. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EXAMPLE_RULES, kichoWorld, OWNER, records } from '../helpers/kicho';

function approved() {
  const w = kichoWorld();
  w.addRules(EXAMPLE_RULES);
  w.run('importTransactions');
  w.run('classifyPending');
  return w;
}

describe('progress', () => {
  test('a menu import says it has started (MF paging can take a while)', () => {
    const w = kichoWorld();
    const mark = w.emu.world.ui.events.length;
    w.run('importTransactions');
    const toasts = w.emu.world.ui.events.slice(mark).filter((e) => e.type === 'toast');
    assert.deepEqual(
      toasts.map((t) => t.message),
      ['MFから未仕訳明細を取り込んでいます…'],
    );
  });

  test('a menu postApproved shows 「n/total 件送信済み」 toasts ending at the total; a trigger run shows none', () => {
    const w = approved();
    const waiting = w.ledger().filter((r) => r.状態 === '送信待ち').length;
    const before = w.emu.world.ui.events.length;
    w.run('postApproved');
    const toasts = w.emu.world.ui.events.slice(before).filter((e) => e.type === 'toast');
    assert.ok(toasts.length >= 1);
    assert.ok(toasts.every((t) => /^\d+\/\d+ 件送信済み$/.test(String(t.message))));
    assert.equal(toasts.at(-1)?.message, `${waiting}/${waiting} 件送信済み`);

    const w2 = approved();
    const mark = w2.emu.world.ui.events.length;
    w2.run('postApproved', { kind: 'trigger', args: [{ triggerUid: 't1', authMode: 'FULL' }] });
    assert.equal(w2.emu.world.ui.events.slice(mark).filter((e) => e.type === 'toast').length, 0);
  });
});

describe('menu actions', () => {
  test('要確認を開く refreshes 要確認, says how many, and each 行 links to its 台帳 row', () => {
    const w = approved();
    const review = w.ledger().filter((r) => r.状態 === '要確認').length;
    assert.ok(review > 0);
    const mark = w.emu.world.ui.events.length;
    const r = w.run('openReview');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const toast = w.emu.world.ui.events.slice(mark).find((e) => e.type === 'toast');
    assert.match(String(toast?.message), new RegExp(`確認が必要な行が ${review} 件`));
    const sheets = w.emu.world.spreadsheet.sheets;
    const ledger = sheets.find((s) => s.name === '台帳');
    const sheet = sheets.find((s) => s.name === '要確認');
    assert.ok(ledger && sheet);
    const column = (sheet.rows[0]?.v ?? []).indexOf('行') + 1;
    const formula = sheet.meta(2, column)?.formula ?? '';
    assert.match(formula, new RegExp(`^=HYPERLINK\\("#gid=${ledger.id}&range=A\\d+","台帳 \\d+ 行目"\\)$`));
    const shown = records(w.emu, '要確認');
    assert.ok(shown.every((row) => /^台帳 \d+ 行目$/.test(String(row.行))));
  });

  test('自動実行の設定 switches 自動実行 after a yes, keeps it after a no, and logs it', () => {
    const w = kichoWorld();
    const value = () => records(w.emu, '設定').find((r) => r.項目 === '自動実行')?.値;
    assert.equal(value(), 'オフ');
    w.emu.world.ui.answers.push({ button: 'NO' });
    w.run('openAutoRun');
    assert.equal(value(), 'オフ');
    w.run('openAutoRun');
    assert.equal(value(), 'オン');
    assert.ok(
      records(w.emu, 'ログ').some((r) => String(r.メッセージ).includes('自動実行を「オン」にしました')),
    );
    const runs = w.emu.advance(20 * 60_000);
    assert.ok(runs.length > 0);
    assert.ok(w.ledger().length > 0, 'the scheduled run now imports');
  });

  test('ヘルプ shows the steps and every 状態', () => {
    const w = kichoWorld();
    const mark = w.emu.world.ui.events.length;
    w.run('openHelp');
    const dialog = w.emu.world.ui.events.slice(mark).find((e) => e.type === 'modal');
    assert.ok(dialog?.html);
    for (const state of ['未判定', '要確認', '送信待ち', '送信中', '完了', '不明', '失敗', '除外']) {
      assert.ok(dialog.html.includes(state), state);
    }
  });
});

describe('ログ', () => {
  test('newest first, failed runs highlighted by a whole-row rule, and at most 5,000 lines kept', () => {
    const w = kichoWorld();
    w.run('importTransactions');
    w.emu.world.properties.script.delete('MF_API_KEY');
    w.run('postApproved');
    const log = records(w.emu, 'ログ');
    assert.equal(log[0].処理, '登録の実行', 'the newest line is first');
    assert.equal(log[0].結果, '失敗');
    assert.equal(log[1].処理, '明細の取込');
    const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === 'ログ');
    assert.ok(sheet);
    const rule = sheet.conditionalFormats.find((r) => r.condition.type === 'CUSTOM_FORMULA');
    assert.deepEqual(rule?.condition.values, ['=$E2="失敗"']);
    assert.equal(rule?.ranges[0].r, 2);

    // A full ログ: one more run drops the oldest line, never the header or the newest.
    const header = sheet.rows[0];
    const filler = Array.from({ length: 5_000 }, (_, i) => i);
    sheet.maxRows = Math.max(sheet.maxRows, 5_001); // as when rows were added to hold them
    for (const i of filler) sheet.setValue(i + 2, 4, `古い実行 ${i}`);
    w.run('reconcile');
    const after = records(w.emu, 'ログ');
    assert.equal(after.length, 5_000);
    assert.equal(after[0].処理, '照合');
    assert.equal(sheet.rows[0], header);
    assert.equal(after.at(-1)?.処理, '古い実行 4998');
  });
});

describe('backups', () => {
  test('setup installs one daily backupLedger trigger; a day’s copy is a hidden sheet; only the newest N are kept', () => {
    const w = kichoWorld();
    w.run('setup');
    const daily = w.emu.world.triggers.visibleTo(OWNER).filter((t) => t.handler === 'backupLedger');
    assert.equal(daily.length, 1, 'one, even after setup ran twice');
    assert.equal(daily[0].schedule?.atHour, 3);
    w.setSetting('バックアップ世代数', '2');
    w.run('importTransactions');
    const rows = w.ledger().length;
    const names = () =>
      w.emu.world.spreadsheet.sheets.map((s) => s.name).filter((n) => n.startsWith('台帳バックアップ '));
    for (let day = 0; day < 4; day++) {
      const r = w.run('backupLedger', { kind: 'trigger', args: [{ triggerUid: daily[0].id }] });
      assert.equal(r.status, 'ok', JSON.stringify(r.error));
      w.run('backupLedger', { kind: 'trigger', args: [{ triggerUid: daily[0].id }] }); // twice a day: no second copy
      w.emu.world.clock.advance(24 * 60 * 60_000);
    }
    assert.deepEqual(names(), ['台帳バックアップ 2026-12-02', '台帳バックアップ 2026-12-03']);
    const copy = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳バックアップ 2026-12-03');
    assert.ok(copy);
    assert.equal(copy.props.hidden, true);
    assert.equal(records(w.emu, '台帳バックアップ 2026-12-03').length, rows);
    const log = records(w.emu, 'ログ').filter((r) => r.処理 === '台帳のバックアップ');
    assert.ok(log.some((r) => String(r.メッセージ).includes('古いバックアップを 1 件削除しました')));
  });

  test('0 generations: no backup', () => {
    const w = kichoWorld();
    w.setSetting('バックアップ世代数', '0');
    const r = w.run('backupLedger');
    assert.match(JSON.stringify(r.value), /バックアップしませんでした/);
    assert.ok(!w.emu.world.spreadsheet.sheets.some((s) => s.name.startsWith('台帳バックアップ')));
  });
});
