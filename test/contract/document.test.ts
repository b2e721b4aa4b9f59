/**
 * MF's published OpenAPI document as the contract (issue 12 §1). The vendored document is MF's text,
 * unchanged; every operation the client calls is in it with the scope kicho asks for; the checker refuses
 * what the document refuses; every named difference of the fake is listed in sim/mf/README.md with its
 * evidence and is shown here, by name, to be what it says.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { DIFFERENCE_NAMES, DIFFERENCES, type DifferenceName } from '../../sim/mf/differences';
import { Messages } from '../../sim/mf/errors';
import { FakeMf, TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../../sim/mf/fake-mf';
import type { HttpRequest, HttpResponse } from '../../sim/mf/types';
import { MfClient } from '../../src/mf/client';
import { KICHO_SCOPES, OPERATION_SCOPES, SCOPE_LABELS } from '../../src/mf/scopes';
import { API_BASE, AUTH_BASE, FakeClock, FakeHttp, firstLine, harness } from '../mf/helpers';
import { type Contract, ContractLog, DOCUMENT_PATH } from './contract';
import { contract } from './shared';

const ROOT = path.resolve(path.dirname(DOCUMENT_PATH), '../..');
const SHA256 = '7eee4d3459798ae9dfff99083c5b143dd11de142555443b0e70c17990f069b7e';

/** A harness whose exchanges go to a log of this test (as well as the file's). */
function logged(options: Parameters<typeof harness>[0] = {}) {
  const h = harness(options);
  const log = new ContractLog(contract);
  const original = h.mf.handle.bind(h.mf);
  h.mf.handle = (req: HttpRequest): HttpResponse => {
    const res = original(req);
    log.record(req, res);
    return res;
  };
  return { ...h, log };
}

function exchange(c: Contract, req: Partial<HttpRequest> & { url: string }, res: Partial<HttpResponse> = {}) {
  return c.check(
    { method: 'GET', headers: { Authorization: 'Bearer t' }, ...req },
    { status: 200, headers: {}, body: '{"taxes":[]}', ...res },
  );
}

describe('the vendored document', () => {
  test('is MF’s text byte for byte (sha256 as in its README)', () => {
    const bytes = readFileSync(DOCUMENT_PATH);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), SHA256);
    assert.match(
      readFileSync(path.join(path.dirname(DOCUMENT_PATH), 'README.md'), 'utf8'),
      new RegExp(SHA256),
    );
    assert.equal(contract.operationIds().length, 23);
  });

  test('every operation the client calls is in the document, with the scope kicho asks for', () => {
    for (const [operation, scope] of Object.entries(OPERATION_SCOPES)) {
      const [method, template] = operation.split(' ');
      const op = contract.operationFor(method ?? '', (template ?? '').replace('{id}', 'abc%252Bdef'));
      assert.ok(op?.operationId, `${operation} is not in the document`);
      assert.deepEqual(contract.scopesOf(op.operationId), [scope], operation);
      assert.ok(SCOPE_LABELS[scope], `a label for ${scope}`);
    }
    assert.deepEqual([...KICHO_SCOPES].sort(), [...new Set(Object.values(OPERATION_SCOPES))].sort());
  });
});

describe('the checker refuses what the document refuses', () => {
  test('an operation the document does not have', () => {
    const [finding] = exchange(contract, { url: `${API_BASE}/api/v3/vouchers/list` });
    assert.equal(finding?.difference, null);
    assert.match(finding?.detail ?? '', /no such operation/);
  });

  test('array parameters must be form-style and exploded: k[]= is not, and neither is an unknown name', () => {
    const bracket = exchange(
      contract,
      {
        url: `${API_BASE}/api/v3/journals?start_date=2026-04-01&transaction_ids[]=abc`,
      },
      { body: '{"journals":[],"metadata":{"total_count":0,"total_pages":0}}' },
    );
    assert.ok(bracket.some((f) => f.difference === null && /transaction_ids\[\]/.test(f.detail)));
    const good = exchange(
      contract,
      {
        url: `${API_BASE}/api/v3/journals?start_date=2026-04-01&transaction_ids=a%2B&transaction_ids=b&per_page=10000`,
      },
      { body: '{"journals":[],"metadata":{"total_count":0,"total_pages":0}}' },
    );
    assert.deepEqual(good, []);
    const tooMany = exchange(
      contract,
      {
        url: `${API_BASE}/api/v3/journals?start_date=2026-04-01&per_page=10001`,
      },
      { body: '{"journals":[],"metadata":{"total_count":0,"total_pages":0}}' },
    );
    assert.ok(tooMany.some((f) => /per_page/.test(f.detail)));
  });

  test('request bodies by their schema: maxLength in characters, nullable, required keys', () => {
    const body = (b: unknown) =>
      exchange(
        contract,
        {
          method: 'POST',
          url: `${API_BASE}/api/v3/transactions/journalize`,
          headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
          body: JSON.stringify(b),
        },
        {
          status: 400,
          body: JSON.stringify({
            errors: [{ code: 'invalid_input', message: 'One of the requests inputs is not valid. Target' }],
          }),
        },
      );
    assert.deepEqual(
      body({ transaction_id: 'a', account_id: 'b', tax_id: null, remark: '𠮷'.repeat(200) }),
      [],
    );
    assert.ok(
      body({ transaction_id: 'a', account_id: 'b', remark: 'x'.repeat(201) }).some((f) =>
        /remark/.test(f.detail),
      ),
    );
    assert.ok(body({ account_id: 'b' }).some((f) => /transaction_id/.test(f.detail)));
  });

  test('answers by the schema of their status: an English text the document does not list, an undeclared status', () => {
    const wrongText = exchange(
      contract,
      { url: `${API_BASE}/api/v3/taxes` },
      {
        status: 401,
        body: JSON.stringify({
          errors: [{ code: 'access_token_is_not_active_or_invalid', message: 'Token expired.' }],
        }),
      },
    );
    assert.ok(wrongText.some((f) => f.difference === null && f.part === 'response'));
    const undeclared = exchange(contract, { url: `${API_BASE}/api/v3/taxes` }, { status: 404, body: '{}' });
    assert.ok(undeclared.some((f) => /404 is not declared/.test(f.detail)));
    const noToken = exchange(contract, { url: `${API_BASE}/api/v3/taxes`, headers: {} });
    assert.ok(noToken.some((f) => /Bearer/.test(f.detail)));
  });
});

describe('the client, through its real code paths, keeps to the document in every operation it calls', () => {
  test('masters, lines, journals, journalize, POST /journals, GET and DELETE /journals/{id}, the trial balance', () => {
    const h = logged();
    h.client.office();
    h.client.accounts();
    h.client.taxes();
    h.client.tradePartners();
    h.client.connectedAccounts();
    h.client.termSettings();
    h.client.listTransactions({ startDate: '2026-01-01', endDate: '2026-06-30', statuses: ['none'] });
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01');
    const account = h.mf.findAccount('雑費').id;
    const outcome = h.client.journalize({
      transaction_id: line.id,
      account_id: account,
      tags: ['kc-0000000000000000'],
    });
    assert.equal(outcome.kind, 'created');
    h.client.journalsBetween('2026-01-01', '2026-06-30', { transactionIds: [line.id] });
    const cash = h.mf.findAccount('現金').id;
    h.client.createJournal({
      journal: {
        transaction_date: '2026-05-10',
        journal_type: 'journal_entry',
        tags: ['kc-1111111111111111'],
        branches: [
          {
            remark: '摘要',
            debitor: { account_id: account, value: 550 },
            creditor: { account_id: cash, value: 550 },
          },
        ],
      },
    });
    const journal = outcome.kind === 'created' ? h.client.journal(outcome.journalId) : null;
    assert.ok(journal);
    assert.equal(h.client.journal('AAAAAAAAAAAAAAAAAAAAAA%3D%3D'), null);
    h.client.trialBalanceBs({ startDate: '2026-04-01', endDate: '2026-04-30', withSubAccounts: true });
    assert.equal(h.client.deleteJournal(journal.id).kind, 'deleted');
    assert.equal(h.client.deleteJournal(journal.id).kind, 'absent');
    assert.deepEqual(h.log.violations, [], h.log.report());
    const reached = new Set(
      h.mf.requestLog
        .filter((e) => e.path.startsWith('/api/v3/'))
        .map((e) => contract.operationFor(e.method, e.path)?.operationId),
    );
    for (const operation of Object.keys(OPERATION_SCOPES)) {
      const [method, template] = operation.split(' ');
      const id = contract.operationFor(method ?? '', (template ?? '').replace('{id}', 'x'))?.operationId;
      assert.ok(reached.has(id), `${operation} was exercised`);
    }
  });
});

/** Each named difference, shown to be what sim/mf/README.md says, through the checker by its name. */
const CASES: Record<DifferenceName, () => void> = {
  'api-key-exchange': () => {
    const h = logged();
    h.auth.accessToken();
    assert.equal(h.log.named.get('api-key-exchange'), 1);
  },
  'api-key-office-code': () => {
    const h = logged();
    h.client.taxes();
    assert.ok((h.log.named.get('api-key-office-code') ?? 0) >= 1);
    assert.deepEqual(h.log.violations, []);
  },
  'oauth-endpoints': () => {
    const mf = new FakeMf();
    const log = new ContractLog(contract);
    const url = `${AUTH_BASE}/authorize?response_type=code&client_id=${TEST_CLIENT_ID}&redirect_uri=${encodeURIComponent('https://script.google.com/x/usercallback')}`;
    const res = mf.handle({ method: 'GET', url, headers: {} });
    log.record({ method: 'GET', url, headers: {} }, res);
    assert.equal(res.status, 302);
    assert.equal(log.named.get('oauth-endpoints'), 1);
  },
  'oauth-client-auth-method': () => {
    const mf = new FakeMf();
    const body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }).toString();
    const basic = `Basic ${Buffer.from(`${TEST_CLIENT_ID}:${TEST_CLIENT_SECRET}`).toString('base64')}`;
    const res = mf.handle({
      method: 'POST',
      url: `${AUTH_BASE}/token`,
      headers: { Authorization: basic },
      body,
    });
    assert.equal(JSON.parse(res.body).error, 'invalid_client', 'a client_secret_post app sending Basic');
  },
  'observed-400-text': () => {
    const h = logged();
    const error = (() => {
      try {
        h.client.listTransactions({ startDate: '2026-01-01', endDate: '2026-01-31' });
        return null;
      } catch (e) {
        return e;
      }
    })();
    assert.equal(error, null, 'the client asks per_page 500');
    const token = h.auth.accessToken();
    const url = `${API_BASE}/api/v3/transactions?start_date=2026-01-01&end_date=2026-01-31&per_page=1000&office_code=1234-5678`;
    const req = { method: 'GET', url, headers: { Authorization: `Bearer ${token}` } };
    const res = h.mf.handle(req);
    assert.equal(JSON.parse(res.body).errors[0].message, Messages.transactionsPerPage);
    assert.ok((h.log.named.get('observed-400-text') ?? 0) >= 1);
  },
  'transactions-per-page-500': () => {
    const findings = exchange(
      contract,
      {
        url: `${API_BASE}/api/v3/transactions?start_date=2026-01-01&end_date=2026-01-31&per_page=1000`,
      },
      { body: '{"transactions":[],"metadata":{"total_count":0,"total_pages":0}}' },
    );
    assert.deepEqual(findings, [], 'the document allows per_page=1000; the fake (as observed) does not');
  },
  'unknown-id-text': () => {
    const h = logged();
    assert.equal(h.client.journal('AAAAAAAAAAAAAAAAAAAAAA%3D%3D'), null);
    assert.equal(h.log.named.get('unknown-id-text'), 1);
    assert.deepEqual(h.log.violations, []);
  },
  'path-slash-403': () => {
    const h = logged();
    const id = h.mf.journals().find((j) => j.id.includes('%2F'))?.id ?? '';
    const token = h.auth.accessToken();
    const res = h.mf.handle({
      method: 'GET',
      url: `${API_BASE}/api/v3/journals/${id}?office_code=1234-5678`,
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 403);
    assert.ok(h.client.journal(id), 'the client encodes it once more and reaches it');
    assert.deepEqual(h.log.violations, [], 'the 403 body is the document’s');
  },
  'second-journalize-wording': () => {
    for (const wording of ['invented', 'generic'] as const) {
      const h = logged({ fake: { secondJournalize: wording } });
      const line = firstLine(h.mf, (t) => t.date >= '2026-04-01');
      const body = { transaction_id: line.id, account_id: h.mf.findAccount('雑費').id, tags: [] };
      h.client.journalize(body);
      assert.equal(h.client.journalize(body).kind, 'rejected');
      assert.equal(h.log.named.get('second-journalize-wording') ?? 0, wording === 'invented' ? 1 : 0);
      assert.deepEqual(h.log.violations, []);
    }
  },
  'journals-per-page-100': () => {
    const h = logged({ fake: { journalsPerPageMax: 100 } });
    assert.ok(h.client.journalsBetween('2026-01-01', '2026-06-30').length > 0);
    assert.equal(h.client.journalsPageSize, 100);
    assert.deepEqual(h.log.violations, [], 'the 400 is the document’s own text');
  },
  'transaction-id-form': () => {
    const h = logged({ fake: { transactionIdForm: 'lowercase-hex' } });
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01' && /%[0-9A-F]{2}/.test(t.id));
    h.client.journalize({ transaction_id: line.id, account_id: h.mf.findAccount('雑費').id, tags: [] });
    const [journal] = h.client.journalsBetween('2026-04-01', '2026-06-30', { transactionIds: [line.id] });
    assert.ok(journal);
    assert.notEqual(journal.transaction_id, line.id);
    assert.equal(journal.transaction_id?.toUpperCase(), line.id.toUpperCase());
    assert.deepEqual(h.log.violations, []);
  },
  'memo-stamp': () => {
    const h = logged();
    const account = h.mf.findAccount('雑費').id;
    const cash = h.mf.findAccount('現金').id;
    h.client.createJournal({
      journal: {
        transaction_date: '2026-05-10',
        journal_type: 'journal_entry',
        tags: [],
        memo: 'm',
        branches: [{ debitor: { account_id: account, value: 1 }, creditor: { account_id: cash, value: 1 } }],
      },
    });
    assert.ok(h.mf.journals().some((j) => j.memo === 'm\n'));
    assert.deepEqual(h.log.violations, []);
  },
  'transport-fault': () => {
    const h = logged();
    h.mf.injectFault({ kind: 'timeout-before-commit' });
    assert.throws(() => h.client.taxes());
    assert.equal(h.log.named.get('transport-fault'), 1);
  },
  'commit-then-5xx': () => {
    const h = logged();
    h.mf.injectFault({ kind: '5xx-after-commit', match: { path: '/api/v3/transactions/journalize' } });
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01');
    const outcome = h.client.journalize({
      transaction_id: line.id,
      account_id: h.mf.findAccount('雑費').id,
      tags: [],
    });
    assert.equal(outcome.kind, 'unknown');
    assert.equal(h.mf.journalsForTransaction(line.id).length, 1);
    assert.deepEqual(h.log.violations, []);
  },
  'visibility-lag': () => {
    const h = logged();
    h.mf.injectFault({ kind: 'visibility-lag', match: { path: '/api/v3/transactions/journalize' } });
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01');
    h.client.journalize({ transaction_id: line.id, account_id: h.mf.findAccount('雑費').id, tags: [] });
    assert.deepEqual(h.client.journalsBetween('2026-04-01', '2026-06-30', { transactionIds: [line.id] }), []);
    assert.equal(
      h.client.journalsBetween('2026-04-01', '2026-06-30', { transactionIds: [line.id] }).length,
      1,
    );
    assert.deepEqual(h.log.violations, []);
  },
  'tags-dropped': () => {
    const h = logged({ fake: { tagsOnJournalize: 'dropped', tagsOnCreate: 'dropped' } });
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01');
    const made = h.client.journalize({
      transaction_id: line.id,
      account_id: h.mf.findAccount('雑費').id,
      tags: ['kc-0123456789abcdef'],
    });
    assert.equal(made.kind, 'created');
    const [journal] = h.client.journalsBetween('2026-04-01', '2026-06-30', { transactionIds: [line.id] });
    assert.deepEqual(journal?.tags, []);
    const cash = h.mf.findAccount('現金').id;
    h.client.createJournal({
      journal: {
        transaction_date: '2026-05-10',
        journal_type: 'journal_entry',
        tags: ['kc-fedcba9876543210'],
        branches: [{ debitor: { account_id: cash, value: 1 }, creditor: { account_id: cash, value: 1 } }],
      },
    });
    assert.ok(h.mf.journals().every((j) => j.tags.length === 0));
    assert.deepEqual(h.log.violations, []);
  },
  'retry-after': () => {
    const h = logged();
    h.mf.injectFault({ kind: '429', retryAfterSeconds: 2 });
    h.client.taxes();
    assert.equal(h.log.named.get('retry-after'), 1);
  },
  'trial-balance-null-rows': () => {
    for (const leaf of ['null', 'empty'] as const) {
      const h = logged({ fake: { trialBalanceLeafRows: leaf } });
      const tb = h.client.trialBalanceBs({
        startDate: '2026-04-01',
        endDate: '2026-04-30',
        withSubAccounts: true,
      });
      const deposits = tb.rows.flatMap(function all(r): typeof tb.rows {
        return [r, ...(r.rows ?? []).flatMap(all)];
      });
      const leafRow = deposits.find((r) => r.type === 'sub_account');
      if (leaf === 'null') assert.equal(leafRow?.rows, null);
      else assert.deepEqual(leafRow?.rows, []);
      assert.equal(h.log.named.get('trial-balance-null-rows') ?? 0, leaf === 'null' ? 1 : 0);
      assert.deepEqual(h.log.violations, [], h.log.report());
    }
  },
  'trial-balance-figures': () => {
    const h = logged();
    const before = h.client.trialBalanceBs({ startDate: '2026-04-01', endDate: '2026-05-31' });
    const cash = (tb: typeof before) =>
      tb.rows
        .flatMap(function all(r): typeof tb.rows {
          return [r, ...(r.rows ?? []).flatMap(all)];
        })
        .find((r) => r.type === 'account' && r.name === '現金')?.values[3] ?? 0;
    h.mf.addJournal({
      date: '2026-05-02',
      debit: { account: '現金', value: 3_000 },
      credit: { account: '普通預金', sub: '三井住友銀行', value: 3_000 },
    });
    const after = h.client.trialBalanceBs({ startDate: '2026-04-01', endDate: '2026-05-31' });
    assert.equal(Number(cash(after)) - Number(cash(before)), 3_000, 'the figures come from the books');
    assert.deepEqual(h.log.violations, [], h.log.report());
  },
  'invoice-kind-reform': () => {
    const h = logged({ fake: { invoiceKindsOnWrite: 'mcp' } });
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01' && t.side === 'EXPENSE');
    const made = h.client.journalize({
      transaction_id: line.id,
      account_id: h.mf.findAccount('外注費').id,
      invoice_kind: 'INVOICE_KIND_UNQUALIFIED_70',
      tags: [],
    });
    assert.equal(made.kind, 'created');
    const [journal] = h.client.journalsBetween(line.date, line.date, { transactionIds: [line.id] });
    assert.equal(journal?.branches[0]?.debitor?.invoice_kind, 'INVOICE_KIND_UNQUALIFIED_70');
    assert.deepEqual(h.log.violations, [], h.log.report());
    assert.ok((h.log.named.get('invoice-kind-reform') ?? 0) >= 2, 'the request and the answers are named');
    // The document's world refuses the same write with its own 400.
    const d = logged();
    const other = firstLine(d.mf, (t) => t.date >= '2026-04-01' && t.side === 'EXPENSE');
    const refused = d.client.journalize({
      transaction_id: other.id,
      account_id: d.mf.findAccount('外注費').id,
      invoice_kind: 'INVOICE_KIND_UNQUALIFIED_70',
      tags: [],
    });
    assert.equal(refused.kind, 'rejected');
  },
  'invoice-kind-refusal-text': () => {
    const h = logged();
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01' && t.side === 'EXPENSE');
    const out = h.client.journalize({
      transaction_id: line.id,
      account_id: h.mf.findAccount('外注費').id,
      invoice_kind: 'INVOICE_KIND_NOT_TARGET',
      tags: [],
    });
    assert.equal(out.kind === 'rejected' && out.message, Messages.invoiceKindRefused);
    assert.deepEqual(h.log.violations, [], h.log.report());
    assert.equal(h.log.named.get('invoice-kind-refusal-text'), 1);
    // Accepted where MF is not that strict.
    const loose = logged({ fake: { notTargetOnTaxable: 'accepted' } });
    const l2 = firstLine(loose.mf, (t) => t.date >= '2026-04-01' && t.side === 'EXPENSE');
    const ok = loose.client.journalize({
      transaction_id: l2.id,
      account_id: loose.mf.findAccount('外注費').id,
      invoice_kind: 'INVOICE_KIND_NOT_TARGET',
      tags: [],
    });
    assert.equal(ok.kind, 'created');
  },
  'invoice-kind-default': () => {
    const h = logged();
    const line = firstLine(h.mf, (t) => t.date >= '2026-04-01' && t.side === 'EXPENSE');
    const made = h.client.journalize({
      transaction_id: line.id,
      account_id: h.mf.findAccount('外注費').id,
      tags: [],
    });
    assert.equal(made.kind, 'created');
    const [journal] = h.client.journalsBetween(line.date, line.date, { transactionIds: [line.id] });
    assert.equal(journal?.branches[0]?.debitor?.invoice_kind, 'INVOICE_KIND_QUALIFIED');
    assert.equal(journal?.branches[0]?.creditor?.invoice_kind, 'INVOICE_KIND_NOT_TARGET');
    assert.deepEqual(h.log.violations, []);
  },
  'fake-detail-header': () => {
    const h = logged();
    assert.throws(() => h.client.listJournals({ startDate: '2026-06-30', endDate: '2026-06-01' }));
    assert.ok((h.log.named.get('fake-detail-header') ?? 0) >= 1);
    assert.deepEqual(h.log.violations, []);
  },
};

describe('named differences between the fake and the document', () => {
  test('each is listed in sim/mf/README.md with its evidence, and has a case here', () => {
    const readme = readFileSync(path.join(ROOT, 'sim/mf/README.md'), 'utf8');
    for (const name of DIFFERENCE_NAMES) {
      assert.ok(readme.includes(`\`${name}\``), `${name} is not in sim/mf/README.md`);
      assert.ok(DIFFERENCES[name].evidence.length > 0);
      assert.ok(name in CASES, `${name} has no contract case`);
    }
    assert.deepEqual(Object.keys(CASES).sort(), [...DIFFERENCE_NAMES].sort());
  });

  for (const name of DIFFERENCE_NAMES) test(name, () => CASES[name]());
});

test('an OAuth client is held to the same contract (no office_code)', () => {
  const clock = new FakeClock();
  const mf = new FakeMf({ now: () => clock.now() });
  const log = new ContractLog(contract);
  const original = mf.handle.bind(mf);
  mf.handle = (req) => {
    const res = original(req);
    log.record(req, res);
    return res;
  };
  const token = mf.issueAccessToken('oauth');
  const client = new MfClient({
    apiBaseUrl: API_BASE,
    http: new FakeHttp(mf, clock),
    clock,
    auth: { accessToken: () => token, invalidate: () => {}, officeCode: null, refresh: () => false },
  });
  client.accounts();
  client.journalsBetween('2026-01-01', '2026-06-30');
  assert.ok(log.exchanges >= 3);
  assert.deepEqual(log.violations, [], log.report());
  assert.equal(log.named.get('api-key-office-code') ?? 0, 0);
});
