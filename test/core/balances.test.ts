/** A CSV's running balance (src/core/csv/balances) and the 残高照合 table (src/core/balances). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BLOCK_TITLE, blockColumn, planBalanceWrite, readBalanceTable } from '../../src/core/balance-sheet';
import {
  type BalanceRecord,
  balanceFromTrialBalance,
  balanceRecords,
  differenceSeries,
  emptyBalanceRecord,
  monthEndsBetween,
  readTypedBalance,
  type TbLike,
  TYPED_WHY,
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

describe('通帳残高 as typed (issue 25)', () => {
  test('the unambiguous forms a bookkeeper types are read; a number Sheets made of the typing is taken', () => {
    const cases: [unknown, number][] = [
      [1_234_567, 1_234_567],
      [-5_000, -5_000],
      [0, 0],
      ['1234567', 1_234_567],
      ['1,234,567', 1_234_567],
      ['¥1,234,567', 1_234_567],
      ['￥1,234,567', 1_234_567],
      ['\\1,234,567', 1_234_567],
      ['1,234,567円', 1_234_567],
      ['1,234,567 円', 1_234_567],
      ['１，２３４，５６７', 1_234_567],
      ['１２３４５６７円', 1_234_567],
      ['-1,234', -1_234],
      ['－1,234', -1_234],
      ['−1,234', -1_234],
      ['△1,234', -1_234],
      ['▲1,234', -1_234],
      ['△ 1,234円', -1_234],
      ['-¥1,234', -1_234],
      ['¥-1,234', -1_234],
      ['+1,234', 1_234],
      ['1,234.00', 1_234],
      ['  1,234  ', 1_234],
    ];
    for (const [typed, amount] of cases)
      assert.deepEqual(readTypedBalance(typed), { kind: 'amount', amount }, String(typed));
  });

  test('ambiguous or approximate values are refused with the reason, the text kept as typed', () => {
    const cases: [unknown, string][] = [
      ['約120万円', TYPED_WHY.approximate],
      ['120万', TYPED_WHY.approximate],
      ['1,234千円', TYPED_WHY.approximate],
      [1234.5, TYPED_WHY.fraction],
      ['1234.5', TYPED_WHY.fraction],
      ['1.234.567', TYPED_WHY.other],
      ['(1,000)', TYPED_WHY.parentheses],
      ['（1,000）', TYPED_WHY.parentheses],
      ['=1+1', TYPED_WHY.formula],
      ['2026-04-30', TYPED_WHY.date],
      ['12,34,567', TYPED_WHY.grouping],
      ['1,2345', TYPED_WHY.grouping],
      ['1,000-', TYPED_WHY.other],
      ['-△1,000', TYPED_WHY.other],
      ['ー1,000', TYPED_WHY.other],
      ['残高不明', TYPED_WHY.other],
      [true, TYPED_WHY.other],
      [1e300, TYPED_WHY.other],
    ];
    for (const [typed, why] of cases) {
      const r = readTypedBalance(typed);
      assert.equal(r.kind, 'unreadable', String(typed));
      assert.equal(r.kind === 'unreadable' && r.why, why, String(typed));
      assert.equal(r.kind === 'unreadable' && r.text, String(typed));
    }
    for (const empty of ['', '  ', null, undefined])
      assert.deepEqual(readTypedBalance(empty), { kind: 'empty' });
  });

  test('an unreadable 通帳残高 is not replaced by the CSV balance: no 差額, the reason and what to type', () => {
    const bank: OwnAccount = {
      kind: 'csv',
      label: '信金',
      accountId: 'a',
      subId: null,
      accountName: '普通預金',
      subName: '',
    };
    const rows = balanceRecords({
      accounts: [bank],
      monthEnds: ['2026-04-30'],
      mfBalance: () => ({ balance: 1_000, asset: true, remainder: false }),
      isAsset: () => true,
      existing: [
        { ...emptyBalanceRecord(), 口座: '信金', 月末: '2026-04-30', 明細の残高: 1_000, 通帳残高: '約千円' },
      ],
      ledger: [],
      outsideWindow: new Map(),
      window: { start: '2026-04-01', end: '2026-04-30' },
    });
    assert.equal(rows[0].差額, '');
    assert.equal(rows[0].通帳残高, '約千円');
    assert.match(
      String(rows[0].説明),
      /通帳残高「約千円」は読めないため、比べていません（「約」「万」などの概数/,
    );
    assert.match(String(rows[0].説明), /1,234,567 や ¥1,234,567/);
  });
});

describe('the 残高照合 sheet: what kicho writes (issue 25)', () => {
  const H = ['口座', '勘定科目', '補助科目', '月末', 'MFの残高', '明細の残高', '通帳残高', '差額', '説明'];
  const sheet = (rows: unknown[][], header: unknown[] = H) => [header, ...rows];

  test('only kicho’s own columns of rows found by key; 通帳残高 and people’s columns are never in a write', () => {
    const values = sheet(
      [
        ['B', '', '', '2026-04-30', 1, '', '=1+1', '', '', 'memo B'],
        ['A', '', '', '2026-04-30', 2, '', '約1万', '', '', 'memo A'],
      ],
      [...H, 'メモ'],
    );
    const table = readBalanceTable(values);
    assert.equal(table.width, 10);
    const records: BalanceRecord[] = table.rows.map((r) => ({ ...r.record, 差額: 9, 説明: 'x' }));
    records.push({ ...emptyBalanceRecord(), 口座: 'A', 月末: '2026-05-31', 通帳残高: 'ignored' });
    const plan = planBalanceWrite(table, records);
    // Runs B–C, E–F, H–I: columns 7 (通帳残高) and 10 (メモ) are in none.
    assert.deepEqual(
      plan.blocks.map((b) => [b.column, b.cells[0].length]),
      [
        [2, 2],
        [5, 2],
        [8, 2],
      ],
    );
    assert.deepEqual(plan.blocks[2].cells, [
      [9, 'x'],
      [9, 'x'],
    ]);
    assert.equal(plan.appended?.row, 4);
    assert.equal(plan.appended?.cells[0][6], '', 'a new row has nothing typed');
    assert.equal(plan.appended?.cells[0][0], 'A');
  });

  test('new rows month by month; a copied row is named; the chart block is found and never lands on data', () => {
    const values = sheet([
      ['A', '', '', '2026-04-30', '', '', '', '', ''],
      ['A', '', '', '2026-04-30', '', '', '5', '', ''],
      ['', '', '', '', '', '', '', '', '', '', '', 'note'],
    ]);
    const table = readBalanceTable(values);
    assert.deepEqual(table.copies, [{ rowNumber: 3, of: 2 }]);
    assert.equal(table.lastRow, 3);
    const plan = planBalanceWrite(table, [
      ...table.rows.map((r) => r.record),
      { ...emptyBalanceRecord(), 口座: 'B', 月末: '2026-05-31' },
      { ...emptyBalanceRecord(), 口座: 'A', 月末: '2026-05-31' },
      { ...emptyBalanceRecord(), 口座: 'B', 月末: '2026-04-30' },
    ]);
    assert.deepEqual(
      plan.appended?.cells.map((r) => `${r[0]} ${r[3]}`),
      ['B 2026-04-30', 'B 2026-05-31', 'A 2026-05-31'],
    );
    const explain = plan.blocks.find((b) => b.column + b.cells[0].length - 1 === 9);
    assert.match(String(explain?.cells[1].at(-1)), /2 行目と同じ口座・月末です/);
    // The block would start at K (one empty column after I): L holds a note, so it goes past everything.
    assert.equal(blockColumn(table, 3), 13);
    assert.equal(blockColumn(table, 1), 10);
    const withBlock = readBalanceTable([
      [...H, '', BLOCK_TITLE, '差額: A', '差額: B', 'mine'],
      ['A', '', '', '2026-04-30'],
    ]);
    assert.equal(withBlock.width, 9);
    assert.deepEqual(withBlock.block, { start: 10, width: 3 });
    assert.equal(blockColumn(withBlock, 3), 10);
    assert.equal(blockColumn(withBlock, 4), 15, 'a wider block would take the person’s column');
  });
});
