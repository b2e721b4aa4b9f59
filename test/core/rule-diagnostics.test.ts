import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Masters } from '../../src/core/masters';
import {
  compareRules,
  MATCH_TYPES,
  type MatchType,
  matchRule,
  parseRules,
  prepareLine,
  type RuleLine,
  ruleMatches,
} from '../../src/core/rules';
import { DIAGNOSIS_MSG, DIAGNOSIS_OK, diagnoseRuleSheet } from '../../src/core/rules/diagnostics';
import { RULE_HEADERS } from '../../src/core/schema';
import { type RuleCells, ruleSheet } from '../helpers/fixtures';

type Cells = RuleCells;
const sheet = ruleSheet;

const MASTERS: Masters = {
  accounts: [
    { id: 'a1', name: '消耗品費', available: true, subAccounts: [{ id: 's1', name: 'ネット' }] },
    { id: 'a2', name: '新聞図書費', available: true, subAccounts: [] },
    { id: 'a3', name: '旅費交通費', available: true, subAccounts: [] },
    { id: 'a4', name: '会議費', available: false, subAccounts: [] },
  ],
  taxes: [{ id: 't1', name: '課税仕入 10%', available: true }],
  partners: [{ code: 'p1', name: 'アマゾン', available: true }],
  connectedAccounts: [],
  fetchedAt: '2026-11-30T00:00:00Z',
};

const line = (description: string, over: Partial<RuleLine> = {}): RuleLine => ({
  description,
  direction: '出金',
  amount: 1000,
  account: '三井住友銀行',
  ...over,
});

describe('diagnoseRuleSheet', () => {
  test('a rule without problems reads OK; blank rows stay empty', () => {
    const d = diagnoseRuleSheet(
      sheet([{}, null, { キーワード: 'ﾀｸｼｰ', 勘定科目: '旅費交通費' }]),
      MASTERS,
      [],
    );
    assert.deepEqual(d.cells, [DIAGNOSIS_OK, '', DIAGNOSIS_OK]);
    assert.deepEqual(d.findings, []);
  });

  test('shadowed: names the earlier rule, its priority and keyword, and says what to do', () => {
    const d = diagnoseRuleSheet(
      sheet([
        { 優先度: 3, キーワード: 'ｱﾏｿﾞﾝ' },
        { 優先度: 5, キーワード: 'アマゾン ブックス', 勘定科目: '新聞図書費', 入出金: '出金' },
      ]),
      MASTERS,
      [],
    );
    assert.equal(d.cells[0], DIAGNOSIS_OK);
    assert.equal(
      d.cells[1],
      '優先度 3 の『ｱﾏｿﾞﾝ』（2行目、消耗品費）が先に必ず当てはまるため、このルールは使われません。優先度の数字を 3 より小さくするか、不要なら削除してください。',
    );
    assert.deepEqual(
      d.findings.map((f) => [f.rowNumber, f.keyword, f.account]),
      [[3, 'アマゾン ブックス', '新聞図書費']],
    );
  });

  test('overlap on 台帳 rows: counts the rows the earlier rule takes with another account', () => {
    const values = sheet([
      { 優先度: 1, キーワード: 'ｱﾏｿﾞﾝ', 金額上限: 5000 },
      { 優先度: 2, キーワード: 'ﾌﾞｯｸｽ', 勘定科目: '新聞図書費' },
    ]);
    const lines = [
      line('ｱﾏｿﾞﾝ ﾌﾞｯｸｽ', { amount: 1000 }),
      line('ｱﾏｿﾞﾝ ﾌﾞｯｸｽ', { amount: 1000 }),
      line('ｱﾏｿﾞﾝ ﾌﾞｯｸｽ', { amount: 2000 }),
      line('ｱﾏｿﾞﾝ ﾌﾞｯｸｽ', { amount: 9000 }), // over 金額上限: rule 2 wins
      line('ﾌﾞｯｸｽ'),
    ];
    const d = diagnoseRuleSheet(values, MASTERS, lines);
    assert.equal(d.cells[0], DIAGNOSIS_OK);
    assert.match(
      d.cells[1],
      /^台帳の 3 行はこのルールにも当てはまりますが、先に調べられる優先度 1 の『ｱﾏｿﾞﾝ』（2行目、消耗品費）が使われています。/,
    );
    assert.deepEqual(
      d.findings.map((f) => f.rowNumber),
      [3],
    );
  });

  test('overlap with the same account (another 税区分 only) is not a problem', () => {
    const d = diagnoseRuleSheet(
      sheet([
        { 優先度: 1, キーワード: 'ｱﾏｿﾞﾝ', 金額上限: 5000 },
        { 優先度: 2, キーワード: 'ﾌﾞｯｸｽ', 税区分: '課税仕入 10%' },
      ]),
      MASTERS,
      [line('ｱﾏｿﾞﾝ ﾌﾞｯｸｽ')],
    );
    assert.deepEqual(d.cells, [DIAGNOSIS_OK, DIAGNOSIS_OK]);
  });

  test('keyword overlap without 台帳 rows: a longer keyword behind a shorter one with narrower conditions', () => {
    const d = diagnoseRuleSheet(
      sheet([
        { 優先度: 1, キーワード: 'ｱﾏｿﾞﾝ', 入出金: '出金' },
        { 優先度: 2, キーワード: 'ｱﾏｿﾞﾝ ﾌﾟﾗｲﾑ', 勘定科目: '新聞図書費' },
        // The other way round is a deliberate exception, not a problem.
        { 優先度: 0, キーワード: 'ｱﾏｿﾞﾝ ｷﾝﾄﾞﾙ', 勘定科目: '新聞図書費' },
      ]),
      MASTERS,
      [],
    );
    assert.equal(
      d.cells[1],
      DIAGNOSIS_MSG.overlapKeyword({
        ...parseRules(sheet([{ 優先度: 1, キーワード: 'ｱﾏｿﾞﾝ', 入出金: '出金' }])).rules[0],
      }),
    );
    assert.equal(d.cells[2], DIAGNOSIS_OK);
  });

  test('cells that cannot be read: the parse message without the row prefix', () => {
    const d = diagnoseRuleSheet(
      sheet([
        { 一致方法: '正規表現', キーワード: '(ｱﾏｿﾞﾝ' },
        { 一致方法: '正規表現', キーワード: '(a+)+b' },
        { キーワード: '' },
        { 優先度: 'たかい' },
      ]),
      MASTERS,
      [],
    );
    assert.match(d.cells[0], /^キーワード「\(ｱﾏｿﾞﾝ」は正規表現として正しくありません/);
    assert.match(d.cells[1], /^正規表現「\(a\+\)\+b」は、繰り返し/);
    assert.match(d.cells[2], /^キーワードが空です/);
    assert.match(d.cells[3], /^優先度「たかい」が数字ではありません/);
    assert.equal(d.findings.length, 4);
  });

  test('names not in マスタ (and a sub-account not under its account); no check before masters are fetched', () => {
    const values = sheet([
      { 勘定科目: '図書費' },
      {
        勘定科目: '消耗品費',
        補助科目: 'ネット',
        税区分: '課税仕入 10%',
        取引先: 'アマゾン',
        キーワード: 'a',
      },
      { 勘定科目: '新聞図書費', 補助科目: 'ネット', キーワード: 'b' },
      { 勘定科目: '会議費', 税区分: '課税 10%', 取引先: 'ヨドバシ', キーワード: 'c' },
    ]);
    const d = diagnoseRuleSheet(values, MASTERS, []);
    assert.match(d.cells[0], /勘定科目「図書費」がマスタにありません/);
    assert.equal(d.cells[1], DIAGNOSIS_OK);
    assert.match(d.cells[2], /補助科目「ネット」は勘定科目「新聞図書費」にありません/);
    assert.match(d.cells[3], /会議費」はMFで使用停止/);
    assert.match(d.cells[3], /税区分「課税 10%」がマスタにありません/);
    assert.match(d.cells[3], /取引先「ヨドバシ」がマスタにありません/);
    const none: Masters = { ...MASTERS, accounts: [] };
    const unchecked = diagnoseRuleSheet(values, none, []);
    assert.equal(unchecked.cells[0], `${DIAGNOSIS_OK} ${DIAGNOSIS_MSG.mastersMissing}`);
    assert.deepEqual(unchecked.findings, []);
  });

  test('a disabled rule says so and shadows nothing', () => {
    const d = diagnoseRuleSheet(sheet([{ 優先度: 1, 有効: false }, { 優先度: 2 }]), MASTERS, [line('ｱﾏｿﾞﾝ')]);
    assert.equal(d.cells[0], DIAGNOSIS_MSG.disabled);
    assert.equal(d.cells[1], DIAGNOSIS_OK);
  });

  test('a missing header: every non-blank row says so; our own old 診断 text does not count as content', () => {
    const headers = RULE_HEADERS.filter((h) => h !== '一致方法');
    const values = [
      headers,
      headers.map((h) => (h === 'キーワード' ? 'ｱﾏｿﾞﾝ' : h === '優先度' ? 1 : '')),
      headers.map((h) => (h === '診断' ? 'OK' : '')),
    ];
    const d = diagnoseRuleSheet(values, MASTERS, []);
    assert.match(d.cells[0], /見出し「一致方法」がありません/);
    assert.equal(d.cells[1], '');
  });

  test('property (soundness): a rule called shadowed is never chosen, and the rule named matches every line it matches', () => {
    const words = ['ｱ', 'ア', 'a', 'A', 'ab', 'ｱｲ', 'a b'];
    // Conditions lean towards empty so that shadowing is common enough to be tested.
    const often = <T>(empty: T, ...others: T[]) =>
      fc.oneof({ arbitrary: fc.constant(empty), weight: 3 }, fc.constantFrom(...others));
    const cellsArb: fc.Arbitrary<Cells> = fc.record({
      優先度: fc.integer({ min: 1, max: 4 }),
      一致方法: fc.constantFrom<MatchType>('部分一致', ...MATCH_TYPES),
      キーワード: fc.constantFrom(...words, '^ｱ', 'a$', '[ab]'),
      入出金: often('', '入金', '出金'),
      金額下限: often<string | number>('', 1, 5),
      金額上限: fc.constantFrom('', 5, 6),
      口座: fc.constantFrom('', 'A', 'AX', 'A X', 'A,B'),
      勘定科目: fc.constantFrom('消耗品費', '新聞図書費'),
      有効: often(true, false),
    });
    const lineArb: fc.Arbitrary<RuleLine> = fc.record({
      // A keyword with something or nothing around it, so that lines meet the rules often.
      description: fc
        .tuple(
          fc.constantFrom('', ' ', 'b', ...words),
          fc.constantFrom(...words),
          fc.constantFrom('', ' ', 'ｲ', ...words),
        )
        .map((p) => p.join('')),
      direction: fc.constantFrom('入金', '出金', ''),
      amount: fc.integer({ min: 0, max: 8 }),
      account: fc.constantFrom('A', 'AX', 'A X', 'A X Y', 'B'),
    });
    let claims = 0;
    let checkedLines = 0;
    fc.assert(
      fc.property(
        fc.array(cellsArb, { minLength: 2, maxLength: 8 }),
        fc.array(lineArb, { minLength: 10, maxLength: 30 }),
        (cells, lines) => {
          const values = sheet(cells);
          const { rules } = parseRules(values);
          const d = diagnoseRuleSheet(values, MASTERS, lines);
          for (const b of rules) {
            const cell = d.cells[b.rowNumber - 2];
            const m = /^優先度 \S+ の『.*』（(\d+)行目、/.exec(cell);
            if (!m || !cell.includes('このルールは使われません')) continue;
            claims++;
            const a = rules.find((r) => r.rowNumber === Number(m[1]));
            assert.ok(a?.enabled && compareRules(a, b) < 0, 'the shadowing rule is enabled and earlier');
            for (const l of lines) {
              const p = prepareLine(l);
              if (!ruleMatches(b, p)) continue;
              checkedLines++;
              assert.ok(
                ruleMatches(a, p),
                `row ${a.rowNumber} does not match a line row ${b.rowNumber} matches`,
              );
              const picked = matchRule(rules, l);
              assert.ok(picked && picked !== b && compareRules(picked, b) < 0);
            }
          }
        },
      ),
      { numRuns: 1500 },
    );
    // The property must actually meet shadowed rules and lines they match, or it proves nothing.
    assert.ok(claims > 80, `only ${claims} shadowing claims were checked`);
    assert.ok(checkedLines > 60, `only ${checkedLines} lines were checked`);
  });

  test('property: the overlap count is the number of lines the rule matches but an earlier rule with another account takes', () => {
    const words = ['ｱ', 'ｲ', 'ｱｲ', 'ｲｳ', 'ｱｲｳ'];
    const cellsArb: fc.Arbitrary<Cells> = fc.record({
      優先度: fc.integer({ min: 1, max: 3 }),
      キーワード: fc.constantFrom(...words),
      入出金: fc.constantFrom('', '入金', '出金'),
      勘定科目: fc.constantFrom('消耗品費', '新聞図書費'),
    });
    const lineArb: fc.Arbitrary<RuleLine> = fc.record({
      description: fc.constantFrom(...words, 'ｱｲｱ', 'ｳ', 'ｳｱｲ', 'ｱｲｱｲｳ', 'ｲｳｱ'),
      direction: fc.constantFrom('入金', '出金'),
      amount: fc.constant(1),
      account: fc.constant('A'),
    });
    fc.assert(
      fc.property(
        fc.array(cellsArb, { maxLength: 5 }),
        fc.array(lineArb, { maxLength: 12 }),
        (cells, lines) => {
          const values = sheet(cells);
          const { rules } = parseRules(values);
          const d = diagnoseRuleSheet(values, MASTERS, lines);
          for (const b of rules) {
            const m =
              /^台帳の (\d+) 行はこのルールにも当てはまりますが、先に調べられる優先度 \S+ の『.*』（(\d+)行目、/.exec(
                d.cells[b.rowNumber - 2],
              );
            if (!m) continue;
            const a = rules.find((r) => r.rowNumber === Number(m[2]));
            assert.ok(a);
            const taken = lines.filter((l) => {
              const p = prepareLine(l);
              return ruleMatches(b, p) && matchRule(rules, l) === a;
            }).length;
            assert.equal(Number(m[1]), taken);
            assert.notEqual(a.勘定科目, b.勘定科目);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
