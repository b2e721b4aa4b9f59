import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildDataset, TEST_OFFICE_CODE } from '../../sim/mf/seed';
import { setup } from './helpers';

describe('seeded dataset', () => {
  const data = buildDataset(1);

  test('one office, code 1234-5678, two accounting periods newest first', () => {
    assert.equal(data.office.code, TEST_OFFICE_CODE);
    assert.equal(data.office.name, '株式会社サンプル');
    assert.deepEqual(
      data.office.accounting_periods.map((p) => [p.start_date, p.end_date]),
      [
        ['2026-04-01', '2027-03-31'],
        ['2025-04-01', '2026-03-31'],
      ],
    );
  });

  test('masters a small Japanese company would have', () => {
    const names = data.accounts.map((a) => a.name);
    for (const name of [
      '普通預金',
      '未払金',
      '売掛金',
      '売上高',
      '消耗品費',
      '旅費交通費',
      '通信費',
      '地代家賃',
    ]) {
      assert.ok(names.includes(name), name);
    }
    assert.ok(
      data.accounts.some((a) => !a.available),
      'one inactive account',
    );
    const deposits = data.accounts.find((a) => a.name === '普通預金');
    assert.deepEqual(
      deposits?.sub_accounts.map((s) => s.name),
      ['三井住友銀行', '三井住友銀行 渋谷支店', 'ゆうちょ銀行'],
    );
    assert.ok(data.taxes.some((t) => t.name === '課税仕入 8%（軽）' && t.tax_rate === 0.08));
    assert.ok(data.tradePartners.some((p) => p.code === '000001' && p.name === '株式会社山田商事'));
    assert.deepEqual(
      data.connectedAccounts.map((c) => [c.name, c.connected_sub_accounts.length, c.is_manual]),
      [
        ['三井住友銀行', 2, false],
        ['ゆうちょ銀行', 0, false],
        ['三井住友カード', 0, false],
        ['手入力（現金出納帳）', 0, true],
      ],
    );
    for (const service of data.connectedAccounts) {
      // account_id is set at the top only when there are no sub-accounts.
      assert.equal(service.account_id === null, service.connected_sub_accounts.length > 0);
    }
  });

  test('a few hundred lines in 2026, mostly none, with registered and excluded ones', () => {
    assert.equal(data.transactions.length, 300);
    assert.equal(buildDataset(1, { lineCount: 120 }).transactions.length, 120);
    const count = (status: string) =>
      data.transactions.filter((t) => t.journalizing_status === status).length;
    assert.ok(count('none') > 200);
    assert.ok(count('registered') > 10);
    assert.ok(count('excluded') > 0);
    const months = new Set(data.transactions.map((t) => t.date.slice(0, 7)));
    assert.ok(months.size >= 6);
    for (const tx of data.transactions)
      assert.ok(Number.isSafeInteger(tx.value) && tx.value > 0, tx.content ?? '');
  });

  test('registered lines have journals linked by transaction_id', () => {
    for (const tx of data.transactions.filter((t) => t.journalizing_status === 'registered')) {
      assert.equal(data.journals.filter((j) => j.transaction_id === tx.id).length, 1);
    }
    assert.ok(data.journals.some((j) => j.entered_by === 'JOURNAL_TYPE_OPENING'));
  });

  test('half-width kana, genuine duplicates, hostile and null contents', () => {
    const contents = data.transactions.map((t) => t.content);
    for (const text of ['ｱﾏｿﾞﾝ', 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', 'ﾃﾞﾝｷﾀﾞｲ', 'JR ﾋｶﾞｼﾆﾎﾝ'])
      assert.ok(contents.includes(text), text);
    assert.ok(contents.includes('=HYPERLINK("http://example.com","click")'));
    for (const lead of ['+', '-', '@'])
      assert.ok(
        contents.some((c) => c?.startsWith(lead)),
        lead,
      );
    assert.ok(contents.filter((c) => c === null).length >= 3);
    const twins = data.transactions.filter(
      (t) => t.date === '2026-02-10' && t.content === 'ｱﾏｿﾞﾝ' && t.value === 1980,
    );
    assert.ok(twins.length >= 2);
    assert.equal(new Set(twins.map((t) => t.id)).size, twins.length);
  });

  test('bank lines fall on weekdays', () => {
    const bankIds = new Set(data.connectedAccounts.filter((c) => c.name.endsWith('銀行')).map((c) => c.id));
    for (const tx of data.transactions.filter((t) => bankIds.has(t.connected_account_id))) {
      const day = new Date(`${tx.date}T00:00:00Z`).getUTCDay();
      assert.ok(day !== 0 && day !== 6, `${tx.date} ${tx.content}`);
    }
  });

  test('the masters endpoints serve the dataset', () => {
    const { client } = setup();
    const office = client.get('/api/v3/offices').json;
    assert.equal(office.code, TEST_OFFICE_CODE);
    assert.equal(office.accounting_periods[0].fiscal_year, 2026);
    assert.equal(client.get('/api/v3/term_settings').json.term_settings.length, 2);
    const all = client.get('/api/v3/accounts').json.accounts;
    const available = client.get('/api/v3/accounts?available=true').json.accounts;
    assert.equal(available.length, all.length - 1);
    assert.equal(client.get('/api/v3/accounts?available=false').json.accounts.length, all.length);
    assert.ok(all.find((a: { name: string }) => a.name === '普通預金').sub_accounts.length === 3);
    assert.equal(client.get('/api/v3/sub_accounts').json.sub_accounts.length, 4);
    assert.ok(
      client.get('/api/v3/taxes?available=true').json.taxes.every((t: { available: boolean }) => t.available),
    );
    assert.equal(client.get('/api/v3/departments').json.departments.length, 3);
    assert.equal(client.get('/api/v3/trade_partners?available=true').json.trade_partners.length, 5);
    assert.equal(client.get('/api/v3/connected_accounts').json.connected_accounts.length, 4);
  });
});
