/** A CSV's running balance (src/core/csv/balances) and the 残高照合 table (src/core/balances). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  balanceFromTrialBalance,
  balanceRecords,
  differenceSeries,
  emptyBalanceRecord,
  monthEndsBetween,
  type TbLike,
  withStatementBalances,
} from '../../src/core/balances';
import { balanceBreaks, monthEndBalances } from '../../src/core/csv/balances';
import { readCsv } from '../../src/core/csv/intake';
import type { OwnAccount } from '../../src/core/own-accounts';
import { ledgerRecord } from '../helpers/fixtures';

function lines(csv: string) {
  return readCsv(csv, '信金').lines;
}

describe('running balances in a CSV', () => {
  test('the 残高 column is found by its header and read per line; a file without one has none', () => {
    const r = readCsv('日付,摘要,出金,入金,差引残高\n2026/4/1,a,,100,"1,100"\n', '信金');
    assert.equal(r.lines[0].balance, 1_100);
    assert.equal(readCsv('日付,摘要,出金,入金\n2026/4/1,a,,100\n', '信金').lines[0].balance, null);
    // Chosen by hand in the dialog (1-based column).
    const custom = readCsv('2026/4/1,a,-100,900\n', '信金', {
      preset: 'custom',
      date: 1,
      description: 2,
      amount: 3,
      balance: 4,
      header: false,
    });
    assert.equal(custom.lines[0].balance, 900);
  });

  test('consistent balances give no break, oldest first or newest first', () => {
    const csv = '日付,摘要,出金,入金,残高\n2026/4/1,a,,100,100\n2026/4/2,b,30,,70\n2026/4/3,c,,5,75\n';
    assert.deepEqual(balanceBreaks(lines(csv)), []);
    const [head, ...rest] = csv.trim().split('\n');
    assert.deepEqual(balanceBreaks(lines([head, ...rest.reverse()].join('\n'))), []);
  });

  test('a missing line and a repeated line, by file line number', () => {
    const csv = [
      '日付,摘要,出金,入金,残高',
      '2026/4/1,a,,1000,1000',
      '2026/4/3,c,200,,500',
      '2026/4/3,c,200,,500',
      '2026/4/4,d,,50,550',
    ].join('\n');
    const b = balanceBreaks(lines(csv));
    assert.deepEqual(
      b.map((x) => [x.line, x.previousLine, x.kind, x.expected, x.actual]),
      [
        [3, 2, 'missing', 800, 500],
        [4, 3, 'duplicated', 300, 500],
      ],
    );
    assert.match(b[0].message, /300 円の出金の明細が抜けている/);
  });

  test('month-end balances: the last line of each month; complete only when the file goes past it', () => {
    const csv = '日付,摘要,出金,入金,残高\n2026/4/30,a,,100,100\n2026/5/2,b,,1,101\n2026/5/20,c,,1,102\n';
    assert.deepEqual(monthEndBalances(lines(csv)), [
      { monthEnd: '2026-04-30', balance: 100, asOf: '2026-04-30', complete: true },
      { monthEnd: '2026-05-31', balance: 102, asOf: '2026-05-20', complete: false },
    ]);
  });
});

const TB: TbLike = {
  columns: ['opening_balance', 'debit_amount', 'credit_amount', 'closing_balance', 'ratio'],
  rows: [
    {
      name: '資産の部合計',
      type: 'assets',
      values: [],
      rows: [
        {
          name: '普通預金',
          type: 'account',
          values: [0, 0, 0, 1_500, null],
          rows: [{ name: '三井住友銀行', type: 'sub_account', values: [0, 0, 0, 1_000, null], rows: null }],
        },
      ],
    },
    {
      name: '負債・純資産の部合計',
      type: 'liabilities_net_assets',
      values: [],
      rows: [
        {
          name: '負債の部合計',
          type: 'liabilities',
          values: [],
          rows: [{ name: '未払金', type: 'account', values: [0, 0, 0, 300, null], rows: [] }],
        },
      ],
    },
  ],
};

describe('reading the trial balance', () => {
  test('by name: a sub-account, the part of an account on no sub-account, a missing account is 0', () => {
    assert.deepEqual(balanceFromTrialBalance(TB, '普通預金', '三井住友銀行', true), {
      balance: 1_000,
      asset: true,
      remainder: false,
    });
    assert.deepEqual(balanceFromTrialBalance(TB, '普通預金', '', true), {
      balance: 500,
      asset: true,
      remainder: true,
    });
    assert.deepEqual(balanceFromTrialBalance(TB, '未払金', '', false), {
      balance: 300,
      asset: false,
      remainder: false,
    });
    assert.deepEqual(balanceFromTrialBalance(TB, '普通預金', 'ゆうちょ銀行', true), {
      balance: 0,
      asset: true,
      remainder: false,
    });
    assert.deepEqual(balanceFromTrialBalance(TB, '現金', '', false), {
      balance: 0,
      asset: null,
      remainder: false,
    });
  });
});

describe('the 残高照合 table', () => {
  const bank: OwnAccount = {
    label: '三井住友銀行 代表口座',
    kind: 'connected',
    accountId: 'a',
    subId: 's',
    accountName: '普通預金',
    subName: '三井住友銀行',
  };
  const card: OwnAccount = { ...bank, label: 'カード', accountName: '未払金', subName: '', subId: null };

  test('differences, explained by lines not yet booked (signed by the account), and a kept 通帳残高', () => {
    const existing = [
      { ...emptyBalanceRecord(), 口座: bank.label, 月末: '2026-04-30', 通帳残高: 1_200 },
      { ...emptyBalanceRecord(), 口座: card.label, 月末: '2026-04-30', 通帳残高: 500 },
      { ...emptyBalanceRecord(), 口座: 'old', 月末: '2025-12-31', 明細の残高: 9 },
    ];
    const ledger = [
      {
        rowNumber: 2,
        record: ledgerRecord({
          口座: bank.label,
          取引日: '2026-04-28',
          入出金: '入金',
          金額: 200,
          状態: '要確認',
        }),
      },
      {
        rowNumber: 3,
        record: ledgerRecord({
          口座: bank.label,
          取引日: '2026-05-02',
          入出金: '入金',
          金額: 9,
          状態: '要確認',
        }),
      },
      {
        rowNumber: 4,
        record: ledgerRecord({
          口座: card.label,
          取引日: '2026-04-10',
          入出金: '出金',
          金額: 150,
          状態: '未判定',
        }),
      },
    ];
    const rows = balanceRecords({
      accounts: [bank, card],
      monthEnds: ['2026-04-30'],
      mfBalance: (a) => ({ balance: a === bank ? 1_000 : 300, asset: a === bank, remainder: false }),
      isAsset: () => true,
      existing,
      ledger,
      outsideWindow: new Map(),
      window: { start: '2026-04-01', end: '2026-04-30' },
    });
    const b = rows.find((r) => r.口座 === bank.label);
    assert.equal(b?.差額, -200);
    assert.match(String(b?.説明), /1 件（要確認 1 件）.*\+200 円変わります。 差額はこれで説明できます/);
    // A card purchase not yet booked raises what is owed.
    const c = rows.find((r) => r.口座 === card.label);
    assert.equal(c?.差額, -200);
    assert.match(String(c?.説明), /\+150 円変わります。 残り −50 円は説明できません/);
    assert.ok(
      rows.some((r) => r.口座 === 'old'),
      'rows of other months stay',
    );
    assert.deepEqual(differenceSeries(rows, ['2026-04-30'], [bank.label, card.label]), [
      ['月末（差額のグラフ）', `差額: ${bank.label}`, `差額: ${card.label}`],
      ['2026-04-30', -200, -200],
    ]);
  });

  test('a CSV import writes its month-end balances onto the rows, keeping what was typed', () => {
    const rows = withStatementBalances(
      [{ ...emptyBalanceRecord(), 口座: '信金', 月末: '2026-04-30', 通帳残高: 7 }],
      '信金',
      [
        { monthEnd: '2026-04-30', balance: 100, asOf: '2026-04-30', complete: true },
        { monthEnd: '2026-05-31', balance: 50, asOf: '2026-05-20', complete: false },
      ],
    );
    assert.deepEqual(
      rows.map((r) => [r.月末, r.明細の残高, r.通帳残高]),
      [
        ['2026-04-30', 100, 7],
        ['2026-05-31', 50, ''],
      ],
    );
  });

  test('month ends of a window', () => {
    assert.deepEqual(monthEndsBetween('2026-01-15', '2026-04-29'), [
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
    ]);
    assert.deepEqual(monthEndsBetween('2026-04-01', '2026-04-30'), ['2026-04-30']);
  });
});
