import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TEST_API_KEY } from '../../sim/mf/fake-mf';
import { AUTH, assertError, firstLine, journalBody, setup, toReply } from './helpers';

const JOURNALIZE = '/api/v3/transactions/journalize';
const JOURNALS = '/api/v3/journals';

function journalizeOnce(s: ReturnType<typeof setup>) {
  // In the current term, so that listings from 2026-04-01 can see its journal.
  const line = firstLine(s.mf, (tx) => tx.date >= '2026-04-01');
  const reply = s.client.post(JOURNALIZE, {
    transaction_id: line.id,
    account_id: s.mf.findAccount('雑費').id,
  });
  return { line, reply };
}

describe('faults around a write', () => {
  test('commit-then-timeout applies the write, then the client sees a timeout', () => {
    const s = setup();
    s.mf.injectFault({ kind: 'commit-then-timeout', match: { method: 'POST', path: JOURNALIZE } });
    const { line, reply } = journalizeOnce(s);
    assert.equal(reply.raw.fault, 'timeout');
    assert.equal(reply.status, 504);
    assert.equal(reply.headers['x-fake-mf-fault'], 'timeout');
    assert.equal(s.mf.journalsForTransaction(line.id).length, 1, 'the journal exists');
    assert.equal(s.mf.transaction(line.id)?.journalizing_status, 'registered');
    // The fault is spent: a retry is now rejected by MF as already journalized.
    assertError(
      s.client.post(JOURNALIZE, { transaction_id: line.id, account_id: s.mf.findAccount('雑費').id }),
      400,
      'invalid_request_body_value',
    );
  });

  test('timeout-before-commit and unreachable apply nothing', () => {
    for (const kind of ['timeout-before-commit', 'unreachable'] as const) {
      const s = setup();
      s.mf.injectFault({ kind });
      const { line, reply } = journalizeOnce(s);
      assert.equal(reply.raw.fault, kind === 'unreachable' ? 'unreachable' : 'timeout');
      assert.equal(s.mf.journalsForTransaction(line.id).length, 0);
      assert.equal(s.mf.transaction(line.id)?.journalizing_status, 'none');
    }
  });

  test('5xx-before-commit: 500 internal_error and nothing applied', () => {
    const s = setup();
    s.mf.injectFault({ kind: '5xx-before-commit', match: { path: JOURNALS } });
    const before = s.mf.journals().length;
    assertError(s.client.post(JOURNALS, journalBody(s.mf)), 500, 'internal_error');
    assert.equal(s.mf.journals().length, before);
  });

  test('5xx-after-commit: 500 internal_error but the journal exists', () => {
    const s = setup();
    s.mf.injectFault({ kind: '5xx-after-commit', match: { method: 'POST', path: JOURNALS } });
    assertError(s.client.post(JOURNALS, journalBody(s.mf)), 500, 'internal_error');
    assert.equal(s.mf.journalsByTag('kc-0123456789abcdef').length, 1);
  });
});

describe('refusals', () => {
  test('429 with Retry-After when asked, without otherwise', () => {
    const s = setup();
    s.mf.injectFault({ kind: '429', retryAfterSeconds: 7 });
    const limited = s.client.get('/api/v3/offices');
    assertError(limited, 429, 'too_many_requests', 'Operations per second is over the account limit.');
    assert.equal(limited.headers['Retry-After'], '7');
    s.mf.injectFault({ kind: '429' });
    const bare = s.client.get('/api/v3/offices');
    assertError(bare, 429, 'too_many_requests');
    assert.equal(bare.headers['Retry-After'], undefined);
    assert.equal(s.client.get('/api/v3/offices').status, 200);
  });

  test('401-once rejects a valid token once', () => {
    const s = setup();
    s.mf.injectFault({ kind: '401-once' });
    assertError(s.client.get('/api/v3/offices'), 401, 'access_token_is_not_active_or_invalid');
    assert.equal(s.client.get('/api/v3/offices').status, 200);
  });

  test('403 insufficient_permissions', () => {
    const s = setup();
    s.mf.injectFault({ kind: '403', match: { method: 'POST' } });
    assert.equal(s.client.get('/api/v3/offices').status, 200, 'method does not match');
    assertError(s.client.post(JOURNALS, journalBody(s.mf)), 403, 'insufficient_permissions');
  });
});

describe('matching and counting', () => {
  test('times hits that many matching requests; Infinity until cancelled', () => {
    const s = setup();
    const handle = s.mf.injectFault({
      kind: '5xx-before-commit',
      match: { path: '/api/v3/offices' },
      times: 2,
    });
    assert.equal(s.client.get('/api/v3/taxes').status, 200, 'other paths pass');
    assert.equal(s.client.get('/api/v3/offices').status, 500);
    assert.equal(handle.remaining(), 1);
    assert.equal(s.client.get('/api/v3/offices').status, 500);
    assert.equal(s.client.get('/api/v3/offices').status, 200);
    const forever = s.mf.injectFault({ kind: '403', times: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 5; i++) assert.equal(s.client.get('/api/v3/taxes').status, 403);
    forever.cancel();
    assert.equal(s.client.get('/api/v3/taxes').status, 200);
    assert.deepEqual(s.mf.pendingFaults(), []);
  });

  test('a RegExp path matches /journals/{id}', () => {
    const s = setup();
    const id = s.mf.journals()[0]?.id;
    s.mf.injectFault({
      kind: '5xx-before-commit',
      match: { method: 'DELETE', path: /^\/api\/v3\/journals\/.+/ },
    });
    assert.equal(s.client.delete(`${JOURNALS}/${id}`).status, 500);
    assert.equal(s.client.delete(`${JOURNALS}/${id}`).status, 204);
  });

  test('without a path a fault never hits the auth endpoints; with one it does', () => {
    const s = setup();
    s.mf.injectFault({ kind: '429' });
    const exchange = () =>
      toReply(
        s.mf.handle({
          method: 'POST',
          url: `${AUTH}/auth/exchange`,
          headers: { Authorization: `Bearer ${TEST_API_KEY}` },
        }),
      );
    assert.equal(exchange().status, 200);
    assert.equal(s.client.get('/api/v3/offices').status, 429);
    s.mf.injectFault({ kind: 'timeout-before-commit', match: { path: '/auth/exchange' } });
    assert.equal(exchange().raw.fault, 'timeout');
  });

  test('clearFaults drops everything pending', () => {
    const s = setup();
    s.mf.injectFault({ kind: '403' });
    s.mf.injectFault({ kind: 'visibility-lag' });
    s.mf.clearFaults();
    assert.equal(s.client.get('/api/v3/offices').status, 200);
  });

  test('the request log records status and fault', () => {
    const s = setup();
    s.mf.injectFault({ kind: 'commit-then-timeout', match: { path: JOURNALS } });
    s.client.post(JOURNALS, journalBody(s.mf));
    s.client.get('/api/v3/offices');
    const [first, second] = s.mf.requestLog;
    assert.deepEqual(
      { method: first?.method, path: first?.path, status: first?.status, fault: first?.fault },
      { method: 'POST', path: JOURNALS, status: 504, fault: 'commit-then-timeout' },
    );
    assert.equal(first?.query, 'office_code=1234-5678');
    assert.equal(second?.fault, undefined);
    s.mf.clearRequestLog();
    assert.equal(s.mf.requestLog.length, 0);
  });
});

describe('visibility lag', () => {
  const listing = (s: ReturnType<typeof setup>, query: string) =>
    s.client.get(`${JOURNALS}?start_date=2026-04-01&per_page=10000&${query}`).json.journals as {
      id: string;
    }[];

  test('a created journal is hidden from the next lagReads listings, but GET by id sees it', () => {
    const s = setup();
    s.mf.injectFault({ kind: 'visibility-lag', lagReads: 2, match: { path: JOURNALIZE } });
    const { line, reply } = journalizeOnce(s);
    assert.equal(reply.status, 201);
    const id = reply.json.journal.id;
    assert.equal(listing(s, `transaction_ids=${line.id}`).length, 0);
    assert.equal(s.client.get(`${JOURNALS}/${encodeURIComponent(id)}`).status, 200);
    assert.equal(listing(s, '').filter((j) => j.id === id).length, 0);
    assert.equal(listing(s, `transaction_ids=${line.id}`).length, 1);
  });

  test('visibilityLagMaxMs ends the hiding in time, however few listings came (a lag is a span of time)', () => {
    const s = setup({ visibilityLagMaxMs: 15 * 60_000 });
    s.mf.injectFault({ kind: 'visibility-lag', lagReads: 4, match: { path: JOURNALIZE } });
    const { reply } = journalizeOnce(s);
    const id = reply.json.journal.id;
    assert.ok(!listing(s, '').some((j) => j.id === id), 'hidden at first');
    s.clock.now += 15 * 60_000 - 1;
    assert.ok(!listing(s, '').some((j) => j.id === id), 'still hidden just before the limit');
    s.clock.now += 1;
    assert.ok(
      listing(s, '').some((j) => j.id === id),
      'listed once the limit passed, two listings early',
    );
  });

  test('the fault waits for a request that actually creates a journal', () => {
    const s = setup();
    s.mf.injectFault({ kind: 'visibility-lag' });
    assert.equal(s.client.post(JOURNALS, journalBody(s.mf, { branches: [] })).status, 400);
    assert.equal(s.mf.pendingFaults().length, 1);
    const id = s.client.post(JOURNALS, journalBody(s.mf)).json.journal.id;
    assert.equal(s.mf.pendingFaults().length, 0);
    assert.ok(!listing(s, '').some((j) => j.id === id));
    assert.ok(listing(s, '').some((j) => j.id === id));
  });

  test('journalVisibilityLag applies to every new journal', () => {
    const s = setup({ journalVisibilityLag: 1 });
    const a = s.client.post(JOURNALS, journalBody(s.mf)).json.journal.id;
    const b = s.client.post(JOURNALS, journalBody(s.mf)).json.journal.id;
    const first = listing(s, '').map((j) => j.id);
    assert.ok(!first.includes(a) && !first.includes(b));
    const second = listing(s, '').map((j) => j.id);
    assert.ok(second.includes(a) && second.includes(b));
  });
});

describe('automatic rate limit', () => {
  test('off by default', () => {
    const s = setup();
    for (let i = 0; i < 20; i++) assert.equal(s.client.get('/api/v3/taxes').status, 200);
  });

  test('more than N requests within a second of fake time get 429', () => {
    const s = setup({ rateLimit: { requestsPerSecond: 3, retryAfterSeconds: 1 } });
    for (let i = 0; i < 3; i++) assert.equal(s.client.get('/api/v3/taxes').status, 200);
    const limited = s.client.get('/api/v3/taxes');
    assertError(limited, 429, 'too_many_requests');
    assert.equal(limited.headers['Retry-After'], '1');
    assert.equal(s.mf.requestLog.at(-1)?.fault, 'rate-limit');
    s.clock.now += 1000;
    assert.equal(s.client.get('/api/v3/taxes').status, 200);
  });

  test('setRateLimit turns it on and off; a call every 350 ms stays under 3/s', () => {
    const s = setup();
    s.mf.setRateLimit({ requestsPerSecond: 3 });
    for (let i = 0; i < 10; i++) {
      assert.equal(s.client.get('/api/v3/taxes').status, 200);
      s.clock.now += 350;
    }
    s.mf.setRateLimit(undefined);
    for (let i = 0; i < 10; i++) assert.equal(s.client.get('/api/v3/taxes').status, 200);
  });
});

describe('reset', () => {
  test('restores the seeded books and clears tokens, faults and the log', () => {
    const s = setup();
    const before = s.mf.journals().length;
    journalizeOnce(s);
    s.mf.injectFault({ kind: '403' });
    s.mf.reset();
    assert.equal(s.mf.journals().length, before);
    assert.equal(s.mf.requestLog.length, 0);
    assertError(s.client.get('/api/v3/offices'), 401, 'access_token_is_not_active_or_invalid');
    assert.deepEqual(s.mf.pendingFaults(), []);
  });
});
