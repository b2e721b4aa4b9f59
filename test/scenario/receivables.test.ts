/**
 * 売掛金チェック on the built bundle against the fake MF's receivables book (sim/mf/seed-receivables.ts).
 * Expected figures are worked out by hand below from that book, as of 2026-11-30 (the world's clock),
 * 回収期限 60 days and 振込手数料上限 880 yen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { records } from '../../sim/person';
import { RECEIVABLE_SECTIONS } from '../../src/core/receivables-sheet';
import { RECEIVABLE_HEADERS } from '../../src/core/schema';
import { kichoWorld, OWNER } from '../helpers/kicho';

const YAMADA = '株式会社山田商事';
const SATO = '有限会社佐藤工業';
const FUKUOKA = '株式会社福岡不動産';
const NONE = '（取引先なし）';
const SUZUKI = '合同会社鈴木デザイン';

/** The sheet's rows, cut into its sections by their title rows. */
function sections(rows: Record<string, unknown>[]) {
  const titles = Object.values(RECEIVABLE_SECTIONS);
  const out: Record<string, Record<string, unknown>[]> = { open: [] };
  let current = 'open';
  for (const r of rows) {
    const first = String(r.取引先);
    if (titles.includes(first as (typeof titles)[number]) && first !== RECEIVABLE_SECTIONS.total) {
      current = first;
      out[current] = [];
      continue;
    }
    if (Object.values(r).every((v) => v === '')) continue;
    out[current].push(r);
  }
  return out;
}

function dateOf(v: unknown): string {
  if (v instanceof Date)
    return `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}`;
  return String(v);
}

describe('checkReceivables', () => {
  test('open items, fees, a return, odd data, totals per partner and bucket, overdue highlighted', () => {
    const w = kichoWorld({ receivables: true });
    w.mf.requestLog.length = 0;
    const r = w.run('checkReceivables');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const summary = r.value as {
      ok: boolean;
      count: number;
      overdue: number;
      balance: number;
      messages: string[];
    };
    assert.equal(summary.ok, true, summary.messages.join('\n'));

    // Hand-computed:
    //  山田商事: 7/31 330,000 ← 8/31 329,120 (fee 880); 8/31 110,000 + 9/30 220,000 ← 10/30 329,340 (fee 660);
    //            10/31 55,000 less a 5,500 return on 11/10 → 49,500 open, 30 days, 〜30日, 一部回収.
    //  佐藤工業: 8/20 132,000 ← 9/25 66,000 + 10/26 65,560 (fee 440); 9/15 88,000 open, 76 days → 期日超過.
    //  no partner: 6/15 44,000, 168 days → 90日超, 期日超過.  福岡不動産: 20,000 received, nothing billed.
    //  鈴木デザイン: 11/5 and 11/12, 33,000 each, 25 and 18 days, 未回収.
    assert.equal(summary.count, 5);
    assert.equal(summary.overdue, 2);
    assert.equal(summary.balance, 49_500 + 88_000 + 44_000 - 20_000 + 66_000);
    assert.match(summary.messages[0], /未回収の売掛金 5 件、残高 227,500 円、うち期日超過 2 件/);

    const sheet = records(w.emu.world, '売掛金');
    const s = sections(sheet);
    const open = s.open.map((x) => [
      x.取引先,
      dateOf(x.発生日),
      x.金額,
      x.回収済,
      x.残高,
      x.経過日数,
      x.区分,
      x.状態,
      x['値引・返品'],
    ]);
    assert.deepEqual(open, [
      [NONE, '2026-06-15', 44_000, 0, 44_000, 168, '90日超', '期日超過', ''],
      [YAMADA, '2026-10-31', 55_000, 0, 49_500, 30, '〜30日', '一部回収', 5_500],
      [FUKUOKA, '2026-11-20', 0, 20_000, -20_000, '', '', '前受または誤り', ''],
      [SUZUKI, '2026-11-05', 33_000, 0, 33_000, 25, '〜30日', '未回収', ''],
      [SUZUKI, '2026-11-12', 33_000, 0, 33_000, 18, '〜30日', '未回収', ''],
      [SATO, '2026-09-15', 88_000, 0, 88_000, 76, '61〜90日', '期日超過', ''],
    ]);
    assert.match(String(s.open[0].説明), /取引先も補助科目もない/);
    assert.match(String(s.open[2].説明), /前受金か/);

    const partners = new Map(s[RECEIVABLE_SECTIONS.partners].map((p) => [p.取引先, p]));
    const yamada = partners.get(YAMADA);
    const sato = partners.get(SATO);
    assert.ok(yamada && sato);
    assert.equal(yamada.残高, 49_500);
    assert.equal(yamada.手数料差額, 880 + 660);
    assert.equal(yamada['値引・返品'], 5_500);
    assert.equal(sato.残高, 88_000);
    assert.equal(sato.手数料差額, 440);
    assert.equal(partners.get(NONE)?.残高, 44_000);
    assert.equal(partners.get(FUKUOKA)?.残高, -20_000);
    // Billed − collected − returns − fees = balance, for every partner and the 合計 row.
    for (const p of partners.values()) {
      assert.equal(
        Number(p.金額) - Number(p.回収済) - Number(p['値引・返品']) - Number(p.手数料差額),
        Number(p.残高),
        String(p.取引先),
      );
    }
    assert.equal(partners.get(RECEIVABLE_SECTIONS.total)?.残高, 227_500);
    // The seeded deposits of earlier months each meet their invoice: what they add to 山田商事's
    // billed and collected is the same amount, so the autumn figures show through.
    assert.equal(Number(yamada.金額) - 715_000, Number(yamada.回収済) - (329_120 + 329_340));
    assert.equal(Number(sato.金額) - 220_000, Number(sato.回収済) - (66_000 + 65_560));

    const buckets = s[RECEIVABLE_SECTIONS.buckets].map((b) => [b.区分, b.残高, b.状態]);
    assert.deepEqual(buckets, [
      ['〜30日', 49_500 + 66_000, '3 件'],
      ['31〜60日', 0, '0 件'],
      ['61〜90日', 88_000, '1 件'],
      ['90日超', 44_000, '1 件'],
    ]);

    const closed = s[RECEIVABLE_SECTIONS.closed];
    const feeRows = closed
      .filter((c) => c.手数料差額 !== '')
      .map((c) => [c.取引先, dateOf(c.発生日), c.手数料差額]);
    assert.deepEqual(feeRows, [
      [YAMADA, '2026-09-30', 660],
      [SATO, '2026-08-20', 440],
      [YAMADA, '2026-07-31', 880],
    ]);
    assert.ok(closed.every((c) => c.状態 === '回収済' && c.残高 === 0));

    // Header row is the contract; the overdue highlight keys on 状態.
    const model = w.emu.world.spreadsheet.sheets.find((x) => x.name === '売掛金');
    assert.ok(model);
    const header = Array.from({ length: RECEIVABLE_HEADERS.length }, (_, i) => model.value(1, i + 1));
    assert.deepEqual(header, [...RECEIVABLE_HEADERS]);
    assert.equal(model.conditionalFormats.length, 1);
    assert.match(String(model.conditionalFormats[0].condition.values[0]), /^=\$H2="期日超過"$/);
    // The aging chart plots the 区分 (G) and 残高 (E) cells of the four bucket rows.
    const bucketTitle = sheet.findIndex((x) => x.取引先 === RECEIVABLE_SECTIONS.buckets) + 2;
    assert.equal(model.charts.length, 1);
    assert.equal(model.charts[0].type, 'COLUMN');
    assert.deepEqual(
      model.charts[0].ranges.map((x) => [x.r, x.c, x.h, x.w]),
      [
        [bucketTitle + 1, 7, 4, 1],
        [bucketTitle + 1, 5, 4, 1],
      ],
    );
    assert.equal(model.value(bucketTitle + 1, 7), '〜30日');

    // MF calls: one journal listing per accounting period (both fit one page), none per partner.
    const journalCalls = w.mf.requestLog.filter((e) => e.path === '/api/v3/journals');
    assert.equal(journalCalls.length, 2);
    assert.ok(journalCalls.every((e) => /account_id=/.test(e.query)));

    // Run again: the sheet is rewritten, not appended to, and keeps one highlight rule.
    w.run('checkReceivables');
    assert.equal(records(w.emu.world, '売掛金').length, sheet.length);
    assert.equal(model.conditionalFormats.length, 1);
    assert.equal(model.charts.length, 1, 'the chart is replaced, not added');
    const log = records(w.emu.world, 'ログ');
    assert.equal(log.filter((l) => l.処理 === '売掛金チェック').length, 2);
  });

  test('an unknown 売掛金科目 is a clear message and the sheet is left alone', () => {
    const w = kichoWorld({ receivables: true });
    w.setSetting('売掛金科目', '未収入金X');
    const r = w.run('checkReceivables');
    const summary = r.value as { ok: boolean; messages: string[] };
    assert.equal(summary.ok, false);
    assert.match(summary.messages.join(), /売掛金科目「未収入金X」がMFの勘定科目/);
    assert.equal(records(w.emu.world, '売掛金').length, 0);
    assert.equal(records(w.emu.world, 'ログ')[0].結果, '失敗');
  });

  test('another 振込手数料上限 changes what counts as paid', () => {
    const w = kichoWorld({ receivables: true });
    w.setSetting('振込手数料上限', '500');
    const r = w.run('checkReceivables');
    const summary = r.value as { count: number; balance: number };
    // July's 880 shortfall stays open, so October's deposit pays it first (oldest first) and leaves
    // September 880 + 660 = 1,540 short; the 5,500 return on 11/10 then clears those 1,540 (oldest
    // first) and takes 3,960 off October. 佐藤工業's 440 still closes. Same balance, one yen-for-yen shift.
    assert.equal(summary.count, 5);
    assert.equal(summary.balance, 227_500 + 1_540);
    const october = records(w.emu.world, '売掛金').find(
      (x) => x.取引先 === YAMADA && x.金額 === 55_000 && x.状態 !== '回収済',
    );
    assert.equal(october?.残高, 51_040);
    assert.equal(october?.['値引・返品'], 3_960);
  });
});

/** An auto-approving rule for 山田商事's deposits: it decides before any suggestion. */
const YAMADA_RULE = {
  優先度: 1,
  一致方法: '部分一致',
  キーワード: 'ﾔﾏﾀﾞｼｮｳｼﾞ',
  入出金: '入金',
  勘定科目: '売掛金',
  取引先: YAMADA,
  自動承認: 'はい',
  有効: true,
};

describe('deposits meet receivables (判定)', () => {
  const byText = (rows: Record<string, unknown>[], text: string) => {
    const found = rows.find((r) => r.摘要 === text);
    assert.ok(found, text);
    return found;
  };

  test('an unmatched 入金 that settles an open invoice is suggested as 売掛金 for its 取引先, 要確認', () => {
    const w = kichoWorld({ receivables: true, window: ['2026-11-01', '2026-11-30'] });
    assert.equal(w.run('checkReceivables').status, 'ok');
    assert.equal((w.run('importTransactions').value as { ok: boolean }).ok, true);
    const r = w.run('classifyPending');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const rows = w.ledger();
    assert.equal(rows.length, 4);

    const sato = byText(rows, 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ');
    assert.deepEqual(
      [sato.状態, sato.勘定科目, sato.取引先, sato.判定元],
      ['要確認', '売掛金', SATO, '売掛金照合'],
    );
    assert.match(String(sato.判定根拠), /2026-09-15 発生の売掛金（残高 88,000円）.*差額 880円 は振込手数料/);

    const yamada = byText(rows, 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ');
    assert.deepEqual([yamada.状態, yamada.勘定科目, yamada.取引先], ['要確認', '売掛金', YAMADA]);
    assert.match(String(yamada.判定根拠), /2026-10-31 発生/);
    assert.doesNotMatch(String(yamada.判定根拠), /差額/);

    // Two 33,000 invoices: both shown, neither chosen.
    const suzuki = byText(rows, 'ﾌﾘｺﾐ ﾄﾞ)ｽｽﾞｷﾃﾞｻﾞｲﾝ');
    assert.equal(suzuki.状態, '要確認');
    assert.equal(suzuki.取引先, SUZUKI);
    assert.match(String(suzuki.判定根拠), /候補が 2 件.*2026-11-05.*2026-11-12/);
    assert.match(String(suzuki.メモ), /決めていません/);

    // Nothing open for 福岡不動産: an ordinary 要確認 with no suggestion.
    const fukuoka = byText(rows, 'ﾌﾘｺﾐ ｶ)ﾌｸｵｶﾌﾄﾞｳｻﾝ');
    assert.deepEqual([fukuoka.状態, fukuoka.勘定科目, fukuoka.判定元], ['要確認', '', '']);
  });

  test('a rule with 自動承認 still decides; nothing is suggested without a 売掛金チェック', () => {
    const w = kichoWorld({ receivables: true, window: ['2026-11-01', '2026-11-30'] });
    w.addRules([YAMADA_RULE]);
    w.run('importTransactions');
    w.run('classifyPending');
    let rows = w.ledger();
    assert.equal(byText(rows, 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ').状態, '送信待ち');
    assert.ok(
      rows.every((r) => r.判定元 !== '売掛金照合'),
      'the 売掛金 sheet is empty: no suggestion',
    );

    // After a check, the rule's row is still the rule's; the others get suggestions.
    const w2 = kichoWorld({ receivables: true, window: ['2026-11-01', '2026-11-30'] });
    w2.addRules([YAMADA_RULE]);
    w2.run('checkReceivables');
    w2.run('importTransactions');
    w2.run('classifyPending');
    rows = w2.ledger();
    const yamada = byText(rows, 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ');
    assert.deepEqual([yamada.状態, yamada.判定元], ['送信待ち', 'ルール#1']);
    assert.equal(byText(rows, 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ').判定元, '売掛金照合');
  });
});

describe('deposits a rule already calls 売掛金', () => {
  test('a rule 「ﾌﾘｺﾐ → 売掛金」 without 取引先 keeps its decision; the match adds who paid and which invoice', () => {
    const w = kichoWorld({ receivables: true, window: ['2026-11-01', '2026-11-30'] });
    w.addRules([
      {
        優先度: 5,
        一致方法: '前方一致',
        キーワード: 'ﾌﾘｺﾐ',
        入出金: '入金',
        勘定科目: '売掛金',
        自動承認: 'いいえ',
        有効: true,
      },
    ]);
    w.run('checkReceivables');
    w.run('importTransactions');
    w.run('classifyPending');
    const rows = w.ledger();
    const sato = rows.find((r) => r.摘要 === 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ');
    assert.ok(sato);
    assert.deepEqual(
      [sato.状態, sato.勘定科目, sato.取引先, sato.判定元],
      ['要確認', '売掛金', SATO, 'ルール#5'],
    );
    assert.match(String(sato.判定根拠), /2026-09-15 発生の売掛金/);
    const fukuoka = rows.find((r) => r.摘要 === 'ﾌﾘｺﾐ ｶ)ﾌｸｵｶﾌﾄﾞｳｻﾝ');
    assert.ok(fukuoka);
    assert.deepEqual(
      [fukuoka.勘定科目, fukuoka.取引先, fukuoka.判定元],
      ['売掛金', '', 'ルール#5'],
      'no open invoice: the rule alone',
    );
  });
});

describe('売掛金の定期チェック', () => {
  test('オン: setup installs one weekly trigger (Monday, 8 a.m.) that writes the 売掛金 sheet; オフ in the 設定 dialog removes it', () => {
    const w = kichoWorld({ receivables: true });
    const weekly = () =>
      w.emu.world.triggers.visibleTo(OWNER).filter((t) => t.handler === 'checkReceivables');
    assert.equal(weekly().length, 0, 'off by default');
    w.setSetting('売掛金の定期チェック', 'オン');
    const r = w.run('setup');
    assert.match(JSON.stringify(r.value), /毎週月曜 8 時ごろ/);
    w.run('setup');
    assert.equal(weekly().length, 1, 'one, even after setup ran twice');
    assert.equal(weekly()[0].schedule?.onWeekDay, 'MONDAY');
    assert.equal(weekly()[0].schedule?.atHour, 8);

    const runs = w.emu.advance(8 * 24 * 60 * 60_000).filter((t) => t.handler === 'checkReceivables');
    assert.equal(runs.length, 1, 'once in eight days');
    assert.equal(runs[0].result.status, 'ok', JSON.stringify(runs[0].result.error));
    assert.ok(records(w.emu.world, '売掛金').length > 0, 'the trigger run wrote the report');
    assert.equal(
      w.emu.world.ui.events.filter((e) => e.exec === runs[0].result.id).length,
      0,
      'no UI from a trigger',
    );

    const saved = w.run('saveSettings', { args: [{ 売掛金の定期チェック: 'オフ' }] });
    assert.match(JSON.stringify(saved.value), /売掛金の定期チェックを止めました/);
    assert.equal(weekly().length, 0);
  });
});
