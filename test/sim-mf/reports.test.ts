import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TB_MESSAGES } from '../../sim/mf/reports';
import { assertError, setup } from './helpers';

const TB = '/api/v3/reports/trial_balance_bs';

interface Row {
  name: string;
  type: string;
  values: (number | null)[];
  rows: Row[] | null;
}

/** Every row of the tree, depth first. */
function flat(rows: readonly Row[]): Row[] {
  return rows.flatMap((r) => [r, ...flat(r.rows ?? [])]);
}

function account(rows: readonly Row[], name: string): Row | undefined {
  return flat(rows).find((r) => r.type === 'account' && r.name === name);
}

function sub(rows: readonly Row[], accountName: string, subName: string): Row | undefined {
  return (account(rows, accountName)?.rows ?? []).find((r) => r.type === 'sub_account' && r.name === subName);
}

const CLOSING = 3;

describe('GET /reports/trial_balance_bs', () => {
  test('the shape of the document: columns, totals over accounts, sub-accounts when asked', () => {
    const { client } = setup();
    const reply = client.get(`${TB}?start_date=2026-04-01&end_date=2026-04-30&with_sub_accounts=true`);
    assert.equal(reply.status, 200, reply.raw.body);
    const body = reply.json;
    assert.deepEqual(body.columns, [
      'opening_balance',
      'debit_amount',
      'credit_amount',
      'closing_balance',
      'ratio',
    ]);
    assert.equal(body.report_type, 'trial_balance_bs');
    assert.equal(body.start_date, '2026-04-01');
    assert.equal(body.end_date, '2026-04-30');
    assert.deepEqual(
      body.rows.map((r: Row) => r.type),
      ['assets', 'liabilities_net_assets'],
    );
    const smbc = sub(body.rows, '普通預金', '三井住友銀行');
    assert.ok(smbc);
    // The term's opening journal puts 2,000,000 on 三井住友銀行 (seed.ts openingJournal).
    assert.equal(smbc.values[0], 2_000_000);
    const deposits = account(body.rows, '普通預金');
    assert.ok(deposits);
    const subs = (deposits.rows ?? []).reduce((s, r) => s + Number(r.values[CLOSING]), 0);
    assert.equal(subs, deposits.values[CLOSING], 'every posting on 普通預金 here has a sub-account');
    // Without with_sub_accounts, no sub-account rows.
    const plain = client.get(`${TB}?start_date=2026-04-01&end_date=2026-04-30`).json;
    assert.deepEqual(account(plain.rows, '普通預金')?.rows, []);
    // An account with nothing on it is left out [D].
    assert.equal(account(body.rows, '仮払金'), undefined);
  });

  test('closing_balance moves with a journal: debit-natured assets, credit-natured liabilities', () => {
    const { client, mf } = setup();
    const ask = () =>
      client.get(`${TB}?start_date=2026-04-01&end_date=2026-05-31&with_sub_accounts=true`).json.rows as Row[];
    const before = ask();
    mf.addJournal({
      date: '2026-05-10',
      debit: { account: '消耗品費', value: 12_345 },
      credit: { account: '未払金', sub: '三井住友カード', value: 12_345 },
      remark: 'ｱﾏｿﾞﾝ',
    });
    mf.addJournal({
      date: '2026-05-20',
      debit: { account: '未払金', sub: '三井住友カード', value: 5_000 },
      credit: { account: '普通預金', sub: '三井住友銀行', value: 5_000 },
    });
    // After the range: not counted.
    mf.addJournal({
      date: '2026-06-01',
      debit: { account: '現金', value: 999 },
      credit: { account: '普通預金', sub: '三井住友銀行', value: 999 },
    });
    const after = ask();
    const closing = (rows: Row[], a: string, s?: string) =>
      Number((s ? sub(rows, a, s) : account(rows, a))?.values[CLOSING] ?? 0);
    assert.equal(
      closing(after, '未払金', '三井住友カード') - closing(before, '未払金', '三井住友カード'),
      7_345,
    );
    assert.equal(
      closing(after, '普通預金', '三井住友銀行') - closing(before, '普通預金', '三井住友銀行'),
      -5_000,
    );
    assert.equal(closing(after, '現金') - closing(before, '現金'), 0);
    // A later start date carries what came before it into opening_balance.
    const may = client.get(`${TB}?start_date=2026-05-15&end_date=2026-05-31&with_sub_accounts=true`).json
      .rows as Row[];
    const card = sub(may, '未払金', '三井住友カード');
    assert.ok(card);
    assert.equal(
      Number(card.values[0]) + Number(card.values[2]) - Number(card.values[1]),
      card.values[CLOSING],
    );
    assert.equal(card.values[CLOSING], closing(after, '未払金', '三井住友カード'));
  });

  test('fiscal_year with months; refusals with the document texts', () => {
    const { client } = setup();
    const byMonth = client.get(`${TB}?fiscal_year=2026&end_month=5`).json;
    assert.equal(byMonth.start_date, '2026-04-01');
    assert.equal(byMonth.end_date, '2026-05-31');
    const latest = client.get(TB).json;
    assert.equal(latest.fiscal_year, 2026);
    assert.equal(latest.end_date, '2027-03-31');
    assertError(
      client.get(`${TB}?fiscal_year=2026&start_date=2026-04-01`),
      400,
      'invalid_query_parameter_combination',
      TB_MESSAGES.combination,
    );
    assertError(
      client.get(`${TB}?start_date=2026-03-01&end_date=2026-04-30`),
      400,
      'invalid_query_parameter_value',
      TB_MESSAGES.months,
    );
    assertError(
      client.get(`${TB}?fiscal_year=2030`),
      400,
      'invalid_query_parameter_value',
      TB_MESSAGES.months,
    );
  });
});

describe('switch trialBalanceLeafRows', () => {
  test("'null': leaf rows carry rows: null as the document's example shows", () => {
    const { client } = setup({ trialBalanceLeafRows: 'null' });
    const rows = client.get(`${TB}?start_date=2026-04-01&end_date=2026-04-30&with_sub_accounts=true`).json
      .rows as Row[];
    assert.equal(sub(rows, '普通預金', '三井住友銀行')?.rows, null);
    assert.equal(account(rows, '現金')?.rows ?? null, null);
  });
  test("'empty' (default): rows: [] as the schema says", () => {
    const { client } = setup();
    const rows = client.get(`${TB}?start_date=2026-04-01&end_date=2026-04-30&with_sub_accounts=true`).json
      .rows as Row[];
    assert.deepEqual(sub(rows, '普通預金', '三井住友銀行')?.rows, []);
  });
});
