/**
 * 残高照合 keeps what people type (issue 25, items 4 and 5), on the built bundle as a person would do it:
 * odd 通帳残高 values typed into the sheet (Sheets reads them as typed: lib/coerce.ts), the 通帳残高 header
 * renamed, rows sorted by hand, a column of one's own, a new month, a CSV with balances — and 残高照合 run
 * again after each. Nothing typed is erased, moved to another row or turned into a formula; what cannot be
 * read is named by its cell with what to type instead.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { records, typeInto } from '../../sim/person';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld } from '../helpers/kicho';

const BANK = '三井住友銀行 代表口座 普通 1234567';
const YUCHO = 'ゆうちょ銀行';
const CARD = '三井住友カード';
const SHIBUYA = '三井住友銀行 渋谷支店 普通 7654321';
const CASH = '手入力（現金出納帳）';
const SOURCE = '○○信用金庫';

const CSV = [
  '日付,摘要,出金,入金,残高',
  '2026/04/01,ｶｲｾﾂ,,300000,300000',
  '2026/04/10,ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ,3280,,296720',
  '2026/05/12,ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ,1100,,295620',
  '',
].join('\n');

type Value = ReturnType<ReturnType<typeof sheetOf>['value']>;

function ok(w: KichoWorld, name: string, args?: unknown[]) {
  const r = w.run(name, { args });
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  assert.deepEqual(r.internalErrors, []);
  return r.value as { ok: boolean; count: number; messages: string[] } & Record<string, unknown>;
}

function sheetOf(w: KichoWorld, name = '残高照合') {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === name);
  assert.ok(s, name);
  return s;
}

function column(w: KichoWorld, header: string, name = '残高照合'): number {
  const s = sheetOf(w, name);
  for (let c = 1; c <= s.lastColumn(); c++) if (s.value(1, c) === header) return c;
  throw new Error(`no header ${header}`);
}

function rowOf(w: KichoWorld, account: string, monthEnd: string): number {
  const s = sheetOf(w);
  const [a, m] = [column(w, '口座'), column(w, '月末')];
  for (let r = 2; r <= s.lastRow(); r++)
    if (s.value(r, a) === account && s.value(r, m) === monthEnd) return r;
  throw new Error(`no row ${account} ${monthEnd}`);
}

function record(w: KichoWorld, account: string, monthEnd: string): Record<string, unknown> {
  const found = records(w.emu.world, '残高照合').find((r) => r.口座 === account && r.月末 === monthEnd);
  assert.ok(found, `${account} ${monthEnd}`);
  return found;
}

/** Types into 通帳残高 of the row (口座, 月末), wherever the column and the row are now. */
function typeBalance(w: KichoWorld, account: string, monthEnd: string, text: string): void {
  typeInto(w.emu.world, '残高照合', rowOf(w, account, monthEnd), column(w, '通帳残高'), text);
}

/** Every cell of the sheet with its formula, to compare before and after a run. */
function snapshot(w: KichoWorld, name = '残高照合'): [Value, string | undefined][][] {
  const s = sheetOf(w, name);
  const out: [Value, string | undefined][][] = [];
  for (let r = 1; r <= s.lastRow(); r++) {
    const line: [Value, string | undefined][] = [];
    for (let c = 1; c <= s.lastColumn(); c++) line.push([s.value(r, c), s.meta(r, c)?.formula]);
    out.push(line);
  }
  return out;
}

function world(): KichoWorld {
  const w = kichoWorld({ window: ['2026-04-01', '2026-06-30'] });
  w.addRules(EXAMPLE_RULES);
  const sources = sheetOf(w, '取込元');
  sources.setValue(2, 1, SOURCE);
  sources.setValue(2, 2, '普通預金');
  ok(w, 'importTransactions');
  assert.equal(ok(w, 'checkBalances').ok, true);
  return w;
}

const mfOf = (w: KichoWorld, account: string, monthEnd: string) =>
  Number(record(w, account, monthEnd).MFの残高);

describe('通帳残高 typed in odd ways', () => {
  // What a person types, what the cell then holds (Sheets' own reading), and what kicho makes of it.
  const TYPED: {
    account: string;
    monthEnd: string;
    text: string;
    held: Value;
    amount?: number;
    why?: RegExp;
  }[] = [
    { account: YUCHO, monthEnd: '2026-04-30', text: '約120万円', held: '約120万円', why: /概数/ },
    // Sheets makes a number of it; the '#,##0' format kicho gave the cell would show 1,235.
    { account: YUCHO, monthEnd: '2026-05-31', text: '1234.5', held: 1234.5, why: /円未満の端数/ },
    { account: YUCHO, monthEnd: '2026-06-30', text: '(1,000)', held: '(1,000)', why: /かっこ書き/ },
    { account: CARD, monthEnd: '2026-04-30', text: "'=1+1", held: '=1+1', why: /数式ではなく/ },
    { account: CARD, monthEnd: '2026-05-31', text: '1,2345', held: '1,2345', why: /3 桁ごと/ },
    {
      account: BANK,
      monthEnd: '2026-04-30',
      text: '１，９９９，７８０',
      held: '１，９９９，７８０',
      amount: 1_999_780,
    },
    { account: BANK, monthEnd: '2026-05-31', text: '¥2,131,000', held: 2_131_000, amount: 2_131_000 },
    { account: BANK, monthEnd: '2026-06-30', text: '2,241,780円', held: '2,241,780円', amount: 2_241_780 },
    { account: CASH, monthEnd: '2026-04-30', text: '△5,000', held: '△5,000', amount: -5_000 },
    { account: CASH, monthEnd: '2026-05-31', text: '-5,000', held: -5_000, amount: -5_000 },
    // A formula a person wrote stays a formula: kicho reads its result and never writes the cell.
    { account: SHIBUYA, monthEnd: '2026-04-30', text: '=1000+234', held: 1_234, amount: 1_234 },
  ];

  test('stay exactly as typed over runs; unreadable ones are named by cell with what to type, the rest compared', () => {
    const w = world();
    for (const t of TYPED) typeBalance(w, t.account, t.monthEnd, t.text);
    const typedColumn = column(w, '通帳残高');
    for (let run = 1; run <= 2; run++) {
      const r = ok(w, 'checkBalances');
      assert.equal(r.ok, true, r.messages.join('\n'));
      assert.equal(r.unreadable, TYPED.filter((t) => t.why).length);
      const text = r.messages.join('\n');
      for (const t of TYPED) {
        const row = rowOf(w, t.account, t.monthEnd);
        const s = sheetOf(w);
        assert.deepEqual(s.value(row, typedColumn), t.held, `run ${run}: ${t.text} is kept as typed`);
        assert.equal(s.meta(row, typedColumn)?.formula, t.text.startsWith('=') ? t.text : undefined);
        const rec = record(w, t.account, t.monthEnd);
        if (t.why) {
          assert.equal(rec.差額, '');
          assert.match(String(rec.説明), t.why);
          assert.match(String(rec.説明), /1,234,567 や ¥1,234,567/);
          const cell = `G${row}（${t.account}・${t.monthEnd}）: 通帳残高「${String(t.held)}」は読めない`;
          assert.ok(text.includes(cell), `run ${run}: the summary names ${cell}\n${text}`);
        } else {
          assert.equal(rec.差額, mfOf(w, t.account, t.monthEnd) - (t.amount as number), t.text);
          assert.doesNotMatch(text, new RegExp(`G${row}（`));
        }
      }
      assert.match(text, /入力はそのまま残しています/);
      // ログ says the same as the summary.
      assert.match(String(records(w.emu.world, 'ログ')[0].メッセージ), /通帳残高「約120万円」は読めない/);
    }
  });
});

describe('the 通帳残高 header renamed or cleared', () => {
  test('残高照合 and a CSV import with balances stop before reading or writing; 初期設定 puts it back over its column', () => {
    const w = world();
    typeBalance(w, BANK, '2026-04-30', '1,999,000');
    typeBalance(w, YUCHO, '2026-05-31', '約50万');
    const g = column(w, '通帳残高');
    sheetOf(w).setValue(1, g, '通帳残高（手入力）');
    const before = snapshot(w);
    const ledgerRows = w.ledger().length;

    const r = ok(w, 'checkBalances');
    assert.equal(r.ok, false);
    assert.match(r.messages.join('\n'), /シート「残高照合」の見出し「通帳残高」が見つかりません.*初期設定/);
    assert.deepEqual(snapshot(w), before, 'nothing on the sheet changed');
    assert.equal(records(w.emu.world, 'ログ')[0].結果, '失敗');

    const csv = ok(w, 'importCsv', [CSV, SOURCE]);
    assert.equal(csv.ok, false);
    assert.match(csv.messages.join('\n'), /見出し「通帳残高」が見つかりません/);
    assert.equal(w.ledger().length, ledgerRows, 'the CSV import wrote nothing either');
    assert.deepEqual(snapshot(w), before);

    const setup = ok(w, 'setup');
    assert.match(
      setup.messages.join('\n'),
      /シート「残高照合」の G 列の見出し「通帳残高（手入力）」を「通帳残高」に戻しました/,
    );
    assert.equal(sheetOf(w).value(1, g), '通帳残高');
    const headers = Array.from({ length: sheetOf(w).lastColumn() }, (_, i) => sheetOf(w).value(1, i + 1));
    assert.equal(headers.filter((h) => h === '通帳残高').length, 1, 'no second, empty 通帳残高 column');

    const again = ok(w, 'checkBalances');
    assert.equal(again.ok, true, again.messages.join('\n'));
    assert.equal(record(w, BANK, '2026-04-30').通帳残高, 1_999_000);
    assert.equal(record(w, BANK, '2026-04-30').差額, mfOf(w, BANK, '2026-04-30') - 1_999_000);
    assert.equal(record(w, YUCHO, '2026-05-31').通帳残高, '約50万');
    assert.ok(ok(w, 'importCsv', [CSV, SOURCE]).ok !== false);
    assert.equal(record(w, SOURCE, '2026-05-31').明細の残高, 295_620);
  });

  test('renamed while 残高照合 is asking MF: the read under its lock sees it and nothing is written', () => {
    const w = world();
    typeBalance(w, BANK, '2026-04-30', '1,999,000');
    const g = column(w, '通帳残高');
    const host = 'api-accounting.moneyforward.com';
    const mf = w.emu.world.fetch.handlerFor(host);
    assert.ok(mf);
    let renamed = false;
    w.emu.world.fetch.route(host, (req) => {
      // A person renames the header between the run's first check and its lock.
      if (!renamed && req.url.includes('/reports/trial_balance_bs')) {
        sheetOf(w).setValue(1, g, '通帳の残高');
        renamed = true;
      }
      return mf(req);
    });
    const before = snapshot(w);
    before[0][g - 1] = ['通帳の残高', undefined];
    const r = ok(w, 'checkBalances');
    assert.ok(renamed);
    assert.equal(r.ok, false);
    assert.match(r.messages.join('\n'), /見出し「通帳残高」が見つかりません/);
    assert.deepEqual(snapshot(w), before);
  });

  test('a header cleared: the run stops, 初期設定 writes it back over the same column', () => {
    const w = world();
    typeBalance(w, CARD, '2026-06-30', '40,000');
    const g = column(w, '通帳残高');
    sheetOf(w).setValue(1, g, '');
    const before = snapshot(w);
    const r = ok(w, 'checkBalances');
    assert.equal(r.ok, false);
    assert.match(r.messages.join('\n'), /見出し「通帳残高」が見つかりません/);
    assert.deepEqual(snapshot(w), before);
    ok(w, 'setup');
    assert.equal(sheetOf(w).value(1, g), '通帳残高');
    assert.equal(ok(w, 'checkBalances').ok, true);
    assert.equal(record(w, CARD, '2026-06-30').差額, mfOf(w, CARD, '2026-06-30') - 40_000);
  });
});

describe('rows added and reordered', () => {
  test("a person's sort, a column of their own, a new month and a new source: every typed value stays on its row", () => {
    const w = world();
    const typed = new Map<string, string>([
      [`${BANK}|2026-04-30`, '2,000,000'],
      [`${YUCHO}|2026-05-31`, '約50万'],
      [`${CARD}|2026-06-30`, '△100'],
      [`${CASH}|2026-04-30`, '=2*3'],
    ]);
    for (const [k, v] of typed) {
      const [account, monthEnd] = k.split('|');
      typeBalance(w, account, monthEnd, v);
    }
    const held = new Map<string, [Value, string | undefined]>();
    for (const k of typed.keys()) {
      const [account, monthEnd] = k.split('|');
      const row = rowOf(w, account, monthEnd);
      held.set(k, [sheetOf(w).value(row, 7), sheetOf(w).meta(row, 7)?.formula]);
    }
    // A column of the person's own right after 説明, with a note on two rows.
    const s = sheetOf(w);
    const memo = column(w, '説明') + 1;
    s.setValue(1, memo, 'メモ');
    s.setValue(rowOf(w, BANK, '2026-04-30'), memo, '通帳を確認済み');
    s.setValue(rowOf(w, CARD, '2026-06-30'), memo, 'カード会社に問い合わせ中');
    // A note with no header two columns further, where the chart's block would otherwise start.
    s.setValue(3, memo + 2, '6月分は来週');
    // The person's own chart and number format.
    s.charts.push({
      id: 9001,
      type: 'LINE',
      ranges: [{ sh: s.id, r: 1, c: 5, h: 10, w: 1 }],
      position: { row: 30, column: 1, offsetX: 0, offsetY: 0 },
      options: { title: 'MFの残高の推移' },
    });
    s.updateMeta(rowOf(w, BANK, '2026-04-30'), 7, { numberFormat: '"¥"#,##0' });
    // The person sorts the table (A2:J, by 口座 descending): whole rows of the table move, the chart's
    // block to the right stays where it is, as Sheets' Range.sort does.
    const width = memo;
    const last = s.lastRow();
    const rows = Array.from({ length: last - 1 }, (_, i) =>
      Array.from({ length: width }, (_, c) => ({ v: s.value(i + 2, c + 1), m: s.meta(i + 2, c + 1) })),
    ).filter((r) => r[0].v !== '');
    rows.sort((a, b) => String(b[0].v).localeCompare(String(a[0].v), 'ja'));
    for (const [i, line] of rows.entries()) {
      for (const [c, cell] of line.entries()) {
        s.setValue(i + 2, c + 1, cell.v);
        s.updateMeta(i + 2, c + 1, { formula: cell.m?.formula, numberFormat: cell.m?.numberFormat });
      }
    }
    // A new month end comes into the window, and a CSV source with balances appears.
    w.setSetting('取込終了日', '2026-07-31');
    ok(w, 'importCsv', [CSV, SOURCE]);
    const r = ok(w, 'checkBalances');
    assert.equal(r.ok, true, r.messages.join('\n'));

    for (const [k, [value, formula]] of held) {
      const [account, monthEnd] = k.split('|');
      const row = rowOf(w, account, monthEnd);
      assert.deepEqual(sheetOf(w).value(row, 7), value, k);
      assert.equal(sheetOf(w).meta(row, 7)?.formula, formula, k);
    }
    assert.equal(sheetOf(w).value(rowOf(w, BANK, '2026-04-30'), memo), '通帳を確認済み');
    assert.equal(sheetOf(w).value(rowOf(w, CARD, '2026-06-30'), memo), 'カード会社に問い合わせ中');
    assert.equal(record(w, BANK, '2026-04-30').差額, mfOf(w, BANK, '2026-04-30') - 2_000_000);
    assert.equal(record(w, CASH, '2026-04-30').差額, mfOf(w, CASH, '2026-04-30') - 6);
    assert.equal(record(w, CARD, '2026-06-30').差額, mfOf(w, CARD, '2026-06-30') + 100);
    // The new rows are there once each, with nothing typed for them.
    const all = records(w.emu.world, '残高照合');
    for (const a of [BANK, YUCHO, CARD, SHIBUYA, CASH, SOURCE]) {
      assert.equal(all.filter((x) => x.口座 === a && x.月末 === '2026-07-31').length, 1, a);
    }
    assert.equal(record(w, SOURCE, '2026-05-31').明細の残高, 295_620);
    assert.equal(record(w, BANK, '2026-07-31').通帳残高, '');
    // The chart's block did not land on the person's columns; their chart and format stay.
    assert.equal(sheetOf(w).value(3, memo + 2), '6月分は来週');
    const ours = sheetOf(w).charts.filter((c) => c.options.title !== 'MFの残高の推移');
    assert.equal(ours.length, 1);
    const block = ours[0].ranges[0];
    assert.ok(block.c > memo + 2, `block at column ${block.c}, the note at ${memo + 2}`);
    assert.equal(sheetOf(w).value(1, block.c), '月末（差額のグラフ）');
    assert.ok(sheetOf(w).charts.some((c) => c.id === 9001));
    assert.equal(sheetOf(w).meta(rowOf(w, BANK, '2026-04-30'), 7)?.numberFormat, '"¥"#,##0');
  });

  test('a row copied by hand: compared once, the copy says so, and neither loses what was typed', () => {
    const w = world();
    typeBalance(w, BANK, '2026-05-31', '2,100,000');
    const s = sheetOf(w);
    const from = rowOf(w, BANK, '2026-05-31');
    const to = s.lastRow() + 1;
    for (let c = 1; c <= 9; c++) s.setValue(to, c, s.value(from, c));
    s.setValue(to, 7, '2,222,222');
    const r = ok(w, 'checkBalances');
    assert.match(r.messages.join('\n'), new RegExp(`${to} 行目は ${from} 行目と同じ口座・月末です`));
    assert.equal(s.value(from, 7), 2_100_000);
    assert.equal(s.value(to, 7), '2,222,222');
    assert.equal(s.value(from, 8), mfOf(w, BANK, '2026-05-31') - 2_100_000);
    assert.match(String(s.value(to, 9)), new RegExp(`${from} 行目と同じ口座・月末です`));
  });
});
