/**
 * The fake's switches for answers no public source settles (sim/mf/README.md), each value shown to do
 * what the README says: whether a journal keeps the tags it was sent, and listing lag in time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { firstLine, setup } from './helpers';

const JOURNALIZE = '/api/v3/transactions/journalize';
const TAG = 'kc-aaaabbbbccccdddd';

function createBody(mf: ReturnType<typeof setup>['mf']) {
  const cash = mf.findAccount('現金').id;
  return {
    journal: {
      transaction_date: '2026-05-10',
      journal_type: 'journal_entry',
      tags: [TAG],
      branches: [{ debitor: { account_id: cash, value: 100 }, creditor: { account_id: cash, value: 100 } }],
    },
  };
}

describe('tagsOnJournalize / tagsOnCreate', () => {
  for (const value of ['kept', 'dropped'] as const) {
    test(`${value}: the answer and every later read agree`, () => {
      const { client, mf } = setup({ tagsOnJournalize: value, tagsOnCreate: value });
      const line = firstLine(mf, (t) => t.date >= '2026-04-01');
      const made = client.post(JOURNALIZE, {
        transaction_id: line.id,
        account_id: mf.findAccount('雑費').id,
        tags: [TAG],
      });
      assert.equal(made.status, 201, made.raw.body);
      const created = client.post('/api/v3/journals', createBody(mf));
      assert.equal(created.status, 201, created.raw.body);
      const want = value === 'kept' ? [TAG] : [];
      assert.deepEqual(made.json.journal.tags, want);
      assert.deepEqual(created.json.journal.tags, want);
      const listed = client.get('/api/v3/journals?start_date=2026-04-01&end_date=2026-06-30&per_page=10000');
      for (const id of [made.json.journal.id, created.json.journal.id]) {
        const j = listed.json.journals.find((x: { id: string }) => x.id === id);
        assert.deepEqual(j.tags, want);
      }
      assert.equal(mf.journalsByTag(TAG).length, value === 'kept' ? 2 : 0);
    });
  }
  test('each switch on its own', () => {
    const { client, mf } = setup({ tagsOnJournalize: 'dropped' });
    const line = firstLine(mf, (t) => t.date >= '2026-04-01');
    const made = client.post(JOURNALIZE, {
      transaction_id: line.id,
      account_id: mf.findAccount('雑費').id,
      tags: [TAG],
    });
    assert.deepEqual(made.json.journal.tags, []);
    assert.deepEqual(client.post('/api/v3/journals', createBody(mf)).json.journal.tags, [TAG]);
  });
});

describe('listingLagMs', () => {
  test('a new journal stays out of GET /journals, and its line lists as none, for that long; by id at once', () => {
    const { client, mf, clock } = setup({ listingLagMs: 5 * 60_000 });
    const line = firstLine(mf, (t) => t.date >= '2026-04-01');
    const made = client.post(JOURNALIZE, { transaction_id: line.id, account_id: mf.findAccount('雑費').id });
    assert.equal(made.status, 201);
    const id = made.json.journal.id as string;
    const byLine = `/api/v3/journals?start_date=${line.date}&end_date=${line.date}&transaction_ids=${line.id}`;
    const status = (q = '') =>
      client
        .get(`/api/v3/transactions?start_date=${line.date}&end_date=${line.date}&per_page=500${q}`)
        .json.transactions.find((t: { id: string }) => t.id === line.id)?.journalizing_status;
    assert.deepEqual(client.get(byLine).json.journals, []);
    assert.equal(status(), 'none');
    assert.equal(status('&journalizing_statuses=none'), 'none');
    assert.equal(status('&journalizing_statuses=registered'), undefined);
    assert.equal(client.get(`/api/v3/journals/${encodeURIComponent(id)}`).status, 200);
    // MF itself knows: a second journalize is refused meanwhile.
    assert.equal(
      client.post(JOURNALIZE, { transaction_id: line.id, account_id: mf.findAccount('雑費').id }).status,
      400,
    );
    clock.now += 5 * 60_000;
    assert.equal(client.get(byLine).json.journals.length, 1);
    assert.equal(status(), 'registered');
    assert.equal(status('&journalizing_statuses=none'), undefined);
  });

  test('POST /journals lags the same way; 0 (the default) lists at once', () => {
    for (const lag of [0, 60_000]) {
      const { client, mf, clock } = setup({ listingLagMs: lag });
      const made = client.post('/api/v3/journals', createBody(mf));
      const list = () =>
        client.get('/api/v3/journals?start_date=2026-05-10&end_date=2026-05-10').json.journals.length;
      assert.equal(list(), lag === 0 ? 1 : 0, String(lag));
      clock.now += 60_000;
      assert.equal(list(), 1);
      assert.equal(made.status, 201);
    }
  });
});
