import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  diagnoseRules,
  MATCH_TYPES,
  type MatchType,
  matchRule,
  parseRules,
  REGEX_INPUT_LIMIT,
  RULE_MSG,
  type Rule,
  type RuleLine,
  regexRisk,
} from '../../src/core/rules';
import { RULE_HEADERS } from '../../src/core/schema';
import { type RuleCells, ruleSheet } from '../helpers/fixtures';

type Cells = RuleCells;
const sheet = ruleSheet;

function parseOne(cells: Cells) {
  return parseRules(sheet([cells]));
}

function rulesOf(rows: Cells[]): Rule[] {
  const { rules, problems } = parseRules(sheet(rows));
  assert.deepEqual(problems, []);
  return rules;
}

const line = (over: Partial<RuleLine> = {}): RuleLine => ({
  description: 'ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ',
  direction: '出金',
  amount: 1200,
  account: '三井住友銀行',
  ...over,
});

function matches(cells: Cells, over: Partial<RuleLine> = {}): boolean {
  return matchRule(rulesOf([cells]), line(over)) !== null;
}

describe('parseRules', () => {
  test('reads a rule with columns in any order and values of any cell type', () => {
    const headers = [...RULE_HEADERS].reverse();
    const { rules, problems } = parseRules(
      sheet(
        [
          {
            優先度: '１０',
            一致方法: '部分一致',
            キーワード: 'アマゾン',
            入出金: '出金',
            金額下限: '¥1,000',
            金額上限: 5000,
            口座: '三井住友銀行',
            勘定科目: '消耗品費',
            補助科目: '事務用品',
            税区分: '課税仕入 10%',
            取引先: 'アマゾンジャパン',
            自動承認: 'はい',
            有効: true,
          },
        ],
        headers,
      ),
    );
    assert.deepEqual(problems, []);
    assert.equal(rules.length, 1);
    const [rule] = rules;
    assert.deepEqual(
      { ...rule, text: undefined },
      {
        rowNumber: 2,
        priority: 10,
        matchType: '部分一致',
        keyword: 'アマゾン',
        direction: '出金',
        minAmount: 1000,
        maxAmount: 5000,
        account: '三井住友銀行',
        勘定科目: '消耗品費',
        補助科目: '事務用品',
        税区分: '課税仕入 10%',
        取引先: 'アマゾンジャパン',
        インボイス: '',
        autoApprove: true,
        enabled: true,
        text: undefined,
      },
    );
    assert.equal(
      rule.text,
      'ルール#10: 摘要が「アマゾン」を含む・出金・1,000〜5,000円・口座「三井住友銀行」 → 消耗品費（補助科目 事務用品、税区分 課税仕入 10%、取引先 アマゾンジャパン）',
    );
  });

  test('describes the simplest rule as in 判定根拠', () => {
    const [rule] = rulesOf([{}]);
    assert.equal(rule.text, 'ルール#10: 摘要が「ｱﾏｿﾞﾝ」を含む → 消耗品費');
    const [prefix] = rulesOf([{ 一致方法: '前方一致', 金額下限: 1000 }]);
    assert.equal(prefix.text, 'ルール#10: 摘要が「ｱﾏｿﾞﾝ」で始まる・1,000円以上 → 消耗品費');
    const [suffix] = rulesOf([{ 一致方法: '後方一致', 金額上限: 99999 }]);
    assert.equal(suffix.text, 'ルール#10: 摘要が「ｱﾏｿﾞﾝ」で終わる・99,999円以下 → 消耗品費');
    const [exact] = rulesOf([{ 一致方法: '完全一致', 入出金: '入金' }]);
    assert.equal(exact.text, 'ルール#10: 摘要が「ｱﾏｿﾞﾝ」と一致・入金 → 消耗品費');
    const [regex] = rulesOf([{ 一致方法: '正規表現', キーワード: '^ｱﾏｿﾞﾝ' }]);
    assert.equal(regex.text, 'ルール#10: 摘要が正規表現「^ｱﾏｿﾞﾝ」に一致 → 消耗品費');
  });

  test('sorts by priority (lower first), ties by row number', () => {
    const rules = rulesOf([
      { 優先度: 20, キーワード: 'a' },
      { 優先度: 5, キーワード: 'b' },
      { 優先度: 20, キーワード: 'c' },
      { 優先度: 1.5, キーワード: 'd' },
      { 優先度: 5, キーワード: 'e' },
    ]);
    assert.deepEqual(
      rules.map((r) => [r.priority, r.rowNumber, r.keyword]),
      [
        [1.5, 5, 'd'],
        [5, 3, 'b'],
        [5, 6, 'e'],
        [20, 2, 'a'],
        [20, 4, 'c'],
      ],
    );
  });

  test('skips blank rows, including rows with only a checkbox ticked', () => {
    const values = sheet([{}]);
    values.push(RULE_HEADERS.map(() => ''));
    values.push(RULE_HEADERS.map((h) => (h === '有効' ? true : h === '自動承認' ? false : '')));
    values.push(RULE_HEADERS.map(() => null));
    values.push([]);
    const { rules, problems } = parseRules(values);
    assert.equal(rules.length, 1);
    assert.deepEqual(problems, []);
  });

  test('reads 自動承認 はい / いいえ / empty / checkbox', () => {
    assert.equal(rulesOf([{ 自動承認: 'はい' }])[0].autoApprove, true);
    assert.equal(rulesOf([{ 自動承認: 'いいえ' }])[0].autoApprove, false);
    assert.equal(rulesOf([{ 自動承認: '' }])[0].autoApprove, false);
    assert.equal(rulesOf([{ 自動承認: true }])[0].autoApprove, true);
  });

  test('reads 有効 as a checkbox; an empty cell is off; no 有効 column means on', () => {
    assert.equal(rulesOf([{ 有効: true }])[0].enabled, true);
    assert.equal(rulesOf([{ 有効: false }])[0].enabled, false);
    assert.equal(rulesOf([{ 有効: 'TRUE' }])[0].enabled, true);
    assert.equal(rulesOf([{ 有効: '' }])[0].enabled, false);
    const headers = RULE_HEADERS.filter((h) => h !== '有効');
    const { rules } = parseRules(sheet([{}], headers));
    assert.equal(rules[0].enabled, true);
  });

  test('optional columns may be missing; required ones are reported on row 1 and nothing is used', () => {
    const minimal = ['優先度', '一致方法', 'キーワード', '勘定科目'];
    const ok = parseRules(sheet([{}], minimal));
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.rules[0].autoApprove, false);
    assert.equal(ok.rules[0].direction, null);

    const { rules, problems } = parseRules(sheet([{}], ['優先度', '一致方法', '勘定科目']));
    assert.deepEqual(rules, []);
    assert.deepEqual(problems, [
      { rowNumber: 1, column: 'キーワード', message: RULE_MSG.missingHeader('キーワード') },
    ]);
    assert.match(problems[0].message, /見出し「キーワード」がありません/);
    assert.equal(parseRules([]).problems.length, 4);
  });

  const cases: Array<[string, Cells, string, string]> = [
    [
      'unknown 一致方法',
      { 一致方法: '含む' },
      '一致方法',
      'ルール 2行目: 一致方法「含む」は使えません。完全一致・部分一致・前方一致・後方一致・正規表現 から選んでください。',
    ],
    ['empty 一致方法', { 一致方法: '' }, '一致方法', RULE_MSG.emptyMatchType(2)],
    ['empty キーワード', { キーワード: '  ' }, 'キーワード', RULE_MSG.emptyKeyword(2)],
    [
      'invalid regular expression',
      { 一致方法: '正規表現', キーワード: '(ｱﾏｿﾞﾝ' },
      'キーワード',
      RULE_MSG.badRegex(2, '(ｱﾏｿﾞﾝ'),
    ],
    ['non-numeric 優先度', { 優先度: '高' }, '優先度', RULE_MSG.badPriority(2, '高')],
    ['empty 優先度', { 優先度: '' }, '優先度', RULE_MSG.emptyPriority(2)],
    ['non-numeric 金額下限', { 金額下限: '千円' }, '金額下限', RULE_MSG.badAmount(2, '金額下限', '千円')],
    [
      'non-numeric 金額上限',
      { 金額上限: 'たくさん' },
      '金額上限',
      RULE_MSG.badAmount(2, '金額上限', 'たくさん'),
    ],
    [
      '金額下限 > 金額上限',
      { 金額下限: 5000, 金額上限: 1000 },
      '金額下限',
      RULE_MSG.amountRange(2, 5000, 1000),
    ],
    ['unknown 入出金', { 入出金: '支払' }, '入出金', RULE_MSG.badDirection(2, '支払')],
    ['empty 勘定科目', { 勘定科目: '' }, '勘定科目', RULE_MSG.emptyAccount(2)],
    ['unknown 自動承認', { 自動承認: 'する' }, '自動承認', RULE_MSG.badAutoApprove(2, 'する')],
    ['unknown 有効', { 有効: '○' }, '有効', RULE_MSG.badEnabled(2, '○')],
  ];
  for (const [name, cells, column, message] of cases) {
    test(`reports ${name} naming the row, and does not use the rule`, () => {
      const { rules, problems } = parseOne(cells);
      assert.deepEqual(rules, []);
      assert.deepEqual(problems, [{ rowNumber: 2, column, message }]);
      assert.match(message, /^ルール 2行目: /);
    });
  }

  test('the messages name the value and say what to do', () => {
    assert.equal(
      RULE_MSG.amountRange(5, 5000, 1000),
      'ルール 5行目: 金額下限（5,000円）が金額上限（1,000円）より大きいため、どの明細にも当てはまりません。2つの値を入れ替えてください。',
    );
    assert.match(RULE_MSG.badPriority(7, '高'), /^ルール 7行目: 優先度「高」が数字ではありません。/);
    assert.match(RULE_MSG.badRegex(3, '(a'), /「\(a」は正規表現として正しくありません/);
  });

  test('reports every problem of a row, rows by their own number, and keeps the good rows', () => {
    const { rules, problems } = parseRules(
      sheet([
        { キーワード: 'good' },
        { 一致方法: 'x', 勘定科目: '', 金額下限: 'y' },
        { キーワード: 'also good' },
      ]),
    );
    assert.deepEqual(
      rules.map((r) => r.keyword),
      ['good', 'also good'],
    );
    assert.deepEqual(
      problems.map((p) => [p.rowNumber, p.column]),
      [
        [3, '一致方法'],
        [3, '金額下限'],
        [3, '勘定科目'],
      ],
    );
  });

  test('reads 全角 and formatted numbers', () => {
    const [rule] = rulesOf([{ 優先度: '３', 金額下限: '１，０００円', 金額上限: '¥12,345' }]);
    assert.deepEqual([rule.priority, rule.minAmount, rule.maxAmount], [3, 1000, 12345]);
  });

  test('a 金額下限 equal to the 金額上限 is fine', () => {
    assert.equal(rulesOf([{ 金額下限: 1000, 金額上限: 1000 }]).length, 1);
  });
});

describe('matchRule: keyword', () => {
  test('部分一致 matches half-width kana against a full-width keyword and the reverse', () => {
    assert.ok(matches({ キーワード: 'アマゾン' }, { description: 'ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ' }));
    assert.ok(matches({ キーワード: 'ｱﾏｿﾞﾝ' }, { description: 'カード　アマゾン　ジャパン' }));
    assert.ok(!matches({ キーワード: 'アマゾン' }, { description: 'ﾗｸﾃﾝ ｲﾁﾊﾞ' }));
  });

  test('ignores case and 全角 letters; spaces are collapsed', () => {
    assert.ok(matches({ キーワード: 'amazon' }, { description: 'ＡＭＡＺＯＮ．ＣＯ．ＪＰ' }));
    assert.ok(matches({ キーワード: 'ＡＭＡＺＯＮ' }, { description: 'Amazon Mktplace' }));
    assert.ok(matches({ キーワード: 'amazon  mk' }, { description: 'AMAZON　　MKTPLACE' }));
  });

  test('完全一致 needs the whole description', () => {
    const cells = { 一致方法: '完全一致', キーワード: 'ﾃﾞﾝｷﾀﾞｲ' };
    assert.ok(matches(cells, { description: 'デンキダイ' }));
    assert.ok(matches(cells, { description: '  ﾃﾞﾝｷﾀﾞｲ ' }));
    assert.ok(!matches(cells, { description: 'デンキダイ 10月' }));
    assert.ok(!matches(cells, { description: '10月 デンキダイ' }));
  });

  test('前方一致 and 後方一致', () => {
    const prefix = { 一致方法: '前方一致', キーワード: 'ﾌﾘｺﾐ' };
    assert.ok(matches(prefix, { description: 'フリコミ ヤマダ' }));
    assert.ok(!matches(prefix, { description: 'ヤマダ フリコミ' }));
    const suffix = { 一致方法: '後方一致', キーワード: 'ﾃｽｳﾘｮｳ' };
    assert.ok(matches(suffix, { description: 'フリコミ テスウリョウ' }));
    assert.ok(!matches(suffix, { description: 'テスウリョウ フリコミ' }));
  });

  test('正規表現 runs on the NFKC description, case-insensitive, pattern in any width', () => {
    assert.ok(
      matches({ 一致方法: '正規表現', キーワード: '^ｱﾏｿﾞﾝ|^楽天' }, { description: 'アマゾン ジャパン' }),
    );
    assert.ok(matches({ 一致方法: '正規表現', キーワード: '^ｱﾏｿﾞﾝ|^楽天' }, { description: '楽天市場' }));
    assert.ok(!matches({ 一致方法: '正規表現', キーワード: '^ｱﾏｿﾞﾝ' }, { description: 'カード アマゾン' }));
    assert.ok(
      matches({ 一致方法: '正規表現', キーワード: 'amazon\\s*mkt' }, { description: 'ＡＭＡＺＯＮ　ＭＫＴ' }),
    );
    assert.ok(matches({ 一致方法: '正規表現', キーワード: 'ｶｰﾄﾞ\\d{4}$' }, { description: 'カード１２３４' }));
    assert.ok(!matches({ 一致方法: '正規表現', キーワード: 'ｶｰﾄﾞ\\d{4}$' }, { description: 'カード12345X' }));
  });

  test('a regular expression keeps no state between lines (no g flag)', () => {
    const rules = rulesOf([{ 一致方法: '正規表現', キーワード: 'ｱﾏｿﾞﾝ' }]);
    for (let i = 0; i < 3; i++) assert.ok(matchRule(rules, line({ description: 'アマゾン' })));
  });

  test('only the first REGEX_INPUT_LIMIT characters are searched by a regular expression', () => {
    const long = `${'x'.repeat(REGEX_INPUT_LIMIT + 100)}ｱﾏｿﾞﾝ`;
    assert.ok(!matches({ 一致方法: '正規表現', キーワード: 'ｱﾏｿﾞﾝ' }, { description: long }));
    assert.ok(matches({ 一致方法: '後方一致', キーワード: 'ｱﾏｿﾞﾝ' }, { description: long }));
  });
});

describe('matchRule: conditions', () => {
  test('入出金 filters; empty means both', () => {
    assert.ok(matches({ 入出金: '出金' }, { direction: '出金' }));
    assert.ok(!matches({ 入出金: '出金' }, { direction: '入金' }));
    assert.ok(matches({ 入出金: '入金' }, { direction: '入金' }));
    assert.ok(matches({ 入出金: '' }, { direction: '入金' }));
    assert.ok(matches({ 入出金: '' }, { direction: '出金' }));
  });

  test('amount bounds are inclusive and open when empty', () => {
    const cells = { 金額下限: 1000, 金額上限: 5000 };
    assert.ok(matches(cells, { amount: 1000 }));
    assert.ok(matches(cells, { amount: 5000 }));
    assert.ok(!matches(cells, { amount: 999 }));
    assert.ok(!matches(cells, { amount: 5001 }));
    assert.ok(matches({ 金額下限: 1000 }, { amount: 10_000_000 }));
    assert.ok(matches({ 金額上限: 1000 }, { amount: 1 }));
    assert.ok(!matches({ 金額下限: 1 }, { amount: Number.NaN }));
    assert.ok(matches({}, { amount: Number.NaN }));
  });

  test('口座 filters by normalised name; a comma-separated list; empty means all', () => {
    assert.ok(matches({ 口座: '三井住友銀行' }, { account: '三井住友銀行' }));
    assert.ok(matches({ 口座: 'ﾐｽﾞﾎ銀行' }, { account: 'ミズホ銀行' }));
    assert.ok(!matches({ 口座: '三井住友銀行' }, { account: 'みずほ銀行' }));
    assert.ok(matches({ 口座: 'みずほ銀行, 三井住友銀行' }, { account: '三井住友銀行' }));
    assert.ok(matches({ 口座: 'みずほ銀行、三井住友銀行' }, { account: '三井住友銀行' }));
    assert.ok(matches({ 口座: 'みずほ銀行，楽天カード' }, { account: '楽天カード' }));
    assert.ok(!matches({ 口座: 'みずほ銀行, 楽天カード' }, { account: '三井住友銀行' }));
    assert.ok(matches({ 口座: '' }, { account: 'どこでも' }));
    assert.equal(rulesOf([{ 口座: ' , ' }])[0].account, null);
  });

  test('the first enabled rule by priority wins; ties go to the upper row', () => {
    const rules = rulesOf([
      { 優先度: 20, キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '雑費' },
      { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '消耗品費', 有効: false },
      { 優先度: 15, キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '新聞図書費' },
      { 優先度: 15, キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '通信費' },
    ]);
    assert.equal(matchRule(rules, line())?.勘定科目, '新聞図書費');
    // Order of the array does not matter.
    assert.equal(matchRule([...rules].reverse(), line())?.勘定科目, '新聞図書費');
    // A more specific rule with a lower priority number wins over a general one.
    const specific = rulesOf([
      { 優先度: 100, キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '消耗品費' },
      { 優先度: 1, キーワード: 'ｱﾏｿﾞﾝ', 金額下限: 100000, 勘定科目: '工具器具備品' },
    ]);
    assert.equal(matchRule(specific, line({ amount: 150000 }))?.勘定科目, '工具器具備品');
    assert.equal(matchRule(specific, line({ amount: 1500 }))?.勘定科目, '消耗品費');
  });

  test('disabled rules never match', () => {
    assert.ok(!matches({ 有効: false }));
    assert.ok(!matches({ 有効: '' }));
    assert.equal(matchRule([], line()), null);
  });
});

describe('regular expression safety', () => {
  const refused: Array<[string, string]> = [
    ['(a+)+$', 'nested'],
    ['(a*)*b', 'nested'],
    ['(a|a)*x', 'nested'],
    ['(a|aa)+$', 'nested'],
    ['(.*a){10}', 'nested'],
    ['(?:x?)+y', 'nested'],
    ['((ab)*c)+', 'nested'],
    ['(a)\\1', 'backreference'],
    ['(?<n>a)\\k<n>', 'backreference'],
    ['.*.*.*x', 'too-complex'],
    ['a*a*a*a*a*b', 'too-complex'],
    ['.{0,50}.*.*x', 'too-complex'],
    [`.*.*a{0,${'9'.repeat(60)}}`, 'too-complex'],
  ];
  for (const [pattern, risk] of refused) {
    test(`refuses ${pattern} (${risk})`, () => {
      assert.equal(regexRisk(pattern), risk);
      const { rules, problems } = parseOne({ 一致方法: '正規表現', キーワード: pattern });
      assert.deepEqual(rules, []);
      assert.equal(problems.length, 1);
      assert.equal(problems[0].column, 'キーワード');
      assert.match(problems[0].message, /^ルール 2行目: 正規表現「.*」.*処理に時間がかかるおそれがあ/);
    });
  }

  const accepted = [
    'ｱﾏｿﾞﾝ',
    '^(ｱﾏｿﾞﾝ|AMAZON)',
    'ｱﾏｿﾞﾝ.*ﾏｰｹｯﾄ',
    'ｶｰﾄﾞ\\s*\\d+',
    '\\d{4}-\\d{2}-\\d{2}',
    '(ab){3}c',
    '[a-z(+*]+x',
    '(a+)?b',
    'x{,3}',
    '(?=.*ｱﾏｿﾞﾝ)',
    '\\(ｶ\\)',
  ];
  for (const pattern of accepted) {
    test(`accepts ${pattern}`, () => {
      assert.equal(regexRisk(pattern), null);
      assert.equal(parseOne({ 一致方法: '正規表現', キーワード: pattern }).problems.length, 0);
    });
  }

  test('a hostile pattern built by hand (not through parseRules) never runs', () => {
    const [rule] = rulesOf([{ 一致方法: '正規表現', キーワード: 'ok' }]);
    const hostile: Rule = { ...rule, keyword: '(a+)+$' };
    const started = Date.now();
    assert.equal(matchRule([hostile], line({ description: `${'a'.repeat(5000)}!` })), null);
    // Run, (a+)+$ on 5,000 characters would not finish at all; the bound is only that.
    assert.ok(Date.now() - started < 2_000);
  });

  test('the slowest accepted shape stays fast on a very long hostile description', () => {
    const rules = rulesOf([
      { 一致方法: '正規表現', キーワード: '.*.*x' },
      { 一致方法: '正規表現', キーワード: 'a*a+x' },
    ]);
    const started = Date.now();
    assert.equal(matchRule(rules, line({ description: 'a'.repeat(100_000) })), null);
    // ~0.3 s on an idle machine; the bound only separates "linear-ish" from a backtracking blow-up (minutes),
    // so a loaded CI machine does not fail it.
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  });

  test('property: every pattern regexRisk accepts runs fast on the capped input', () => {
    const pieces = [
      'a',
      'x',
      '.',
      '*',
      '+',
      '?',
      '(',
      ')',
      '(?:',
      '|',
      '{2}',
      '{1,3}',
      '{2,}',
      '[ab]',
      '\\d',
      '^',
      '$',
    ];
    const attempt = 'a'.repeat(REGEX_INPUT_LIMIT);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const pattern = parts.join('');
        let regex: RegExp;
        try {
          regex = new RegExp(pattern, 'i');
        } catch {
          return; // invalid patterns are refused by parseRules before regexRisk
        }
        if (regexRisk(pattern) !== null) return;
        const started = Date.now();
        regex.test(attempt);
        regex.test(`${attempt.slice(1)}!`);
        const took = Date.now() - started;
        assert.ok(took < 3_000, `${pattern} took ${took} ms`);
      }),
      { numRuns: 400 },
    );
  });
});

describe('diagnoseRules', () => {
  const note = (rules: Rule[]) => diagnoseRules(rules).map((n) => n.rowNumber);

  test('notes a later rule with the same match type and keyword and no wider conditions', () => {
    const rules = rulesOf([
      { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ' },
      { 優先度: 20, キーワード: 'アマゾン', 入出金: '出金', 金額下限: 100 },
    ]);
    const notes = diagnoseRules(rules);
    assert.deepEqual(notes, [{ rowNumber: 3, message: RULE_MSG.shadowed(3, 2, 10) }]);
    assert.match(notes[0].message, /^ルール 3行目は、先に調べられるルール 2行目（優先度 10）と/);
  });

  test('a narrower earlier rule does not shadow a wider later one', () => {
    assert.deepEqual(
      note(
        rulesOf([
          { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ', 入出金: '出金' },
          { 優先度: 20, キーワード: 'ｱﾏｿﾞﾝ' },
        ]),
      ),
      [],
    );
    assert.deepEqual(
      note(
        rulesOf([
          { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ', 金額上限: 1000 },
          { 優先度: 20, キーワード: 'ｱﾏｿﾞﾝ', 金額上限: 5000 },
        ]),
      ),
      [],
    );
    assert.deepEqual(
      note(
        rulesOf([
          { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ', 口座: 'A' },
          { 優先度: 20, キーワード: 'ｱﾏｿﾞﾝ', 口座: 'A, B' },
        ]),
      ),
      [],
    );
    assert.deepEqual(
      note(
        rulesOf([
          { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ', 口座: 'A, B' },
          { 優先度: 20, キーワード: 'ｱﾏｿﾞﾝ', 口座: 'B' },
        ]),
      ),
      [3],
    );
  });

  test('a contained keyword shadows longer keywords; disabled rules shadow nothing', () => {
    assert.deepEqual(
      note(
        rulesOf([
          { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ' },
          { 優先度: 20, 一致方法: '完全一致', キーワード: 'アマゾンジャパン' },
          { 優先度: 30, 一致方法: '前方一致', キーワード: 'ﾗｸﾃﾝ' },
          { 優先度: 40, 一致方法: '前方一致', キーワード: 'ﾗｸﾃﾝｶｰﾄﾞ' },
          { 優先度: 50, 一致方法: '後方一致', キーワード: 'ﾗｸﾃﾝ' },
        ]),
      ),
      [3, 5],
    );
    assert.deepEqual(
      note(
        rulesOf([
          { 優先度: 10, キーワード: 'ｱﾏｿﾞﾝ', 有効: false },
          { 優先度: 20, キーワード: 'ｱﾏｿﾞﾝ' },
        ]),
      ),
      [],
    );
  });

  test('regular expressions: only an identical pattern is reported', () => {
    assert.deepEqual(
      note(
        rulesOf([
          { 優先度: 10, 一致方法: '正規表現', キーワード: '^ｱﾏｿﾞﾝ' },
          { 優先度: 20, 一致方法: '正規表現', キーワード: '^アマゾン' },
          { 優先度: 30, 一致方法: '正規表現', キーワード: '^ｱﾏｿﾞﾝ.*' },
          { 優先度: 40, 一致方法: '前方一致', キーワード: 'ｱﾏｿﾞﾝ' },
        ]),
      ),
      [3],
    );
  });

  test('property: a rule reported as shadowed is never the rule matchRule picks', () => {
    const words = ['ｱ', 'ア', 'ｲ', 'a', 'A', 'ab', 'ｱｲ'];
    const cellsArb: fc.Arbitrary<Cells> = fc.record({
      優先度: fc.integer({ min: 1, max: 4 }),
      一致方法: fc.constantFrom<MatchType>(...MATCH_TYPES),
      キーワード: fc.constantFrom(...words),
      入出金: fc.constantFrom('', '入金', '出金'),
      金額下限: fc.constantFrom('', 1, 5),
      金額上限: fc.constantFrom('', 5, 9),
      口座: fc.constantFrom('', 'A', 'B', 'A,B'),
      有効: fc.boolean(),
    });
    const lineArb: fc.Arbitrary<RuleLine> = fc.record({
      description: fc.array(fc.constantFrom(...words, ' '), { maxLength: 4 }).map((p) => p.join('')),
      direction: fc.constantFrom('入金', '出金'),
      amount: fc.integer({ min: 0, max: 10 }),
      account: fc.constantFrom('A', 'B', 'C'),
    });
    fc.assert(
      fc.property(
        fc.array(cellsArb, { maxLength: 6 }),
        fc.array(lineArb, { maxLength: 10 }),
        (cells, lines) => {
          const valid = cells.filter((c) => !(Number(c.金額下限) > Number(c.金額上限) && c.金額上限 !== ''));
          const rules = rulesOf(valid);
          const shadowed = new Set(diagnoseRules(rules).map((n) => n.rowNumber));
          for (const l of lines) {
            const picked = matchRule(rules, l);
            if (picked)
              assert.ok(!shadowed.has(picked.rowNumber), `row ${picked.rowNumber} was reported shadowed`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

test('a rule naming an account also matches that account’s sub-accounts in the 台帳 (口座 "<account> <sub>")', async () => {
  const { parseRules, matchRule } = await import('../../src/core/rules');
  const { rules } = parseRules([
    ['優先度', '一致方法', 'キーワード', '口座', '勘定科目', '有効'],
    [1, '部分一致', 'ｱﾏｿﾞﾝ', '三井住友銀行', '消耗品費', true],
  ]);
  const line = { description: 'ｱﾏｿﾞﾝ', direction: '出金', amount: 100 };
  assert.ok(matchRule(rules, { ...line, account: '三井住友銀行 代表口座' }));
  assert.ok(matchRule(rules, { ...line, account: '三井住友銀行' }));
  assert.equal(matchRule(rules, { ...line, account: '三井住友銀行カード' }), null);
});
