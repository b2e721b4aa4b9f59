import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Messages } from '../../sim/mf/errors';
import type { Transaction } from '../../sim/mf/types';
import { assertError, firstLine, setup } from './helpers';

const WINDOW = 'start_date=2026-01-01&end_date=2026-06-30';

function list(client: ReturnType<typeof setup>['client'], query: string) {
  return client.get(`/api/v3/transactions?${query}`);
}

describe('GET /transactions: dates', () => {
  test('start_date and end_date are both required', () => {
    const { client } = setup();
    assertError(list(client, 'end_date=2026-06-30'), 400, 'missing_required_query_parameter', /start_date/);
    assertError(list(client, 'start_date=2026-01-01'), 400, 'missing_required_query_parameter', /end_date/);
  });

  test('a malformed date is invalid_query_parameter_value', () => {
    const { client } = setup();
    assertError(
      list(client, 'start_date=2026/01/01&end_date=2026-06-30'),
      400,
      'invalid_query_parameter_value',
    );
    assertError(
      list(client, 'start_date=2026-02-30&end_date=2026-06-30'),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('at most 366 days apart', () => {
    const { client } = setup();
    assert.equal(list(client, 'start_date=2026-01-01&end_date=2027-01-02').status, 200);
    assertError(
      list(client, 'start_date=2026-01-01&end_date=2027-01-03'),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('end before start is rejected', () => {
    const { client } = setup();
    assertError(
      list(client, 'start_date=2026-02-01&end_date=2026-01-31'),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('only lines inside the window are returned', () => {
    const { client } = setup();
    const reply = list(client, 'start_date=2026-02-01&end_date=2026-02-28&per_page=500');
    assert.ok(reply.json.transactions.length > 0);
    for (const tx of reply.json.transactions) assert.ok(tx.date >= '2026-02-01' && tx.date <= '2026-02-28');
  });
});

describe('GET /transactions: paging', () => {
  test('per_page must be between 10 and 500', () => {
    const { client } = setup();
    assertError(
      list(client, `${WINDOW}&per_page=9`),
      400,
      'invalid_query_parameter_value',
      Messages.transactionsPerPage,
    );
    assertError(
      list(client, `${WINDOW}&per_page=501`),
      400,
      'invalid_query_parameter_value',
      Messages.transactionsPerPage,
    );
    assertError(list(client, `${WINDOW}&per_page=abc`), 400, 'invalid_query_parameter_value');
    assert.equal(list(client, `${WINDOW}&per_page=10`).json.transactions.length, 10);
    assert.equal(list(client, `${WINDOW}&per_page=500`).status, 200);
  });

  test('per_page defaults to 50 and metadata gives total_count and ceil(total_count/per_page)', () => {
    const { client, mf } = setup();
    const total = mf.transactions().filter((tx) => tx.date >= '2026-01-01' && tx.date <= '2026-06-30').length;
    const reply = list(client, WINDOW);
    assert.equal(reply.json.transactions.length, 50);
    assert.deepEqual(reply.json.metadata, { total_count: total, total_pages: Math.ceil(total / 50) });
  });

  test('page must be at least 1 and not beyond total_pages', () => {
    const { client } = setup();
    const pages = list(client, `${WINDOW}&per_page=100`).json.metadata.total_pages;
    assertError(list(client, `${WINDOW}&page=0`), 400, 'invalid_query_parameter_value');
    assert.equal(list(client, `${WINDOW}&per_page=100&page=${pages}`).status, 200);
    assertError(
      list(client, `${WINDOW}&per_page=100&page=${pages + 1}`),
      400,
      'invalid_query_parameter_value',
      Messages.pageTooLarge,
    );
  });

  test('an empty result has total_pages 0 and page 1 still answers', () => {
    const { client } = setup();
    const reply = list(client, 'start_date=2024-01-01&end_date=2024-01-31');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json, { transactions: [], metadata: { total_count: 0, total_pages: 0 } });
    assertError(
      list(client, 'start_date=2024-01-01&end_date=2024-01-31&page=2'),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('walking every page yields every line exactly once', () => {
    const { client } = setup();
    const seen: string[] = [];
    const { total_pages: pages, total_count: count } = list(client, `${WINDOW}&per_page=37`).json.metadata;
    for (let page = 1; page <= pages; page++) {
      for (const tx of list(client, `${WINDOW}&per_page=37&page=${page}`).json.transactions) seen.push(tx.id);
    }
    assert.equal(seen.length, count);
    assert.equal(new Set(seen).size, count);
  });
});

describe('GET /transactions: filters', () => {
  test('journalizing_statuses is repeated form-style', () => {
    const { client, mf } = setup();
    const reply = list(
      client,
      `${WINDOW}&per_page=500&journalizing_statuses=none&journalizing_statuses=excluded`,
    );
    const statuses = new Set(reply.json.transactions.map((tx: Transaction) => tx.journalizing_status));
    assert.deepEqual([...statuses].sort(), ['excluded', 'none']);
    const expected = mf
      .transactions()
      .filter((tx) => ['none', 'excluded'].includes(tx.journalizing_status)).length;
    assert.equal(reply.json.metadata.total_count, expected);
  });

  test('journalizing_statuses[] is 400 unsupported_query_parameter', () => {
    const { client } = setup();
    assertError(list(client, `${WINDOW}&journalizing_statuses[]=none`), 400, 'unsupported_query_parameter');
    assertError(
      list(client, `${WINDOW}&journalizing_statuses%5B%5D=none`),
      400,
      'unsupported_query_parameter',
    );
  });

  test('an unknown status value is rejected', () => {
    const { client } = setup();
    assertError(list(client, `${WINDOW}&journalizing_statuses=done`), 400, 'invalid_query_parameter_value');
  });

  test('unknown parameters and repeated single parameters are rejected', () => {
    const { client } = setup();
    assertError(list(client, `${WINDOW}&status=none`), 400, 'unsupported_query_parameter');
    assertError(list(client, `${WINDOW}&side=INCOME&side=EXPENSE`), 400, 'redundant_query_parameter');
  });

  test('connected_account_id includes the lines of its sub-accounts', () => {
    const { client, mf } = setup();
    const bank = mf.findConnectedAccount('三井住友銀行');
    const reply = list(client, `${WINDOW}&per_page=500&connected_account_id=${bank.id}`);
    assert.ok(reply.json.transactions.length > 0);
    const subs = new Set(reply.json.transactions.map((tx: Transaction) => tx.connected_sub_account_id));
    assert.equal(subs.size, 2);
    for (const tx of reply.json.transactions) assert.equal(tx.connected_account_id, bank.id);
  });

  test('connected_sub_account_id narrows to one sub-account', () => {
    const { client, mf } = setup();
    const sub = mf.findConnectedAccount('三井住友銀行').connected_sub_accounts[1];
    assert.ok(sub);
    const reply = list(client, `${WINDOW}&per_page=500&connected_sub_account_id=${sub.id}`);
    assert.ok(reply.json.transactions.length > 0);
    for (const tx of reply.json.transactions) assert.equal(tx.connected_sub_account_id, sub.id);
  });

  test('connected_account_id and connected_sub_account_id together are rejected', () => {
    const { client, mf } = setup();
    const bank = mf.findConnectedAccount('三井住友銀行');
    const sub = bank.connected_sub_accounts[0];
    assert.ok(sub);
    assertError(
      list(client, `${WINDOW}&connected_account_id=${bank.id}&connected_sub_account_id=${sub.id}`),
      400,
      'redundant_query_parameter',
    );
  });

  test('an unknown connected_account_id is invalid_query_parameter_value', () => {
    const { client } = setup();
    assertError(
      list(client, `${WINDOW}&connected_account_id=AAAAAAAAAAAAAAAAAAAAAA%3D%3D`),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('side filters the direction', () => {
    const { client } = setup();
    const reply = list(client, `${WINDOW}&per_page=500&side=INCOME`);
    assert.ok(reply.json.transactions.length > 0);
    for (const tx of reply.json.transactions) assert.equal(tx.side, 'INCOME');
    assertError(list(client, `${WINDOW}&side=income`), 400, 'invalid_query_parameter_value');
  });

  test('value_min / value_max require side', () => {
    const { client } = setup();
    assertError(
      list(client, `${WINDOW}&value_min=1000`),
      400,
      'missing_required_query_parameter',
      Messages.sideRequired,
    );
    assertError(
      list(client, `${WINDOW}&value_max=1000`),
      400,
      'missing_required_query_parameter',
      Messages.sideRequired,
    );
    const reply = list(client, `${WINDOW}&per_page=500&side=EXPENSE&value_min=1000&value_max=2000`);
    assert.ok(reply.json.transactions.length > 0);
    for (const tx of reply.json.transactions)
      assert.ok(tx.value >= 1000 && tx.value <= 2000 && tx.side === 'EXPENSE');
  });

  test('content with each content_match_type', () => {
    const { client } = setup();
    const contents = (query: string) =>
      list(client, `${WINDOW}&per_page=500&${query}`).json.transactions.map((tx: Transaction) => tx.content);
    const exact = contents(`content=${encodeURIComponent('ｱﾏｿﾞﾝ')}&content_match_type=exact`);
    assert.ok(exact.length > 0 && exact.every((c: string) => c === 'ｱﾏｿﾞﾝ'));
    const partial = contents(`content=${encodeURIComponent('ｼｮｳｼﾞ')}`);
    assert.ok(partial.length > 0 && partial.every((c: string) => c.includes('ｼｮｳｼﾞ')));
    const forward = contents(`content=${encodeURIComponent('ﾌﾘｺﾐ')}&content_match_type=forward`);
    assert.ok(forward.length > 0 && forward.every((c: string) => c.startsWith('ﾌﾘｺﾐ')));
    const backward = contents(`content=${encodeURIComponent('ﾃｽｳﾘﾖｳ')}&content_match_type=backward`);
    assert.ok(backward.length > 0 && backward.every((c: string) => c.endsWith('ﾃｽｳﾘﾖｳ')));
    assertError(
      list(client, `${WINDOW}&content=x&content_match_type=regex`),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('order is by date, desc by default', () => {
    const { client } = setup();
    const dates = (query: string) =>
      list(client, `${WINDOW}&per_page=500${query}`).json.transactions.map((tx: Transaction) => tx.date);
    const desc = dates('');
    assert.deepEqual(desc, [...desc].sort().reverse());
    const asc = dates('&order=asc');
    assert.deepEqual(asc, [...asc].sort());
    assertError(list(client, `${WINDOW}&order=up`), 400, 'invalid_query_parameter_value');
  });
});

describe('POST /transactions', () => {
  test('creates lines in a manual connected account', () => {
    const { client, mf } = setup();
    const manual = mf.findConnectedAccount('手入力（現金出納帳）');
    const reply = client.post('/api/v3/transactions', {
      connected_account_id: manual.id,
      transactions: [{ date: '2026-06-15', value: 800, side: 'EXPENSE', content: 'ｺｰﾋｰ ﾏﾒ' }],
    });
    assert.equal(reply.status, 201);
    assert.equal(reply.json.transactions[0].journalizing_status, 'none');
    assert.ok(mf.transaction(reply.json.transactions[0].id));
  });

  test('is refused for a synced (non-manual) service', () => {
    const { client, mf } = setup();
    const reply = client.post('/api/v3/transactions', {
      connected_account_id: mf.findConnectedAccount('三井住友カード').id,
      transactions: [{ date: '2026-06-15', value: 800, side: 'EXPENSE', content: 'x' }],
    });
    assertError(reply, 400, 'invalid_request_body_parameter', Messages.notManual);
  });

  test('validates each line', () => {
    const { client, mf } = setup();
    const id = mf.findConnectedAccount('手入力（現金出納帳）').id;
    const post = (line: Record<string, unknown>) =>
      client.post('/api/v3/transactions', { connected_account_id: id, transactions: [line] });
    const ok = { date: '2026-06-15', value: 800, side: 'EXPENSE', content: 'x' };
    assertError(post({ ...ok, value: 0 }), 400, 'invalid_request_body_parameter');
    assertError(post({ ...ok, side: 'OUT' }), 400, 'invalid_request_body_parameter');
    assertError(post({ ...ok, content: 'x'.repeat(101) }), 400, 'invalid_request_body_parameter');
    assertError(post({ ...ok, date: '15/06/2026' }), 400, 'invalid_request_body_parameter');
    assertError(
      client.post('/api/v3/transactions', { connected_account_id: id, transactions: [] }),
      400,
      'invalid_request_body_parameter',
    );
  });
});

describe('FakeMf line helpers', () => {
  test('addTransactions adds lines as a sync would, with defaults and seeded ids', () => {
    const { client, mf } = setup({ lineCount: 50 });
    assert.equal(mf.transactions().length, 50);
    const card = mf.findConnectedAccount('三井住友カード');
    const [a, b] = mf.addTransactions([
      { date: '2026-06-30', value: 1980, side: 'EXPENSE', content: 'ｱﾏｿﾞﾝ', connected_account_id: card.id },
      { date: '2026-06-30', value: 1980, side: 'EXPENSE', content: 'ｱﾏｿﾞﾝ', connected_account_id: card.id },
    ]);
    assert.ok(a && b);
    assert.notEqual(a.id, b.id);
    assert.match(a.id, /%3D%3D$/);
    assert.equal(a.journalizing_status, 'none');
    assert.equal(a.connected_sub_account_id, null);
    const listed = client.get(
      `/api/v3/transactions?start_date=2026-06-30&end_date=2026-06-30&connected_account_id=${card.id}&content=${encodeURIComponent('ｱﾏｿﾞﾝ')}&content_match_type=exact&value_min=1980&value_max=1980&side=EXPENSE`,
    );
    const ids = listed.json.transactions.map((tx: Transaction) => tx.id);
    assert.ok(ids.includes(a.id) && ids.includes(b.id));

    const [defaulted] = mf.addTransactions([{ date: '2026-06-30', value: 5, side: 'INCOME' }]);
    const bank = mf.findConnectedAccount('三井住友銀行');
    assert.equal(defaulted?.connected_account_id, bank.id);
    assert.equal(defaulted?.connected_sub_account_id, bank.connected_sub_accounts[0]?.id);
    assert.equal(defaulted?.content, null);

    assert.throws(() =>
      mf.addTransactions([{ date: '2026-06-30', value: 1, side: 'INCOME', connected_account_id: 'x' }]),
    );
    assert.throws(() => mf.addTransactions([{ id: a.id, date: '2026-06-30', value: 1, side: 'INCOME' }]));
  });

  test('updateTransaction changes a line as MF would after a sync', () => {
    const { mf } = setup();
    const line = mf.transactions()[0];
    assert.ok(line);
    assert.equal(
      mf.updateTransaction(line.id, { journalizing_status: 'modified' }).journalizing_status,
      'modified',
    );
    assert.equal(mf.transaction(line.id)?.journalizing_status, 'modified');
    assert.throws(() => mf.updateTransaction('nope', {}));
  });

  test('inspection returns copies, not the fake state', () => {
    const { mf } = setup();
    const line = firstLine(mf);
    line.journalizing_status = 'excluded';
    assert.equal(mf.transaction(line.id)?.journalizing_status, 'none');
  });
});
