import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CLASSIFY_MSG, classifyRows } from '../../src/core/classify';
import type { LedgerRecord, LedgerRow, RowChange } from '../../src/core/ledger';
import { EMPTY_MASTERS, type Masters } from '../../src/core/masters';
import { parseRules, type Rule } from '../../src/core/rules';
import { RULE_HEADERS } from '../../src/core/schema';
import { STATES } from '../../src/core/states';
import { ledgerRecord } from '../helpers/fixtures';

const NOW = '2026-12-01T09:00:00.000Z';

const MASTERS: Masters = {
  accounts: [
    { id: 'a1', name: '消耗品費', available: true, subAccounts: [{ id: 's1', name: '事務用品' }] },
    { id: 'a2', name: '旅費交通費', available: true, subAccounts: [] },
    { id: 'a3', name: '諸会費', available: false, subAccounts: [] },
  ],
  taxes: [{ id: 't1', name: '課税仕入 10%', available: true }],
  partners: [{ code: 'P001', name: 'アマゾンジャパン', available: true }],
  connectedAccounts: [],
  fetchedAt: '2026-11-30T00:00:00Z',
};

type RuleCells = Partial<Record<(typeof RULE_HEADERS)[number], unknown>>;

function rules(rows: RuleCells[]): Rule[] {
  const defaults: RuleCells = { 優先度: 10, 一致方法: '部分一致', 自動承認: 'はい', 有効: true };
  const values = [
    RULE_HEADERS.slice(),
    ...rows.map((r) => RULE_HEADERS.map((h) => ({ ...defaults, ...r })[h] ?? '')),
  ];
  const parsed = parseRules(values);
  assert.deepEqual(parsed.problems, []);
  return parsed.rules;
}

const RULES = rules([
  {
    優先度: 10,
    キーワード: 'ｱﾏｿﾞﾝ',
    勘定科目: '消耗品費',
    補助科目: '事務用品',
    税区分: '課税仕入 10%',
    取引先: 'アマゾンジャパン',
  },
  { 優先度: 20, キーワード: 'JR', 勘定科目: '旅費交通費', 自動承認: 'いいえ' },
  { 優先度: 30, キーワード: 'ｼｮｳﾋﾝ', 勘定科目: '消耗品', 自動承認: 'はい' },
  { 優先度: 40, キーワード: 'ﾀｸｼｰ', 勘定科目: '旅費交通費', 税区分: '課税仕入 10%' },
]);

function record(over: Partial<LedgerRecord> = {}): LedgerRecord {
  return ledgerRecord({
    初回検知: '2026-11-30T00:00:00.000Z',
    更新日時: '2026-11-30T00:00:00.000Z',
    ...over,
  });
}

const row = (over: Partial<LedgerRecord> = {}, rowNumber = 2): LedgerRow => ({
  rowNumber,
  record: record(over),
});

function one(over: Partial<LedgerRecord>, ruleList: Rule[] = RULES, masters: Masters = MASTERS): RowChange {
  const changes = classifyRows([row(over)], ruleList, masters, NOW);
  assert.equal(changes.length, 1);
  return changes[0];
}

function apply(rows: readonly LedgerRow[], changes: readonly RowChange[]): LedgerRow[] {
  return rows.map((r) => {
    const patches = changes.filter((c) => c.rowNumber === r.rowNumber).map((c) => c.patch);
    return { rowNumber: r.rowNumber, record: Object.assign({}, r.record, ...patches) };
  });
}

describe('classifyRows: a matching rule', () => {
  test('auto-approve and every name resolves → 送信待ち with the rule names, source and reason', () => {
    const change = one({});
    assert.deepEqual(change, {
      key: 'mf:tx-1',
      rowNumber: 2,
      patch: {
        勘定科目: '消耗品費',
        補助科目: '事務用品',
        税区分: '課税仕入 10%',
        取引先: 'アマゾンジャパン',
        状態: '送信待ち',
        判定元: 'ルール#10',
        判定根拠:
          'ルール#10: 摘要が「ｱﾏｿﾞﾝ」を含む → 消耗品費（補助科目 事務用品、税区分 課税仕入 10%、取引先 アマゾンジャパン）',
        更新日時: NOW,
      },
    });
  });

  test('an old メモ is cleared when the row is approved', () => {
    assert.equal(one({ メモ: '前回の警告' }).patch.メモ, '');
  });

  test('no auto-approve → 要確認 with the rule names and a メモ asking to approve', () => {
    const change = one({ 摘要: 'JR ﾋｶﾞｼﾆﾎﾝ' });
    assert.equal(change.patch.状態, '要確認');
    assert.equal(change.patch.勘定科目, '旅費交通費');
    assert.equal(change.patch.判定元, 'ルール#20');
    assert.equal(change.patch.メモ, CLASSIFY_MSG.reviewRule('ルール#20'));
    assert.match(String(change.patch.メモ), /「承認」を選んでください/);
  });

  test('a name missing from the masters → 要確認 with the problem in メモ, even with auto-approve', () => {
    const change = one({ 摘要: 'ｼｮｳﾋﾝ ﾀﾞｲ' });
    assert.equal(change.patch.状態, '要確認');
    assert.equal(change.patch.勘定科目, '消耗品');
    assert.equal(change.patch.判定元, 'ルール#30');
    assert.match(String(change.patch.メモ), /^勘定科目「消耗品」がマスタにありません。/);
  });

  test('an account stopped in MF → 要確認', () => {
    const list = rules([{ キーワード: 'ｶｲﾋ', 勘定科目: '諸会費' }]);
    const change = one({ 摘要: 'ｶｲﾋ' }, list);
    assert.equal(change.patch.状態, '要確認');
    assert.match(String(change.patch.メモ), /使用停止/);
  });

  test('masters never fetched → 要確認 with a メモ saying so', () => {
    const change = one({}, RULES, EMPTY_MASTERS);
    assert.equal(change.patch.状態, '要確認');
    assert.equal(change.patch.勘定科目, '消耗品費');
    assert.equal(change.patch.判定元, 'ルール#10');
    assert.equal(
      change.patch.メモ,
      'マスタがまだ取得されていません。メニュー「初期設定」を実行してください。',
    );
  });

  test('names the rule leaves empty keep what the row has', () => {
    const change = one({ 摘要: 'ﾀｸｼｰ', 取引先: '日本交通' }, RULES, {
      ...MASTERS,
      partners: [...MASTERS.partners, { code: 'P002', name: '日本交通', available: true }],
    });
    assert.equal(change.patch.状態, '送信待ち');
    assert.equal(change.patch.勘定科目, '旅費交通費');
    assert.equal('取引先' in change.patch, false);
  });

  test('a 勘定科目 a person already entered is never overwritten by a rule', () => {
    const change = one({ 勘定科目: '旅費交通費', 取引先: '' });
    assert.deepEqual(change.patch, {
      状態: '要確認',
      メモ: CLASSIFY_MSG.keptInput('旅費交通費', 'ルール#10'),
      更新日時: NOW,
    });
    const unknown = one({ 勘定科目: '交際' });
    assert.equal(unknown.patch.状態, '要確認');
    assert.match(
      String(unknown.patch.メモ),
      /勘定科目「交際」が入力済みのため.*勘定科目「交際」がマスタにありません/,
    );
  });

  test('bad 入出金 or 金額 → 要確認 even when the rule auto-approves', () => {
    const direction = one({ 入出金: '' });
    assert.equal(direction.patch.状態, '要確認');
    assert.equal(direction.patch.メモ, CLASSIFY_MSG.badDirection(''));
    for (const amount of [0, -5, 1.5, 'abc']) {
      const change = one({ 金額: amount });
      assert.equal(change.patch.状態, '要確認', String(amount));
      assert.equal(change.patch.メモ, CLASSIFY_MSG.badAmount(String(amount)));
    }
  });

  test('direction, amount and account of the row are matched', () => {
    const list = rules([
      { 優先度: 1, キーワード: 'ｱﾏｿﾞﾝ', 入出金: '入金', 勘定科目: '旅費交通費' },
      { 優先度: 2, キーワード: 'ｱﾏｿﾞﾝ', 金額下限: 10000, 勘定科目: '旅費交通費' },
      { 優先度: 3, キーワード: 'ｱﾏｿﾞﾝ', 口座: 'ﾗｸﾃﾝｶｰﾄﾞ', 勘定科目: '旅費交通費' },
      { 優先度: 4, キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '消耗品費' },
    ]);
    assert.equal(one({}, list).patch.判定元, 'ルール#4');
    assert.equal(one({ 入出金: '入金' }, list).patch.判定元, 'ルール#1');
    assert.equal(one({ 金額: 10000 }, list).patch.判定元, 'ルール#2');
    assert.equal(one({ 口座: 'ラクテンカード' }, list).patch.判定元, 'ルール#3');
  });
});

describe('classifyRows: no rule', () => {
  test('→ 要確認 with the no-rule メモ', () => {
    const change = one({ 摘要: 'ﾌﾒｲ ﾃﾞｽ' });
    assert.deepEqual(change.patch, {
      状態: '要確認',
      メモ: '当てはまるルールがありません。勘定科目を入力して「承認」を選ぶか、ルールを追加してください。',
      更新日時: NOW,
    });
  });

  test('keeps what a person entered', () => {
    const change = one({ 摘要: 'ﾌﾒｲ', 勘定科目: '消耗品費', 税区分: '課税仕入 10%' });
    assert.equal(change.patch.状態, '要確認');
    for (const h of ['勘定科目', '補助科目', '税区分', '取引先', '判定元', '判定根拠'] as const) {
      assert.equal(h in change.patch, false, h);
    }
  });

  test('disabled rules are not used', () => {
    const list = rules([{ キーワード: 'ｱﾏｿﾞﾝ', 勘定科目: '消耗品費', 有効: false }]);
    assert.equal(one({}, list).patch.メモ, CLASSIFY_MSG.noRule);
    assert.equal(one({}, []).patch.メモ, CLASSIFY_MSG.noRule);
  });
});

describe('classifyRows: what is left alone', () => {
  test('rows in every state other than 未判定 are never changed', () => {
    const others = STATES.filter((s) => s !== '未判定');
    const rows = others.map((s, i) => row({ 状態: s, キー: `k${i}` }, i + 2));
    assert.deepEqual(classifyRows(rows, RULES, MASTERS, NOW), []);
    assert.deepEqual(classifyRows([row({ 状態: '' })], RULES, MASTERS, NOW), []);
  });

  test('classifies only the 未判定 rows of a mixed ledger, keeping key and row number', () => {
    const rows = [
      row({ キー: 'a', 状態: '完了', MF仕訳ID: 'j1' }, 2),
      row({ キー: 'b' }, 3),
      row({ キー: 'c', 状態: '要確認', 勘定科目: '旅費交通費' }, 4),
      row({ キー: 'd', 摘要: 'ﾌﾒｲ' }, 5),
    ];
    const changes = classifyRows(rows, RULES, MASTERS, NOW);
    assert.deepEqual(
      changes.map((c) => [c.key, c.rowNumber, c.patch.状態]),
      [
        ['b', 3, '送信待ち'],
        ['d', 5, '要確認'],
      ],
    );
  });

  test('returns only fields that change, and does not mutate its input', () => {
    const input = [row({ 勘定科目: '', 判定元: '', メモ: '' })];
    const snapshot = structuredClone(input);
    const [change] = classifyRows(input, RULES, MASTERS, NOW);
    assert.deepEqual(input, snapshot);
    assert.equal('メモ' in change.patch, false);
  });

  test('is deterministic', () => {
    const rows = [row({ キー: 'a' }, 2), row({ キー: 'b', 摘要: 'JR' }, 3), row({ キー: 'c', 摘要: '?' }, 4)];
    assert.deepEqual(classifyRows(rows, RULES, MASTERS, NOW), classifyRows(rows, RULES, MASTERS, NOW));
  });
});

describe('classifyRows: properties', () => {
  const rowArb: fc.Arbitrary<LedgerRecord> = fc
    .record({
      状態: fc.constantFrom(...STATES, '未判定', '未判定'),
      入出金: fc.constantFrom('入金', '出金', '', '振替'),
      金額: fc.oneof(fc.integer({ min: -10, max: 20000 }), fc.constant('abc')),
      摘要: fc.constantFrom('ｱﾏｿﾞﾝ', 'アマゾン ジャパン', 'JR', 'ﾀｸｼｰ', 'ｼｮｳﾋﾝ', '不明', ''),
      口座: fc.constantFrom('三井住友銀行', '楽天カード'),
      勘定科目: fc.constantFrom('', '', '消耗品費', '交際'),
      補助科目: fc.constantFrom('', '事務用品'),
      取引先: fc.constantFrom('', 'アマゾンジャパン', '謎'),
      メモ: fc.constantFrom('', '前回のメモ'),
    })
    .map((r) => record(r as Partial<LedgerRecord>));
  const rowsArb = fc
    .array(rowArb, { maxLength: 12 })
    .map((records) => records.map((r, i) => ({ rowNumber: i + 2, record: { ...r, キー: `k${i}` } })));
  const mastersArb = fc.constantFrom(MASTERS, EMPTY_MASTERS);

  test('never changes a row that is not 未判定, and every 未判定 row leaves 未判定', () => {
    fc.assert(
      fc.property(rowsArb, mastersArb, (rows, masters) => {
        const changes = classifyRows(rows, RULES, masters, NOW);
        const changed = new Set(changes.map((c) => c.rowNumber));
        for (const r of rows) {
          if (r.record.状態 !== '未判定') assert.ok(!changed.has(r.rowNumber));
          else assert.ok(changed.has(r.rowNumber));
        }
        for (const c of changes) {
          assert.ok(c.patch.状態 === '送信待ち' || c.patch.状態 === '要確認');
          assert.equal(c.patch.更新日時, NOW);
          // A person's 勘定科目 is never replaced.
          const before = rows.find((r) => r.rowNumber === c.rowNumber)?.record;
          if (before && before.勘定科目 !== '') assert.equal('勘定科目' in c.patch, false);
          // 送信待ち only with names that resolve and a rule that auto-approves.
          if (c.patch.状態 === '送信待ち') assert.equal(masters, MASTERS);
        }
      }),
    );
  });

  test('is idempotent: classifying the result again yields no changes', () => {
    fc.assert(
      fc.property(rowsArb, mastersArb, (rows, masters) => {
        const once = apply(rows, classifyRows(rows, RULES, masters, NOW));
        assert.deepEqual(classifyRows(once, RULES, masters, '2027-01-01T00:00:00.000Z'), []);
      }),
    );
  });
});
