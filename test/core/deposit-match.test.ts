import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEPOSIT_SOURCE,
  depositSuggestions,
  matchDeposit,
  type OpenReceivable,
  payerForm,
  payerPartners,
} from '../../src/core/deposit-match';
import { parseLedger } from '../../src/core/ledger';
import { LEDGER_HEADERS } from '../../src/core/schema';

const PARTNERS = [
  { name: '株式会社山田商事', reading: 'やまだしょうじ' },
  { name: '有限会社佐藤工業', reading: 'さとうこうぎょう' },
  { name: 'ヤマダ電機株式会社' },
  { name: 'アルファ合同会社', reading: 'あるふぁ' },
];

describe('payer names', () => {
  test('法人格 forms, kana width, small kana, spaces, brackets and the ﾌﾘｺﾐ prefix fold away', () => {
    const yamada = payerForm('やまだしょうじ');
    assert.equal(yamada, 'ヤマダシヨウジ');
    for (const spelled of [
      'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ',
      'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ',
      'ﾌﾘｺﾐ ﾔﾏﾀﾞｼﾖｳｼﾞ(ｶ',
      '振込 カ）ヤマダ ショウジ',
      'ｶﾌﾞｼｷｶﾞｲｼｬ ﾔﾏﾀﾞｼｮｳｼﾞ',
      'フリコミ　（カ）ヤマダシヨウジ',
    ]) {
      assert.equal(payerForm(spelled), yamada, spelled);
    }
    assert.equal(payerForm('株式会社山田商事'), '山田商事');
    assert.equal(payerForm('ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ'), payerForm('さとうこうぎょう'));
  });

  test('the payer names its 取引先 by name or reading, not a similar one', () => {
    assert.deepEqual(payerPartners('ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', PARTNERS), ['株式会社山田商事']);
    assert.deepEqual(payerPartners('振込 山田商事', PARTNERS), ['株式会社山田商事']);
    // Kanji in the name and no reading in MF: the kana payer cannot be tied to it.
    assert.deepEqual(payerPartners('ﾌﾘｺﾐ ﾔﾏﾀﾞﾃﾞﾝｷ(ｶ', PARTNERS), []);
    assert.deepEqual(payerPartners('ﾔﾏﾀﾞ電機(ｶ', PARTNERS), ['ヤマダ電機株式会社']);
    assert.deepEqual(payerPartners('ﾌﾘｺﾐ ﾄﾞ)ｱﾙﾌｱ', PARTNERS), ['アルファ合同会社']);
    assert.deepEqual(payerPartners('ﾌﾘｺﾐ ﾔﾏﾀﾞ', PARTNERS), [], 'too short to be a cut name');
    assert.deepEqual(payerPartners('ﾌﾘｺﾐ ﾔﾏﾀﾞｼｮｳｼﾞｶｲ', PARTNERS), []);
    // A bank cut the name: still enough of it left.
    assert.deepEqual(payerPartners('ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞ', PARTNERS), ['有限会社佐藤工業']);
  });
});

describe('matchDeposit', () => {
  const open: OpenReceivable[] = [
    { partner: '株式会社山田商事', date: '2026-10-31', balance: 49_500 },
    { partner: '有限会社佐藤工業', date: '2026-09-15', balance: 88_000 },
    { partner: '有限会社佐藤工業', date: '2026-10-15', balance: 30_000 },
    { partner: '有限会社佐藤工業', date: '2026-11-15', balance: 30_000 },
  ];
  test('exact amount, or short within the tolerance', () => {
    assert.deepEqual(matchDeposit('ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', 49_500, open, PARTNERS, 880), {
      kind: 'one',
      item: open[0],
      shortfall: 0,
    });
    assert.deepEqual(matchDeposit('ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 87_120, open, PARTNERS, 880), {
      kind: 'one',
      item: open[1],
      shortfall: 880,
    });
    assert.equal(matchDeposit('ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 87_119, open, PARTNERS, 880), null, 'short by 881');
    assert.equal(matchDeposit('ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 88_001, open, PARTNERS, 880), null, 'more than owed');
    assert.equal(matchDeposit('ﾌﾘｺﾐ ｶ)ﾀﾅｶﾌﾞﾂｻﾝ', 49_500, open, PARTNERS, 880), null, 'someone else');
    assert.equal(matchDeposit('ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 87_120, open, PARTNERS, 0), null, 'no tolerance');
  });
  test('two invoices of the same amount are shown, never guessed', () => {
    const m = matchDeposit('ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 29_560, open, PARTNERS, 880);
    assert.deepEqual(m, { kind: 'ambiguous', items: [open[2], open[3]] });
  });
});

describe('depositSuggestions', () => {
  const row = (キー: string, 摘要: string, 金額: number, extra: Record<string, unknown> = {}) => ({
    キー,
    状態: '要確認',
    入出金: '入金',
    摘要,
    金額,
    ...extra,
  });
  const table = parseLedger([
    LEDGER_HEADERS.slice(),
    ...[
      row('mf:a', 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 87_120),
      row('mf:b', 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 87_120),
      row('mf:c', 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 30_000),
      row('mf:d', 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', 49_500),
      row('mf:e', 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', 49_500, { 勘定科目: '前受金' }),
      row('mf:f', 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', 49_500, { 入出金: '出金' }),
    ].map((r) => LEDGER_HEADERS.map((h) => (r as Record<string, unknown>)[h] ?? '')),
  ]);
  const open: OpenReceivable[] = [
    { partner: '株式会社山田商事', date: '2026-10-31', balance: 49_500 },
    { partner: '有限会社佐藤工業', date: '2026-09-15', balance: 88_000 },
    { partner: '有限会社佐藤工業', date: '2026-10-15', balance: 30_000 },
    { partner: '有限会社佐藤工業', date: '2026-11-15', balance: 30_000 },
  ];
  test('suggests 売掛金 and the 取引先 for unmatched deposits, as 要確認, each invoice once', () => {
    const changes = depositSuggestions({
      rows: table.rows,
      unmatchedKeys: new Set(['mf:a', 'mf:b', 'mf:c', 'mf:e', 'mf:f']),
      open,
      partners: PARTNERS,
      receivableAccount: '売掛金',
      feeTolerance: 880,
      now: '2026-11-30T00:00:00Z',
    });
    const byKey = new Map(changes.map((c) => [c.key, c.patch]));
    assert.deepEqual(
      [...byKey.keys()],
      ['mf:a', 'mf:c'],
      'b: invoice taken by a; d: a rule decided it; e, f: not ours',
    );
    const a = byKey.get('mf:a');
    assert.equal(a?.勘定科目, '売掛金');
    assert.equal(a?.取引先, '有限会社佐藤工業');
    assert.equal(a?.状態, '要確認');
    assert.equal(a?.判定元, DEPOSIT_SOURCE);
    assert.match(String(a?.判定根拠), /2026-09-15 発生.*差額 880円 は振込手数料/);
    const c = byKey.get('mf:c');
    assert.equal(c?.取引先, '有限会社佐藤工業', 'who paid is certain');
    assert.match(String(c?.判定根拠), /候補が 2 件.*2026-10-15.*2026-11-15/);
    assert.match(String(c?.メモ), /決めていません/);
  });
});
