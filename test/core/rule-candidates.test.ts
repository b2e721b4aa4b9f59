import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { LedgerRecord, LedgerRow, RowChange } from '../../src/core/ledger';
import { matchRule, parseRules } from '../../src/core/rules';
import {
  approvedRows,
  type CandidateTable,
  deriveKeyword,
  learnCandidates,
  parseCandidates,
  planAdoption,
} from '../../src/core/rules/candidates';
import { LEDGER_HEADERS, RULE_CANDIDATE_HEADERS, RULE_HEADERS } from '../../src/core/schema';
import { matchForm } from '../../src/core/text';

describe('deriveKeyword', () => {
  const cases: [string, string | null][] = [
    ['ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', 'ヤマダショウジ'],
    ['ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', 'サトウコウギヨウ'],
    ['振込 ヤマダ タロウ 0123456', 'ヤマダ タロウ'],
    ['ﾔﾁﾝ ｶ)ﾌｸｵｶﾌﾄﾞｳｻﾝ', 'ヤチン カ)フクオカフドウサン'],
    ['ｶ)ﾌｸｵｶﾌﾄﾞｳｻﾝ ﾔﾁﾝ 11月分', 'フクオカフドウサン ヤチン'],
    ['ﾃﾞﾝｷﾀﾞｲ', 'デンキダイ'],
    ['AMAZON.CO.JP*AB12CD34E', 'AMAZON.CO.JP'],
    ['ｶｰﾄﾞ 1234 AMAZON.CO.JP 2026/11/02', 'AMAZON.CO.JP'],
    ['Vデビット　ＡＭＡＺＯＮ　1A234567', 'AMAZON'],
    ['GOOGLE *WORKSPACE', 'GOOGLE *WORKSPACE'],
    ['7-ELEVEN SHINJUKU', '7-ELEVEN SHINJUKU'],
    ['口座振替 NTTﾄﾞｺﾓ 12月分', 'NTTドコモ'],
    ['ATM ﾋｷﾀﾞｼ 0123', 'ATM ヒキダシ'],
    ['ﾌﾘｺﾐ', 'フリコミ'],
    ['山田商事(株)', '山田商事'],
    ['2026/11/02 12345', null],
    ['', null],
    ['A 1', null],
  ];
  for (const [description, expected] of cases) {
    test(`${description || '(empty)'} → ${expected}`, () =>
      assert.equal(deriveKeyword(description), expected));
  }

  test('property: the keyword is a substring of the NFKC description, so its 部分一致 rule matches the row', () => {
    const piece = fc.constantFrom(
      'ﾌﾘｺﾐ',
      'ｶ)',
      '(ｶ',
      'ｱﾏｿﾞﾝ',
      'AMAZON',
      '0123',
      '11月分',
      '*',
      ' ',
      '　',
      '/',
      '7-',
      'ﾃﾞﾝｷ',
      '振込',
      'A1',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const description = pieces.join('');
        const keyword = deriveKeyword(description);
        if (keyword === null) return;
        assert.ok([...keyword].length >= 2);
        assert.ok(matchForm(description).includes(matchForm(keyword)), `${keyword} in ${description}`);
        const { rules } = parseRules([
          ['優先度', '一致方法', 'キーワード', '勘定科目', '有効'],
          [1, '部分一致', keyword, '雑費', true],
        ]);
        assert.ok(matchRule(rules, { description, direction: '出金', amount: 1, account: '' }));
      }),
      { numRuns: 500 },
    );
  });
});

function record(over: Partial<LedgerRecord>): LedgerRecord {
  const r = Object.fromEntries(LEDGER_HEADERS.map((h) => [h, ''])) as LedgerRecord;
  return { ...r, 入出金: '出金', 金額: 1000, 口座: '銀行', ...over };
}

function rows(records: LedgerRecord[]): LedgerRow[] {
  return records.map((record, i) => ({ rowNumber: i + 2, record }));
}

describe('approvedRows', () => {
  test('only 承認 that made the row 送信待ち (not 再試行, not a refused 承認, not 除外)', () => {
    const before = rows([
      record({ キー: 'a', 操作: '承認', 勘定科目: '雑費' }),
      record({ キー: 'b', 操作: '承認' }),
      record({ キー: 'c', 操作: '再試行', 勘定科目: '雑費' }),
      record({ キー: 'd', 操作: '除外' }),
    ]);
    const ops: RowChange[] = [
      { key: 'a', rowNumber: 2, patch: { 状態: '送信待ち', 操作: '' } },
      { key: 'b', rowNumber: 3, patch: { 状態: '要確認', 操作: '' } },
      { key: 'c', rowNumber: 4, patch: { 状態: '送信待ち', 操作: '' } },
      { key: 'd', rowNumber: 5, patch: { 状態: '除外', 操作: '' } },
    ];
    assert.deepEqual(
      approvedRows(before, ops).map((r) => [r.キー, r.状態]),
      [['a', '送信待ち']],
    );
  });
});

const RULES = parseRules([
  RULE_HEADERS.slice(),
  RULE_HEADERS.map(
    (h) =>
      ({ 優先度: 10, 一致方法: '部分一致', キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '消耗品費', 有効: true })[
        h as string
      ] ?? '',
  ),
  RULE_HEADERS.map(
    (h) =>
      ({
        優先度: 20,
        一致方法: '前方一致',
        キーワード: 'ﾌﾘｺﾐ',
        入出金: '入金',
        勘定科目: '売掛金',
        有効: true,
      })[h as string] ?? '',
  ),
]).rules;

function emptyTable(): CandidateTable {
  return parseCandidates([RULE_CANDIDATE_HEADERS.slice()]);
}

function asRecords(t: CandidateTable): Record<string, unknown>[] {
  return t.rows.map((r) => Object.fromEntries([...t.columns].map(([h, i]) => [h, r[i]])));
}

describe('learnCandidates', () => {
  const ledger = [
    record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ' }),
    record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ 2' }),
    record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ', 入出金: '入金' }),
    record({ 摘要: 'ｱﾏｿﾞﾝ ﾌﾞｯｸｽ' }),
    record({ 摘要: 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞ', 入出金: '入金' }),
  ];
  const learn = (table: CandidateTable, approved: LedgerRecord[]) =>
    learnCandidates({ table, approved, rules: RULES, ledger, who: 'k@example.com', now: 'NOW' });

  test('one candidate per keyword, 入出金 and account, counted over the 台帳; a second approval updates it', () => {
    const t = emptyTable();
    const first = learn(t, [record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ', 勘定科目: '新聞図書費', 税区分: '課税仕入 10%' })]);
    assert.deepEqual([first.added, first.updated], [1, 0]);
    const [c] = asRecords(t);
    assert.equal(c.キーワード, 'マルゼン ジユンクドウ');
    assert.equal(c.入出金, '出金');
    assert.equal(c.該当行数, 2, 'the 入金 line is not counted');
    assert.equal(c.税区分, '課税仕入 10%');
    assert.equal(c.採用, false);
    const again = learn(t, [
      record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ 2', 勘定科目: '新聞図書費' }),
      record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ', 勘定科目: '新聞図書費' }),
    ]);
    assert.deepEqual([again.added, again.updated], [0, 1]);
    assert.equal(t.rows.length, 1);
    const other = learn(t, [record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ', 勘定科目: '消耗品費' })]);
    assert.deepEqual([other.added, other.updated], [1, 0], 'another account is another candidate');
  });

  test('nothing when an enabled rule already gives the row these names; a rule overridden is named', () => {
    const t = emptyTable();
    assert.equal(learn(t, [record({ 摘要: 'ｱﾏｿﾞﾝ ﾌﾞｯｸｽ', 勘定科目: '消耗品費', 税区分: 'x' })]).added, 0);
    const r = learn(t, [record({ 摘要: 'ｱﾏｿﾞﾝ ﾌﾞｯｸｽ', 勘定科目: '新聞図書費' })]);
    assert.equal(r.added, 1);
    assert.match(
      String(asRecords(t)[0].根拠),
      /^ルール#10（消耗品費）が当てはまる行を、k@example.com が 新聞図書費 で承認しました/,
    );
  });

  test('an adopted candidate is not suggested again; blank rows are reused; other columns are kept', () => {
    const header = [...RULE_CANDIDATE_HEADERS, 'メモ'];
    const at = (h: string) => header.indexOf(h);
    const adopted = header.map(() => '' as unknown);
    adopted[at('状態')] = '採用済み（ルール 5行目、優先度 3）';
    adopted[at('キーワード')] = 'マルゼン ジユンクドウ';
    adopted[at('入出金')] = '出金';
    adopted[at('勘定科目')] = '新聞図書費';
    adopted[at('メモ')] = '人のメモ';
    const blank = header.map((h) => (h === '採用' ? false : ''));
    const t = parseCandidates([header, adopted, blank]);
    assert.equal(learn(t, [record({ 摘要: 'ﾏﾙｾﾞﾝ ｼﾞﾕﾝｸﾄﾞｳ', 勘定科目: '新聞図書費' })]).added, 0);
    assert.equal(learn(t, [record({ 摘要: 'ﾃﾞﾝｷﾀﾞｲ', 勘定科目: '水道光熱費' })]).added, 1);
    assert.equal(t.rows.length, 2, 'the blank row was used');
    assert.equal(t.rows[1][at('キーワード')], 'デンキダイ');
    assert.equal(t.rows[0][at('メモ')], '人のメモ');
  });
});

describe('planAdoption', () => {
  const ruleValues = [
    RULE_HEADERS.slice(),
    ...[
      { 優先度: 10, 一致方法: '部分一致', キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '消耗品費', 有効: true },
      {
        優先度: 20,
        一致方法: '前方一致',
        キーワード: 'ﾌﾘｺﾐ',
        入出金: '入金',
        勘定科目: '売掛金',
        有効: true,
      },
      { 優先度: 30, 一致方法: '部分一致', キーワード: 'ﾀｸｼｰ', 勘定科目: '旅費交通費', 有効: true },
    ].map((r) => RULE_HEADERS.map((h) => (r as Record<string, unknown>)[h] ?? '')),
  ];

  function candidate(over: Record<string, unknown>): unknown[] {
    const base: Record<string, unknown> = {
      採用: true,
      状態: '候補',
      一致方法: '部分一致',
      入出金: '出金',
      勘定科目: '新聞図書費',
    };
    return RULE_CANDIDATE_HEADERS.map((h) => ({ ...base, ...over })[h] ?? '');
  }

  test('ticked candidates become rules below the last row, after the last priority, 自動承認 いいえ and 有効', () => {
    const t = parseCandidates([
      RULE_CANDIDATE_HEADERS.slice(),
      candidate({ キーワード: 'マルゼン', 摘要の例: 'ﾏﾙｾﾞﾝ' }),
      candidate({ キーワード: 'デンキダイ', 採用: false }),
      candidate({ キーワード: 'ジュンク堂', 摘要の例: 'ｼﾞﾕﾝｸﾄﾞｳ' }),
    ]);
    const a = planAdoption(t, ruleValues, 'NOW');
    assert.deepEqual(
      a.newRules.map((r) => [r.優先度, r.キーワード, r.自動承認, r.有効, r.入出金]),
      [
        [31, 'マルゼン', 'いいえ', true, '出金'],
        [32, 'ジュンク堂', 'いいえ', true, '出金'],
      ],
    );
    const recs = asRecords(a.table);
    assert.deepEqual(
      recs.map((r) => [r.採用, r.状態]),
      [
        [false, '採用済み（ルール 5行目、優先度 31）'],
        [false, '候補'],
        [false, '採用済み（ルール 6行目、優先度 32）'],
      ],
    );
    assert.equal(a.messages.length, 2);
    assert.equal(planAdoption(a.table, ruleValues, 'NOW').newRules.length, 0, 'nothing twice');
  });

  test('overriding a rule: placed just before it when that shadows nothing, else last', () => {
    const before = planAdoption(
      parseCandidates([
        RULE_CANDIDATE_HEADERS.slice(),
        candidate({ キーワード: 'ヤマダ', 入出金: '入金', 勘定科目: '売上高', 摘要の例: 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞ' }),
      ]),
      ruleValues,
      'NOW',
    );
    assert.equal(before.newRules[0].優先度, 19);
    assert.match(before.messages[0], /優先度 20 の『ﾌﾘｺﾐ』（売掛金）より先に調べます/);
    // 「ｱﾏｿﾞﾝ」 for another account before rule 10 would replace rule 10 entirely: it goes last.
    const broad = planAdoption(
      parseCandidates([
        RULE_CANDIDATE_HEADERS.slice(),
        candidate({ キーワード: 'アマゾン', 入出金: '', 摘要の例: 'ｱﾏｿﾞﾝ' }),
      ]),
      ruleValues,
      'NOW',
    );
    assert.equal(broad.newRules[0].優先度, 31);
    // Halfway when there is no whole number between.
    const tight = [
      RULE_HEADERS.slice(),
      RULE_HEADERS.map(
        (h) =>
          ({ 優先度: 1, 一致方法: '部分一致', キーワード: 'ｶ', 勘定科目: '雑費', 有効: true })[h as string] ??
          '',
      ),
      RULE_HEADERS.map(
        (h) =>
          ({ 優先度: 2, 一致方法: '部分一致', キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '消耗品費', 有効: true })[
            h as string
          ] ?? '',
      ),
    ];
    const half = planAdoption(
      parseCandidates([
        RULE_CANDIDATE_HEADERS.slice(),
        candidate({ キーワード: 'アマゾンブックス', 摘要の例: 'ｱﾏｿﾞﾝﾌﾞｯｸｽ' }),
      ]),
      tight,
      'NOW',
    );
    assert.equal(half.newRules[0].優先度, 1.5);
    const rules = parseRules([...tight, RULE_HEADERS.map((h) => half.newRules[0][h] ?? '')]).rules;
    assert.equal(
      matchRule(rules, { description: 'ｱﾏｿﾞﾝﾌﾞｯｸｽ', direction: '出金', amount: 1, account: '' })?.勘定科目,
      '新聞図書費',
    );
  });

  test('a candidate that is not a valid rule is unticked with the reason', () => {
    const a = planAdoption(
      parseCandidates([
        RULE_CANDIDATE_HEADERS.slice(),
        candidate({ キーワード: '(ｱ', 一致方法: '正規表現' }),
      ]),
      ruleValues,
      'NOW',
    );
    assert.equal(a.newRules.length, 0);
    const [c] = asRecords(a.table);
    assert.equal(c.採用, false);
    assert.match(String(c.状態), /^採用できません: キーワード「\(ｱ」は正規表現として正しくありません/);
    assert.match(a.messages[0], /^ルール候補 2行目は採用できません/);
  });
});
