/**
 * The import window's dates and the 設定 sheet's 説明 (issue 25), on the built bundle: a 取込開始日 from
 * the wrong century is refused by every run that uses the window, naming the cell, instead of 7,590 rows
 * on 残高照合 or an internal-looking failure; 残高照合 starts at MF's first accounting period; the 設定
 * sheet says beside each value what may be typed, and 初期設定 keeps what people typed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { records, typeInto } from '../../sim/person';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

function ok(w: KichoWorld, name: string) {
  const r = w.run(name);
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  assert.deepEqual(r.internalErrors, []);
  return r.value as { ok: boolean; count: number; messages: string[] } & Record<string, unknown>;
}

function settings(w: KichoWorld) {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === '設定');
  assert.ok(s);
  return s;
}

function settingsRow(w: KichoWorld, item: string): number {
  const s = settings(w);
  for (let r = 2; r <= s.lastRow(); r++) if (s.value(r, 1) === item) return r;
  throw new Error(item);
}

describe('取込開始日 / 取込終了日 outside 2000–2099', () => {
  for (const typed of ['1900-01-01', '0001-01-01']) {
    test(`取込開始日 ${typed} typed: every run that uses the window names the cell and reads or writes nothing`, () => {
      const w = kichoWorld({ window: ['2026-04-01', '2026-06-30'] });
      const row = settingsRow(w, '取込開始日');
      typeInto(w.emu.world, '設定', row, 2, typed);
      const named = new RegExp(
        `設定 B${row} 取込開始日: 「${typed}」は使えません。2000-01-01〜2099-12-31 の日付`,
      );
      for (const name of ['importTransactions', 'checkBalances', 'auditDuplicates', 'restoreLedgerFromMf']) {
        const r = ok(w, name);
        assert.equal(r.ok, false, name);
        assert.match(r.messages.join('\n'), named, name);
        assert.doesNotMatch(r.messages.join('\n'), /yyyy-MM-dd|に失敗しました/, name);
      }
      assert.equal(w.ledger().length, 0, 'nothing imported');
      assert.equal(records(w.emu.world, '残高照合').length, 0, 'no 残高照合 rows');
      // Runs that use the window only on the side say the same line instead of using a default.
      const dry = ok(w, 'dryRun');
      assert.equal(dry.messages.filter((m) => named.test(m)).length, 1, dry.messages.join('\n'));
      ok(w, 'selfTest');
      const periods = records(w.emu.world, '自己診断').find((x) => x.項目 === 'MF: 会計期間');
      assert.equal(periods?.結果, '注意');
      assert.match(String(periods?.詳細), named);
      typeInto(w.emu.world, '設定', row, 2, '2026-04-01');
      assert.equal(ok(w, 'importTransactions').ok, true);
    });
  }

  test('取込終了日 2206-03-31 (a slip for 2026): refused the same way', () => {
    const w = kichoWorld({ window: ['2026-04-01', '2026-06-30'] });
    w.setSetting('取込終了日', '2206-03-31');
    const r = ok(w, 'importTransactions');
    assert.equal(r.ok, false);
    assert.match(
      r.messages.join('\n'),
      new RegExp(`設定 B${settingsRow(w, '取込終了日')} 取込終了日: 「2206-03-31」は使えません`),
    );
  });

  test('残高照合 starts at MF’s first accounting period and says so, naming the cell', () => {
    // The fake MF's periods begin 2025-04-01 (sim/mf/seed-catalog.ts).
    const w = kichoWorld({ window: ['2024-01-01', '2026-06-30'] });
    w.mf.requestLog.length = 0;
    const r = ok(w, 'checkBalances');
    assert.equal(r.ok, true, r.messages.join('\n'));
    assert.match(
      r.messages.join('\n'),
      new RegExp(
        `取込開始日（設定 B${settingsRow(w, '取込開始日')}）2024-01-01 は MF の最初の会計期間（2025-04-01〜）より前です`,
      ),
    );
    assert.equal(r.months, 15);
    const months = new Set(records(w.emu.world, '残高照合').map((x) => x.月末));
    assert.equal(months.size, 15);
    assert.ok(![...months].some((m) => String(m) < '2025-04-30'));
    assert.equal(w.mf.requestLog.filter((e) => e.path === '/api/v3/reports/trial_balance_bs').length, 15);
  });
});

describe('the 設定 sheet says what may be typed', () => {
  test('説明 beside every item (range and default); 初期設定 adds it to an older sheet and keeps people’s values', () => {
    const w = kichoWorld();
    const s = settings(w);
    assert.equal(s.value(1, 3), '説明');
    const note = (item: string) => String(s.value(settingsRow(w, item), 3));
    assert.match(note('1回の送信上限'), /1〜1000 の整数。空なら 200/);
    assert.match(note('取込開始日'), /2000-01-01〜2099-12-31/);
    assert.match(note('照合間隔（分）'), /5 \/ 10 \/ 15 \/ 30/);
    assert.match(note('アーカイブまでの月数'), /0〜120 の整数。空ならアーカイブしない/);

    // An older 設定 with two columns only, people's values, and an item of their own with a note beside it.
    const limit = settingsRow(w, '1回の送信上限');
    for (let r = 1; r <= s.lastRow(); r++) s.setValue(r, 3, '');
    typeInto(w.emu.world, '設定', limit, 2, '500');
    const extra = s.lastRow() + 1;
    s.setValue(extra, 1, '自分のメモ');
    s.setValue(extra, 2, 'そのまま');
    s.setValue(extra, 3, '自分で書いた説明');
    // Runs do not need the column.
    assert.equal(ok(w, 'dryRun').ok, true);
    ok(w, 'setup');
    const headers = () => Array.from({ length: s.lastColumn() }, (_, i) => s.value(1, i + 1));
    // Column C holds the person's note under no header: 説明 goes after it, not over it.
    const c = headers().indexOf('説明') + 1;
    assert.equal(c, 4);
    assert.equal(s.value(limit, 2), 500);
    assert.match(String(s.value(limit, c)), /1〜1000 の整数/);
    assert.equal(s.value(extra, 2), 'そのまま');
    assert.equal(s.value(extra, 3), '自分で書いた説明');
    assert.equal(s.value(extra, c), '');
    s.setValue(extra, c, 'これも自分の');
    ok(w, 'setup');
    assert.equal(headers().filter((h) => h === '説明').length, 1, 'a second 初期設定 adds no second column');
    assert.equal(s.value(extra, c), 'これも自分の', 'a row kicho does not know keeps its 説明');
  });
});
