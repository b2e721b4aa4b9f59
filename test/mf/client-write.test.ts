import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Messages } from '../../sim/mf/errors';
import type { CreateJournalRequest, SendOutcome } from '../../src/mf/types';
import { assertNoSecret, firstLine, type Harness, harness, requestsTo, TEST_API_KEY } from './helpers';

const JOURNALIZE = '/api/v3/transactions/journalize';
const JOURNALS = '/api/v3/journals';
const TAG = 'kc-0123456789abcdef';

function lineInCurrentTerm(h: Harness) {
  return firstLine(h.mf, (tx) => tx.date >= '2026-04-01');
}

function journalize(h: Harness, accountName = '雑費'): { outcome: SendOutcome; lineId: string } {
  const line = lineInCurrentTerm(h);
  const outcome = h.client.journalize({
    transaction_id: line.id,
    account_id: h.mf.findAccount(accountName).id,
    tags: [TAG],
  });
  return { outcome, lineId: line.id };
}

function csvJournal(h: Harness): CreateJournalRequest {
  return {
    journal: {
      transaction_date: '2026-05-10',
      journal_type: 'journal_entry',
      tags: [TAG],
      branches: [
        {
          remark: '事務用品',
          debitor: { account_id: h.mf.findAccount('消耗品費').id, value: 1100 },
          creditor: { account_id: h.mf.findAccount('現金').id, value: 1100 },
        },
      ],
    },
  };
}

describe('journalize', () => {
  test('created: the journal is linked to the line and carries our tag; ids in the body as stored', () => {
    const h = harness();
    const { outcome, lineId } = journalize(h);
    assert.match(lineId, /%2[BF]/);
    assert.equal(outcome.kind, 'created');
    const [journal] = h.mf.journalsForTransaction(lineId);
    assert.ok(journal);
    assert.equal(outcome.kind === 'created' && outcome.journalId, journal.id);
    assert.deepEqual(journal.tags, [TAG]);
    const request = h.http.sent.at(-1);
    assert.ok(request);
    assert.equal(request.method, 'post');
    assert.equal(request.headers['Content-Type'], 'application/json');
    assert.equal(request.contentType, 'application/json');
    assert.equal(JSON.parse(request.payload ?? '{}').transaction_id, lineId);
    assert.ok((request.payload ?? '').includes(lineId));
  });

  for (const wording of ['generic', 'invented'] as const) {
    test(`a second journalize (${wording} wording) → rejected with MF's code; the client decides nothing on the text`, () => {
      const h = harness({ fake: { secondJournalize: wording } });
      const { lineId } = journalize(h);
      const again = h.client.journalize({
        transaction_id: lineId,
        account_id: h.mf.findAccount('雑費').id,
        tags: [TAG],
      });
      assert.equal(again.kind, 'rejected');
      if (again.kind !== 'rejected') return;
      assert.equal(again.status, 400);
      assert.equal(again.code, 'invalid_request_body_value');
      assert.equal(
        again.message,
        wording === 'invented'
          ? Messages.alreadyJournalized
          : 'The specified value for one of the request body keys is not valid. Target',
      );
      assert.match(again.explanation, /\[invalid_request_body_value\]$/);
      assert.equal(h.mf.journalsForTransaction(lineId).length, 1);
    });
  }

  test('a line excluded in MF → rejected like any other 400 (the caller looks the line up)', () => {
    const h = harness();
    const line = lineInCurrentTerm(h);
    h.mf.updateTransaction(line.id, { journalizing_status: 'excluded' });
    const outcome = h.client.journalize({
      transaction_id: line.id,
      account_id: h.mf.findAccount('雑費').id,
      tags: [],
    });
    assert.equal(outcome.kind, 'rejected');
  });

  test('an inactive account → rejected with MF’s code, its document text, and a Japanese explanation', () => {
    const h = harness();
    const { outcome, lineId } = journalize(h, '諸会費');
    assert.equal(outcome.kind, 'rejected');
    if (outcome.kind !== 'rejected') return;
    assert.equal(outcome.code, 'invalid_request_body_value');
    assert.equal(outcome.status, 400);
    assert.match(
      outcome.explanation,
      /^送った内容の一部を MF が受け付けませんでした。.*「再試行」.*\[invalid_request_body_value\]$/,
    );
    assert.equal(h.mf.journalsForTransaction(lineId).length, 0);
  });

  test('403 on a journalize names 仕訳の登録 (journal.write) and where it is granted; no 再試行 advice', () => {
    const h = harness();
    h.mf.injectFault({ kind: '403', match: { path: JOURNALIZE } });
    const { outcome } = journalize(h);
    assert.equal(outcome.kind, 'rejected');
    if (outcome.kind !== 'rejected') return;
    assert.match(
      outcome.explanation,
      /「仕訳の登録、更新、削除」の権限（mfc\/accounting\/journal\.write）がありません/,
    );
    assert.match(outcome.explanation, /アプリポータル/);
    assert.doesNotMatch(outcome.explanation, /再試行/);
  });

  test('429 → rate-limited with Retry-After in ms, sent once', () => {
    const h = harness();
    h.mf.injectFault({ kind: '429', match: { path: JOURNALIZE }, retryAfterSeconds: 7 });
    assert.deepEqual(journalize(h).outcome, { kind: 'rate-limited', retryAfterMs: 7000 });
    h.mf.injectFault({ kind: '429', match: { path: JOURNALIZE } });
    assert.deepEqual(journalize(h).outcome, { kind: 'rate-limited', retryAfterMs: null });
    assert.equal(requestsTo(h.mf, JOURNALIZE).length, 2);
  });

  test('5xx before commit → unknown (nothing exists); 5xx after commit → unknown (the journal exists)', () => {
    const h = harness();
    h.mf.injectFault({ kind: '5xx-before-commit', match: { path: JOURNALIZE } });
    const before = journalize(h);
    assert.equal(before.outcome.kind, 'unknown');
    assert.equal(h.mf.journalsForTransaction(before.lineId).length, 0);

    h.mf.injectFault({ kind: '5xx-after-commit', match: { path: JOURNALIZE } });
    const after = journalize(h);
    assert.equal(after.outcome.kind, 'unknown');
    assert.match(after.outcome.kind === 'unknown' ? after.outcome.reason : '', /HTTP 500/);
    assert.equal(h.mf.journalsForTransaction(after.lineId).length, 1);
    assert.equal(requestsTo(h.mf, JOURNALIZE).length, 2, 'never resent');
  });

  test('commit-then-timeout → unknown, sent once, and the journal exists in MF', () => {
    const h = harness();
    h.mf.injectFault({ kind: 'commit-then-timeout', match: { path: JOURNALIZE } });
    const { outcome, lineId } = journalize(h);
    assert.equal(outcome.kind, 'unknown');
    assert.match(outcome.kind === 'unknown' ? outcome.reason : '', /タイムアウト/);
    assert.equal(requestsTo(h.mf, JOURNALIZE).length, 1);
    assert.equal(h.mf.journalsForTransaction(lineId).length, 1);
    // What reconcile does next: look it up by transaction id.
    const found = h.client.listJournals({ startDate: '2026-04-01', transactionIds: [lineId] });
    assert.deepEqual(
      found.map((j) => j.tags),
      [[TAG]],
    );
  });

  test('unreachable → unknown', () => {
    const h = harness();
    h.mf.injectFault({ kind: 'unreachable', match: { path: JOURNALIZE } });
    assert.equal(journalize(h).outcome.kind, 'unknown');
  });

  test('401 once → refreshed and resent once; 401 twice → unauthorized', () => {
    const h = harness();
    h.auth.accessToken();
    h.mf.injectFault({ kind: '401-once', match: { path: JOURNALIZE } });
    const ok = journalize(h);
    assert.equal(ok.outcome.kind, 'created');
    assert.deepEqual(
      requestsTo(h.mf, JOURNALIZE).map((e) => e.status),
      [401, 201],
    );
    assert.equal(h.mf.journalsForTransaction(ok.lineId).length, 1);

    h.mf.clearRequestLog();
    h.mf.injectFault({ kind: '401-once', match: { path: JOURNALIZE }, times: 2 });
    const denied = journalize(h);
    assert.equal(denied.outcome.kind, 'unauthorized');
    assert.equal(requestsTo(h.mf, JOURNALIZE).length, 2);
    assert.equal(h.mf.journalsForTransaction(denied.lineId).length, 0);
  });

  test('an API key MF refuses → unauthorized with the Japanese message, nothing sent, no key in it', () => {
    const h = harness({ apiKey: 'mf_api_prd_not_valid_0001' });
    const { outcome } = journalize(h);
    assert.deepEqual(outcome, {
      kind: 'unauthorized',
      message: 'MFのAPIキーが無効です。設定し直してください。',
    });
    assert.equal(requestsTo(h.mf, JOURNALIZE).length, 0);
    assertNoSecret(JSON.stringify(outcome), ['mf_api_prd_not_valid_0001', TEST_API_KEY]);
  });

  test('a 2xx without a journal id → unknown (reconcile finds it)', () => {
    const h = harness();
    const original = h.http.send.bind(h.http);
    h.http.send = (req) => {
      const res = original(req);
      return req.method === 'post' && req.url.includes(JOURNALIZE) ? { ...res, body: '' } : res;
    };
    assert.equal(journalize(h).outcome.kind, 'unknown');
  });
});

describe('createJournal (CSV lines)', () => {
  test('created with the tag; the body’s account ids as stored', () => {
    const h = harness();
    const body = csvJournal(h);
    const outcome = h.client.createJournal(body);
    assert.equal(outcome.kind, 'created');
    const [journal] = h.mf.journalsByTag(TAG);
    assert.ok(journal);
    assert.equal(outcome.kind === 'created' && outcome.journalId, journal.id);
    assert.equal(journal.transaction_id, null);
    const listed = h.client.listJournals({ startDate: '2026-05-10', endDate: '2026-05-10' });
    assert.ok(listed.some((j) => j.id === journal.id && j.tags.includes(TAG)));
  });

  test('an unbalanced branch → rejected; 5xx after commit → unknown and the journal exists', () => {
    const h = harness();
    const bad = csvJournal(h);
    const branch = bad.journal.branches[0];
    assert.ok(branch);
    branch.creditor.value = 1000;
    const rejected = h.client.createJournal(bad);
    assert.equal(rejected.kind, 'rejected');
    assert.equal(rejected.kind === 'rejected' && rejected.code, 'invalid_request_body_value');

    h.mf.injectFault({ kind: '5xx-after-commit', match: { path: JOURNALS } });
    assert.equal(h.client.createJournal(csvJournal(h)).kind, 'unknown');
    assert.equal(h.mf.journalsByTag(TAG).length, 1);
  });
});

describe('deleteJournal', () => {
  function created(h: Harness): string {
    const { outcome } = journalize(h);
    assert.equal(outcome.kind, 'created');
    return outcome.kind === 'created' ? outcome.journalId : '';
  }

  test('deleted (204): the id in the path encoded once more, no body; a second delete is absent', () => {
    const h = harness();
    const id = created(h);
    assert.deepEqual(h.client.deleteJournal(id), { kind: 'deleted' });
    const request = h.http.sent.at(-1);
    assert.equal(request?.method, 'delete');
    assert.equal(request?.payload, undefined);
    assert.ok(request?.url.includes(`/journals/${encodeURIComponent(id)}?`));
    assert.equal(
      h.mf.journals().some((j) => j.id === id),
      false,
    );
    assert.deepEqual(h.client.deleteJournal(id), { kind: 'absent' });
  });

  test('a timeout or a 5xx is unknown (sent once, never again by the client); 429 and 401', () => {
    for (const kind of [
      'commit-then-timeout',
      'timeout-before-commit',
      '5xx-after-commit',
      '5xx-before-commit',
    ] as const) {
      const h = harness();
      const id = created(h);
      h.mf.injectFault({ kind, match: { method: 'DELETE' } });
      assert.equal(h.client.deleteJournal(id).kind, 'unknown', kind);
      assert.equal(h.mf.requestLog.filter((e) => e.method === 'DELETE').length, 1, kind);
    }
    const h = harness();
    const id = created(h);
    h.mf.injectFault({ kind: '429', retryAfterSeconds: 3, match: { method: 'DELETE' } });
    assert.deepEqual(h.client.deleteJournal(id), { kind: 'rate-limited', retryAfterMs: 3000 });
    h.mf.injectFault({ kind: '401-once', match: { method: 'DELETE' } });
    assert.deepEqual(
      h.client.deleteJournal(id),
      { kind: 'deleted' },
      'a 401 is refreshed and sent once more',
    );
  });

  test('403 is rejected with the permission to grant, in Japanese', () => {
    const h = harness();
    const id = created(h);
    h.mf.injectFault({ kind: '403', match: { method: 'DELETE' } });
    const outcome = h.client.deleteJournal(id);
    assert.equal(outcome.kind, 'rejected');
    assert.match(
      outcome.kind === 'rejected' ? outcome.explanation : '',
      /journal\.write|仕訳の登録、更新、削除/,
    );
  });
});

describe('trialBalanceBs', () => {
  test('one GET with the dates and with_sub_accounts; the tree as MF sends it', () => {
    const h = harness();
    const tb = h.client.trialBalanceBs({
      startDate: '2026-04-01',
      endDate: '2026-04-30',
      withSubAccounts: true,
    });
    assert.equal(tb.columns[3], 'closing_balance');
    assert.ok(tb.rows.length > 0);
    const [req] = requestsTo(h.mf, '/api/v3/reports/trial_balance_bs');
    assert.match(req.query, /start_date=2026-04-01&end_date=2026-04-30&with_sub_accounts=true/);
  });
});
