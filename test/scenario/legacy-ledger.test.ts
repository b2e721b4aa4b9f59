/**
 * A 台帳 written by the previous version (test/fixtures/kicho-daf53d4: '@' on キー, 明細ID, 摘要, MF仕訳ID,
 * 指紋, 取引日 and an apostrophe before every string), in every Sheets world: the current bundle deployed
 * over it keeps working before 初期設定 (keys read past the apostrophes, nothing posted), and 初期設定
 * repairs it once, logged; then it imports, classifies and posts like a new one.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SHEETS_WORLDS, sheetsOptions } from '../../sim/gas/switches';
import { remoteTagOf } from '../../src/core/keys';
import { DIST, previousBundleDir } from '../helpers/emulator';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld, records } from '../helpers/kicho';

const WINDOW: [string, string] = ['2026-01-01', '2026-02-28'];
/** A description that really begins with an apostrophe (an abbreviated year). */
const QUOTED = "'24年度 会費";
const CSV = ['日付,摘要,出金,入金', `2026/02/10,${QUOTED},"3,000",`, '2026/02/11,ｺﾋﾟｰﾖｳｼ,550,'].join('\r\n');
const TEXT_HEADERS = ['キー', '明細ID', '摘要', 'MF仕訳ID', '指紋', '取引日'];

function ok<T = Record<string, unknown>>(r: { status: string; value?: unknown; error?: unknown }): T {
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  return r.value as T;
}

function ledgerSheet(w: KichoWorld) {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === '台帳');
  assert.ok(s);
  return s;
}

function column(w: KichoWorld, header: string): number {
  const s = ledgerSheet(w);
  for (let c = 1; c <= s.lastColumn(); c++) if (s.value(1, c) === header) return c;
  throw new Error(header);
}

const PAPER_RULE = {
  優先度: 5,
  一致方法: '部分一致',
  キーワード: 'コピーヨウシ',
  勘定科目: '消耗品費',
  税区分: '課税仕入 10%',
  自動承認: 'はい',
  有効: true,
};

/** What the previous version left: set up, the MF lines imported and classified, then a CSV imported. */
function previousVersionLedger(world: (typeof SHEETS_WORLDS)[number]): KichoWorld {
  const w = kichoWorld({ window: WINDOW }, { bundleDir: previousBundleDir(), ...sheetsOptions(world) });
  w.mf.addTransactions([{ date: '2026-02-03', value: 12_000, side: 'EXPENSE', content: QUOTED }]);
  w.addRules([...EXAMPLE_RULES, PAPER_RULE]);
  ok(w.run('importTransactions'));
  ok(w.run('classifyPending'));
  ok(w.run('importCsv', { args: [CSV, '○○銀行'] }));
  return w;
}

describe('a 台帳 written by the previous version', () => {
  for (const world of SHEETS_WORLDS) {
    test(`${world.name}: keeps working before 初期設定, is repaired by it once (logged), then posts once`, () => {
      const w = previousVersionLedger(world);
      const sheet = ledgerSheet(w);
      const keyCol = column(w, 'キー');
      assert.equal(
        sheet.meta(2, keyCol)?.numberFormat,
        '@',
        'the previous version formatted keys as plain text',
      );
      const rowsBefore = sheet.lastRow();
      if (world.plainTextApostrophe === 'kept') {
        assert.ok(String(sheet.value(2, keyCol)).startsWith("'"), 'its keys carry the apostrophe here');
      }

      w.emu.deploy(DIST);
      // Before 初期設定: the keys read past the apostrophes, so nothing is imported twice…
      assert.equal(ok<{ added: number }>(w.run('importTransactions')).added, 0);
      assert.equal(ok<{ added: number }>(w.run('importCsv', { args: [CSV, '○○銀行'] })).added, 0);
      assert.equal(sheet.lastRow(), rowsBefore);
      // …and nothing is posted until 初期設定 has looked at the text.
      const refused = ok<{ ok: boolean; messages: string[] }>(w.run('postApproved'));
      assert.equal(refused.ok, false);
      assert.match(refused.messages.join(' '), /初期設定.*を一度実行してください/);
      assert.equal(w.mf.journals().filter((j) => j.tags.some((t) => t.startsWith('kc-'))).length, 0);
      // A person approves a line meanwhile: the row is written back (the old cells left as they are,
      // so that 初期設定 still finds and repairs them).
      const pending = w.ledger().find((r) => r.状態 === '要確認' && String(r.キー).includes('mf:'));
      assert.ok(pending);
      w.edit(String(pending.キー), '勘定科目', '消耗品費');
      w.edit(String(pending.キー), '操作', '承認');
      ok(w.run('classifyPending'));
      const approved = w.ledger().find((r) => r.明細ID === pending.明細ID);
      assert.equal(approved?.状態, '送信待ち');
      // The CSV lines are classified by this version: a rule's decision rewrites their row, 摘要 too.
      const paper = w.ledger().find((r) => String(r.摘要).includes('ｺﾋﾟｰﾖｳｼ'));
      assert.equal(paper?.勘定科目, '消耗品費');

      const setup = ok<{ messages: string[] }>(w.run('setup'));
      const said = setup.messages.join(' ');
      assert.match(said, /書式「書式なしテキスト」.*を「自動」に戻しました/);
      if (world.plainTextApostrophe === 'kept') assert.match(said, /「'」を \d+ か所で外しました/);
      else assert.doesNotMatch(said, /か所で外しました/);
      const log = records(w.emu, 'ログ').map((r) => String(r.メッセージ));
      assert.ok(
        log.some((m) => m.includes('書式なしテキスト')),
        'the repair is in ログ',
      );
      for (const h of TEXT_HEADERS) {
        for (let r = 2; r <= sheet.lastRow(); r++) {
          assert.equal(sheet.meta(r, column(w, h))?.numberFormat, undefined, `${h} row ${r}`);
        }
      }

      // Every value reads as the previous version meant it.
      const ledger = w.ledger();
      const content = new Map(w.mf.transactions().map((t) => [t.id, t.content ?? '']));
      for (const row of ledger) {
        for (const h of ['キー', '状態', '取引日', '明細ID', '指紋', 'MF仕訳ID']) {
          assert.ok(!String(row[h]).startsWith("'"), `${h} ${row[h]}`);
        }
        if (!String(row.キー).startsWith('mf:')) continue;
        const expected = content.get(String(row.明細ID));
        // An MF description that really began with an apostrophe cannot be told from the ones the
        // previous version added where Sheets kept them (the summary says so); everything else is exact.
        if (expected === QUOTED && world.plainTextApostrophe === 'kept')
          assert.equal(row.摘要, QUOTED.slice(1));
        else assert.equal(row.摘要, expected, String(row.キー));
      }
      // A CSV description keeps its own apostrophe in every world: its key says it had one.
      const csv = ledger.filter((r) => String(r.キー).startsWith('csv:'));
      assert.deepEqual(csv.map((r) => r.摘要).sort(), [QUOTED, 'ｺﾋﾟｰﾖｳｼ'].sort());

      // Nothing is imported twice, and a second 初期設定 has nothing left to repair.
      assert.equal(ok<{ added: number }>(w.run('importTransactions')).added, 0);
      assert.equal(ok<{ added: number }>(w.run('importCsv', { args: [CSV, '○○銀行'] })).added, 0);
      assert.doesNotMatch(ok<{ messages: string[] }>(w.run('setup')).messages.join(' '), /書式なしテキスト/);

      // Posting works as on a new 台帳: the approved lines once each, CSV lines included, and no second time.
      for (const r of csv) {
        w.edit(String(r.キー), '勘定科目', '支払手数料');
        w.edit(String(r.キー), '操作', '承認');
      }
      const waiting = w.ledger().filter((r) => r.状態 === '送信待ち' || r.操作 === '承認');
      assert.ok(waiting.length >= 3, `${waiting.length} rows to post`);
      const posted = ok<{ posted: number }>(w.run('postApproved'));
      assert.equal(posted.posted, waiting.length);
      assert.equal(ok<{ posted: number }>(w.run('postApproved')).posted, 0);
      for (const r of waiting) {
        const journals = w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(String(r.キー))));
        assert.equal(journals.length, 1, String(r.キー));
      }
      const quotedCsv = csv.find((r) => r.摘要 === QUOTED);
      assert.ok(quotedCsv);
      const journal = w.mf.journals().find((j) => j.tags.includes(remoteTagOf(String(quotedCsv.キー))));
      assert.equal(journal?.branches[0]?.remark, QUOTED);
      assert.ok(
        w.ledger().every((r) => r.状態 !== '要確認' || !String(r.メモ).includes('キー')),
        'no key reported malformed',
      );
    });
  }
});
