import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WRONG_OFFICE_CODE_VALUES } from '../../sim/mf/context';
import { Messages } from '../../sim/mf/errors';
import { TEST_API_KEY_OTHER } from '../../sim/mf/fake-mf';
import { MfClient } from '../../src/mf/client';
import { MfApiError, MfAuthError, MfOfficeCodeError } from '../../src/mf/errors';
import { RateLimiter } from '../../src/mf/rate-limit';
import type { MfId } from '../../src/mf/types';
import { API_BASE, assertNoSecret, harness, requestsTo, TEST_API_KEY, thrown } from './helpers';

const TRANSACTIONS = '/api/v3/transactions';
const JOURNALS = '/api/v3/journals';

describe('masters', () => {
  test('office, accounts with sub-accounts, taxes, trade partners, connected accounts', () => {
    const { mf, client } = harness();
    const office = client.office();
    assert.equal(office.accounting_periods.length, 2);
    const accounts = client.accounts();
    assert.deepEqual(
      accounts.map((a) => a.id),
      mf.accounts().map((a) => a.id),
    );
    assert.ok(accounts.some((a) => a.sub_accounts.length > 0));
    assert.ok(
      accounts.some((a) => !a.available),
      'inactive accounts are listed too',
    );
    assert.ok(client.taxes().some((t) => t.name === '課税仕入 10%'));
    assert.ok(client.tradePartners().some((p) => p.code === '000001'));
    assert.deepEqual(
      client.connectedAccounts().map((c) => c.id),
      mf.connectedAccounts().map((c) => c.id),
    );
  });
});

describe('listTransactions', () => {
  test('pages with per_page 500 until page > total_pages', () => {
    const { mf, client } = harness({ fake: { lineCount: 1200 } });
    const lines = client.listTransactions({ startDate: '2026-01-01', endDate: '2026-06-30' });
    assert.equal(lines.length, mf.transactions().length);
    assert.ok(lines.length > 1000);
    assert.equal(new Set(lines.map((l) => l.id)).size, lines.length);
    const queries = requestsTo(mf, TRANSACTIONS).map((entry) => new URLSearchParams(entry.query));
    assert.deepEqual(
      queries.map((q) => q.get('page')),
      ['1', '2', '3'],
    );
    assert.ok(queries.every((q) => q.get('per_page') === '500'));
  });

  test('a window wider than 366 days is asked in pieces that MF accepts', () => {
    const { mf, client } = harness();
    const lines = client.listTransactions({ startDate: '2025-01-01', endDate: '2026-12-31' });
    assert.equal(lines.length, mf.transactions().length);
    const windows = requestsTo(mf, TRANSACTIONS).map((entry) => {
      const q = new URLSearchParams(entry.query);
      return [q.get('start_date'), q.get('end_date')];
    });
    assert.deepEqual(windows, [
      ['2025-01-01', '2026-01-01'],
      ['2026-01-02', '2026-12-31'],
    ]);
    assert.ok(requestsTo(mf, TRANSACTIONS).every((entry) => entry.status === 200));
  });

  test('journalizing_statuses goes form style, and connected_account_id as stored', () => {
    const { mf, client } = harness();
    const card = mf.findConnectedAccount('三井住友カード');
    assert.match(card.id, /%2[BF]/);
    const lines = client.listTransactions({
      startDate: '2026-01-01',
      endDate: '2026-06-30',
      statuses: ['none'],
      connectedAccountId: card.id,
    });
    const expected = mf
      .transactions()
      .filter((tx) => tx.journalizing_status === 'none' && tx.connected_account_id === card.id);
    assert.ok(expected.length > 0);
    assert.deepEqual(lines.map((l) => l.id).sort(), expected.map((tx) => tx.id).sort());
    const [entry] = requestsTo(mf, TRANSACTIONS);
    assert.ok(entry);
    assert.match(entry.query, /(^|&)journalizing_statuses=none(&|$)/);
    assert.ok(entry.query.includes(`connected_account_id=${card.id}`), entry.query);
    assert.ok(!entry.query.includes('%25'), 'no double encoding');
    assert.ok(!entry.query.includes('[]'));

    client.listTransactions({
      startDate: '2026-01-01',
      endDate: '2026-01-31',
      statuses: ['none', 'modified'],
    });
    assert.match(
      requestsTo(mf, TRANSACTIONS).at(-1)?.query ?? '',
      /journalizing_statuses=none&journalizing_statuses=modified/,
    );
  });
});

describe('listJournals', () => {
  function journalizeLines(h: ReturnType<typeof harness>, count: number): MfId[] {
    const account = h.mf.findAccount('雑費').id;
    const lines = h.mf
      .transactions()
      .filter((tx) => tx.journalizing_status === 'none' && tx.date >= '2026-04-01')
      .slice(0, count);
    assert.equal(lines.length, count);
    for (const line of lines) {
      const outcome = h.client.journalize({ transaction_id: line.id, account_id: account, tags: [] });
      assert.equal(outcome.kind, 'created');
    }
    return lines.map((line) => line.id);
  }

  test('transaction_ids go as stored, at most 50 per call, and every page is read', () => {
    const h = harness({ client: { maxPerPage: 20 } });
    const ids = journalizeLines(h, 60);
    h.mf.clearRequestLog();
    const journals = h.client.listJournals({ startDate: '2026-04-01', transactionIds: ids });
    assert.deepEqual(journals.map((j) => j.transaction_id).sort(), [...ids].sort());
    const calls = requestsTo(h.mf, JOURNALS);
    assert.ok(calls.every((c) => c.status === 200));
    const perCall = calls.map((c) => new URLSearchParams(c.query).getAll('transaction_ids').length);
    // 50 ids in pages of 20 (3 calls), then 10 ids (1 call).
    assert.deepEqual(perCall, [50, 50, 50, 10]);
    assert.ok(calls[0]?.query.includes(`transaction_ids=${ids[0]}`));
    assert.ok(calls.every((c) => !c.query.includes('%25')));
  });

  test('listJournalsWithin: the whole window when it fits the pages allowed, else null after one page', () => {
    const h = harness({ client: { maxPerPage: 20 } });
    const ids = journalizeLines(h, 60);
    h.mf.clearRequestLog();
    const all = h.client.listJournalsWithin({ startDate: '2026-04-01', endDate: '2027-03-31' }, 5);
    assert.ok(all !== null);
    assert.ok(ids.every((id) => all.some((j) => j.transaction_id === id)));
    const pages = requestsTo(h.mf, JOURNALS).length;
    assert.ok(pages >= 3 && pages <= 5, `${pages} pages`);
    h.mf.clearRequestLog();
    assert.equal(
      h.client.listJournalsWithin({ startDate: '2026-04-01', endDate: '2027-03-31' }, pages - 1),
      null,
    );
    assert.equal(requestsTo(h.mf, JOURNALS).length, 1, 'only the first page is asked');
  });

  test('an empty id list asks nothing (MF would treat it as no filter)', () => {
    const h = harness();
    assert.deepEqual(h.client.listJournals({ startDate: '2026-04-01', transactionIds: [] }), []);
    assert.equal(requestsTo(h.mf, JOURNALS).length, 0);
    assert.throws(() => h.client.listJournals({}), RangeError);
  });

  test('journal(id) reads one journal by its id in the path, and null for an unknown id', () => {
    const h = harness();
    const [id] = journalizeLines(h, 1);
    const [listed] = h.client.listJournals({ startDate: '2026-04-01', transactionIds: [id as MfId] });
    assert.ok(listed);
    assert.equal(h.client.journal(listed.id)?.id, listed.id);
    assert.equal(h.client.journal('AAAAAAAAAAAAAAAAAAAAAA%3D%3D'), null);
  });
});

describe('read failures', () => {
  test('401 once → token refreshed, call succeeds', () => {
    const { mf, client } = harness();
    client.taxes();
    mf.injectFault({ kind: '401-once' });
    assert.ok(client.accounts().length > 0);
    assert.deepEqual(
      requestsTo(mf, '/api/v3/accounts').map((e) => e.status),
      [401, 200],
    );
    assert.equal(requestsTo(mf, '/auth/exchange').length, 2);
  });

  test('401 twice → MfAuthError', () => {
    const { mf, client } = harness();
    mf.injectFault({ kind: '401-once', times: 2 });
    const error = thrown(() => client.taxes());
    assert.ok(error instanceof MfAuthError);
    assert.equal(error.status, 401);
  });

  test('429 is waited out with Retry-After, or a backoff, then gives up', () => {
    const { mf, clock, client } = harness();
    mf.injectFault({ kind: '429', retryAfterSeconds: 3 });
    mf.injectFault({ kind: '429' });
    assert.ok(client.taxes().length > 0);
    // The second retry doubles the backoff (1 s, 2 s, …) when MF sends no Retry-After.
    assert.deepEqual(clock.sleeps.slice(0, 2), [3000, 2000]);
    mf.injectFault({ kind: '429', times: 10 });
    const error = thrown(() => client.taxes());
    assert.ok(error instanceof MfApiError);
    assert.equal(error.status, 429);
    assert.equal(error.code, 'too_many_requests');
  });

  test('5xx, timeouts and MF 4xx are MfApiError with status, code and a Japanese message, no secrets', () => {
    const { mf, client, auth } = harness();
    const token = auth.accessToken();
    mf.injectFault({ kind: '5xx-before-commit' });
    const server = thrown(() => client.taxes());
    assert.ok(server instanceof MfApiError);
    assert.equal(server.status, 500);
    assert.equal(server.code, 'internal_error');
    assert.match(
      server.message,
      /MF でエラーが起きました（HTTP 500）。しばらく待ってから再実行してください。 \[internal_error\]$/,
    );

    mf.injectFault({ kind: 'timeout-before-commit' });
    const timeout = thrown(() => client.taxes());
    assert.ok(timeout instanceof MfApiError);
    assert.equal(timeout.status, null);
    assert.equal(timeout.code, 'timeout');

    mf.injectFault({ kind: '403' });
    const forbidden = thrown(() => client.taxes());
    assert.ok(forbidden instanceof MfApiError);
    assert.equal(forbidden.code, 'insufficient_permissions');
    // A 403 names the missing permission and where it is granted, and never says to fix the row.
    assert.match(forbidden.message, /「税の参照」の権限（mfc\/accounting\/taxes\.read）/);
    assert.match(forbidden.message, /APIキー管理/);
    assert.doesNotMatch(forbidden.message, /直して|再試行/);
    assert.match(forbidden.message, /\[insufficient_permissions\]$/);

    const outside = thrown(() => client.listJournals({ startDate: '2020-01-01' }));
    assert.ok(outside instanceof MfApiError);
    assert.equal(outside.status, 400);
    assert.equal(outside.detail, Messages.outsidePeriod);
    assert.match(outside.message, /^取引日が MF の会計期間の外です。.*\[invalid_query_parameter_value\]$/);
    assert.doesNotMatch(outside.message, /Given date/);

    for (const error of [server, timeout, forbidden, outside]) {
      assertNoSecret(`${error.message} ${JSON.stringify(error)}`, [TEST_API_KEY, token]);
    }
  });

  test('a body MF did not send as JSON is a clear error', () => {
    const { client, http } = harness();
    const original = http.send.bind(http);
    http.send = (req) => {
      const res = original(req);
      return req.url.includes('/api/v3/')
        ? { status: 502, headers: {}, body: '<html><b>Bad gateway</b></html>' }
        : res;
    };
    const error = thrown(() => client.taxes());
    assert.ok(error instanceof MfApiError);
    assert.equal(error.code, 'http_502');
    assert.equal(error.detail, 'Bad gateway');
  });
});

describe('rate limiter', () => {
  test('requests reach MF at least 350 ms apart', () => {
    const { mf, client } = harness({ fake: { lineCount: 1200 }, latencyMs: 120 });
    client.taxes();
    client.listTransactions({ startDate: '2026-01-01', endDate: '2026-06-30' });
    client.accounts();
    const times = mf.requestLog.filter((e) => e.path.startsWith('/api/v3/')).map((e) => e.time);
    assert.ok(times.length >= 5);
    for (let i = 1; i < times.length; i++) {
      assert.ok((times[i] ?? 0) - (times[i - 1] ?? 0) >= 350, `gap ${i}: ${times.join(',')}`);
    }
  });

  test('a shared limiter spaces two clients together, and stays under MF’s 3 requests per second', () => {
    const a = harness();
    const limiter = new RateLimiter(a.clock);
    const opts = { apiBaseUrl: API_BASE, http: a.http, clock: a.clock, auth: a.auth, limiter };
    const first = new MfClient(opts);
    const second = new MfClient(opts);
    a.mf.setRateLimit({ requestsPerSecond: 3 });
    for (let i = 0; i < 5; i++) {
      first.taxes();
      second.taxes();
    }
    assert.ok(a.mf.requestLog.every((e) => e.status === 200));
    assert.equal(a.clock.sleeps.length > 0, true);
  });
});

test('journalsBetween covers every accounting period in the range', () => {
  const { client, mf } = harness();
  const periods = mf.office.accounting_periods;
  assert.ok(periods.length >= 2);
  const all = client.journalsBetween('2025-04-01', '2027-03-31');
  assert.ok(mf.journals().length > 0);
  assert.equal(all.length, mf.journals().length);
});

describe('a 事業者コード the key cannot open (issue 25)', () => {
  for (const value of WRONG_OFFICE_CODE_VALUES) {
    test(`GET /offices refused (${value}): a wrong 事業者コード, named, with where to find the right one`, () => {
      // The second office's key with this office's code: MF will not open the office for it.
      const h = harness({ fake: { otherOffice: true, wrongOfficeCode: value }, apiKey: TEST_API_KEY_OTHER });
      const error = thrown(() => h.client.office());
      assert.ok(error instanceof MfOfficeCodeError, `${value}: ${error.name} ${error.message}`);
      assert.ok(error instanceof MfAuthError, 'stops a run as an auth failure does');
      assert.match(error.message, /事業者コード「1234-5678」の事業者を開けませんでした/);
      assert.match(error.message, /「？」→「事業者番号」/);
      assert.doesNotMatch(error.message, /担当者|問い合わせの形/);
      assertNoSecret(error.message, [TEST_API_KEY_OTHER]);
    });
  }

  test('other refusals are not said as a wrong code: a 403 elsewhere, or any answer in OAuth mode', () => {
    const h = harness();
    h.mf.injectFault({ kind: '403', match: { path: '/api/v3/accounts' } });
    assert.ok(!(thrown(() => h.client.accounts()) instanceof MfOfficeCodeError));
    const o = harness();
    o.mf.injectFault({ kind: '403', match: { path: '/api/v3/offices' } });
    const oauth = new MfClient({
      apiBaseUrl: API_BASE,
      http: o.http,
      clock: o.clock,
      auth: {
        accessToken: () => o.mf.issueAccessToken('oauth'),
        invalidate: () => {},
        officeCode: null,
        refresh: () => false,
      },
    });
    assert.ok(!(thrown(() => oauth.office()) instanceof MfOfficeCodeError));
  });
});
