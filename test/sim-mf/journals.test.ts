import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Messages } from '../../sim/mf/errors';
import type { Journal } from '../../sim/mf/types';
import { assertError, firstLine, firstSide, journalBody, setup } from './helpers';

const LIST = '/api/v3/journals';

describe('POST /journals', () => {
  test('creates an external journal: 201, value without tax plus tax_value', () => {
    const { client, mf } = setup();
    const reply = client.post(LIST, journalBody(mf));
    assert.equal(reply.status, 201, reply.raw.body);
    const journal: Journal = reply.json.journal;
    assert.equal(journal.entered_by, 'JOURNAL_TYPE_EXTERNAL');
    assert.equal(journal.transaction_id, null);
    assert.equal(journal.term_period, 2026);
    assert.equal(journal.create_time, '2026-07-01T09:00:00Z');
    assert.match(journal.id, /%(2B|2F)/);
    const [branch] = journal.branches;
    assert.ok(branch);
    assert.equal(branch.debitor.account_name, '消耗品費');
    assert.equal(branch.debitor.value, 1000);
    assert.equal(branch.debitor.tax_value, 100);
    assert.equal(branch.debitor.tax_name, '課仕 10%');
    assert.equal(branch.creditor.value, 1100);
    assert.equal(branch.creditor.tax_value, 0);
    assert.equal(mf.journalsByTag('kc-0123456789abcdef').length, 1);
  });

  test('journal numbers run on within the term', () => {
    const { client, mf } = setup();
    const a = client.post(LIST, journalBody(mf)).json.journal.number;
    const b = client.post(LIST, journalBody(mf)).json.journal.number;
    assert.equal(b, a + 1);
  });

  test('each required key is checked', () => {
    const { client, mf } = setup();
    assertError(client.post(LIST, {}), 400, 'missing_required_request_body_key', /journal/);
    for (const key of ['transaction_date', 'journal_type', 'branches']) {
      const body = journalBody(mf);
      delete (body.journal as Record<string, unknown>)[key];
      assertError(client.post(LIST, body), 400, 'missing_required_request_body_key', new RegExp(key));
    }
    const noValue = journalBody(mf);
    delete firstSide(noValue, 'debitor').value;
    assertError(client.post(LIST, noValue), 400, 'missing_required_request_body_key', /value/);
    const noAccount = journalBody(mf);
    delete firstSide(noAccount, 'creditor').account_id;
    assertError(client.post(LIST, noAccount), 400, 'missing_required_request_body_key', /account_id/);
  });

  test('journal_type must be journal_entry or adjusting_entry', () => {
    const { client, mf } = setup();
    assertError(
      client.post(LIST, journalBody(mf, { journal_type: 'normal' })),
      400,
      'invalid_request_body_value',
    );
    assert.equal(client.post(LIST, journalBody(mf, { journal_type: 'adjusting_entry' })).status, 201);
  });

  test('1 to 300 branches', () => {
    const { client, mf } = setup();
    const branch = journalBody(mf).journal.branches[0];
    assertError(client.post(LIST, journalBody(mf, { branches: [] })), 400, 'invalid_request_body_value');
    assertError(
      client.post(LIST, journalBody(mf, { branches: Array(301).fill(branch) })),
      400,
      'invalid_request_body_value',
      Messages.branchCount,
    );
    const big = client.post(LIST, journalBody(mf, { branches: Array(300).fill(branch) }));
    assert.equal(big.status, 201);
    assert.equal(big.json.journal.branches.length, 300);
  });

  test('each branch needs both sides and must balance', () => {
    const { client, mf } = setup();
    const side = { account_id: mf.findAccount('雑費').id, value: 500 };
    assertError(
      client.post(LIST, journalBody(mf, { branches: [{ debitor: side }] })),
      400,
      'invalid_request_body_value',
      Messages.creditorAndDebitor,
    );
    assertError(
      client.post(
        LIST,
        journalBody(mf, { branches: [{ debitor: side, creditor: { ...side, value: 501 } }] }),
      ),
      400,
      'invalid_request_body_value',
      Messages.branchUnbalanced,
    );
    assertError(
      client.post(
        LIST,
        journalBody(mf, { branches: [{ debitor: { ...side, value: 1.5 }, creditor: side }] }),
      ),
      400,
      'invalid_request_body_value',
    );
  });

  test('memo at most 200 characters, each tag at most 20', () => {
    const { client, mf } = setup();
    assert.equal(client.post(LIST, journalBody(mf, { memo: 'メ'.repeat(200) })).status, 201);
    assertError(
      client.post(LIST, journalBody(mf, { memo: 'メ'.repeat(201) })),
      400,
      'invalid_request_body_value',
      Messages.memoTooLong,
    );
    assert.equal(client.post(LIST, journalBody(mf, { tags: ['t'.repeat(20), 'kc-x'] })).status, 201);
    assertError(
      client.post(LIST, journalBody(mf, { tags: ['t'.repeat(21)] })),
      400,
      'invalid_request_body_value',
      Messages.tagTooLong,
    );
    assertError(client.post(LIST, journalBody(mf, { tags: 'kc-x' })), 400, 'invalid_request_body_value');
  });

  test('unknown account, tax, sub-account, department ids are rejected', () => {
    const { client, mf } = setup();
    const withDebit = (extra: Record<string, unknown>) => {
      const body = journalBody(mf);
      Object.assign(firstSide(body, 'debitor'), extra);
      return client.post(LIST, body);
    };
    const unknown = 'AAAAAAAAAAAAAAAAAAAAAA%3D%3D';
    assertError(withDebit({ account_id: unknown }), 400, 'invalid_request_body_value', /account_id/);
    assertError(withDebit({ tax_id: unknown }), 400, 'invalid_request_body_value', /tax_id/);
    assertError(withDebit({ sub_account_id: unknown }), 400, 'invalid_request_body_value', /sub_account_id/);
    assertError(withDebit({ department_id: unknown }), 400, 'invalid_request_body_value', /department_id/);
    assertError(withDebit({ trade_partner_code: '999999' }), 400, 'invalid_request_body_value');
  });

  test('posting to an inactive account fails', () => {
    const { client, mf } = setup();
    const body = journalBody(mf);
    Object.assign(firstSide(body, 'debitor'), { account_id: mf.findAccount('諸会費').id });
    assertError(client.post(LIST, body), 400, 'invalid_request_body_value', Messages.accountInactive);
  });

  test('the date must lie in an accounting period', () => {
    const { client, mf } = setup();
    assertError(
      client.post(LIST, journalBody(mf, { transaction_date: '2024-12-31' })),
      400,
      'invalid_request_body_value',
      Messages.outsidePeriod,
    );
    assertError(
      client.post(LIST, journalBody(mf, { transaction_date: '2026-13-01' })),
      400,
      'invalid_request_body_value',
    );
  });

  test('sub-account, department, partner and invoice kind are echoed with names', () => {
    const { client, mf } = setup();
    const deposits = mf.findAccount('普通預金');
    const sub = deposits.sub_accounts.find((s) => s.name === 'ゆうちょ銀行');
    assert.ok(sub);
    const departments = client.get('/api/v3/departments').json.departments;
    const body = journalBody(mf);
    Object.assign(firstSide(body, 'debitor'), {
      department_id: departments[1].id,
      trade_partner_code: '000003',
      invoice_kind: 'INVOICE_KIND_UNQUALIFIED_80',
    });
    Object.assign(firstSide(body, 'creditor'), {
      account_id: deposits.id,
      sub_account_id: sub.id,
    });
    const branch = client.post(LIST, body).json.journal.branches[0];
    assert.equal(branch.debitor.department_name, '営業部');
    assert.equal(branch.debitor.trade_partner_name, '合同会社鈴木デザイン');
    assert.equal(branch.debitor.invoice_kind, 'INVOICE_KIND_UNQUALIFIED_80');
    assert.equal(branch.debitor.tax_value, 80, '80% of the 100 yen tax');
    assert.equal(branch.creditor.sub_account_name, 'ゆうちょ銀行');
  });
});

describe('GET /journals', () => {
  test('start_date or end_date is required', () => {
    const { client } = setup();
    assertError(client.get(LIST), 400, 'missing_required_query_parameter', Messages.eitherDate);
  });

  test('results are clipped to the accounting period containing the date', () => {
    const { client, mf } = setup();
    client.post(LIST, journalBody(mf, { transaction_date: '2026-03-31' }));
    client.post(LIST, journalBody(mf, { transaction_date: '2026-04-01' }));
    const dates = (query: string) =>
      client.get(`${LIST}?${query}&per_page=10000`).json.journals.map((j: Journal) => j.transaction_date);
    const fromMarch = dates('start_date=2026-03-01&end_date=2026-04-30');
    assert.ok(fromMarch.includes('2026-03-31'));
    assert.ok(
      fromMarch.every((d: string) => d <= '2026-03-31'),
      'the next term is not searched',
    );
    const onlyEnd = dates('end_date=2026-04-30');
    assert.ok(onlyEnd.includes('2026-04-01'));
    assert.ok(onlyEnd.every((d: string) => d >= '2026-04-01' && d <= '2026-04-30'));
    const onlyStart = dates('start_date=2026-01-01');
    assert.ok(onlyStart.every((d: string) => d >= '2026-01-01' && d <= '2026-03-31'));
    assertError(
      client.get(`${LIST}?start_date=2020-01-01`),
      400,
      'invalid_query_parameter_value',
      Messages.outsidePeriod,
    );
  });

  test('account_id matches the debit or the credit side', () => {
    const { client, mf } = setup();
    const cash = mf.findAccount('現金').id;
    const supplies = mf.findAccount('消耗品費').id;
    client.post(LIST, journalBody(mf));
    for (const id of [cash, supplies]) {
      const journals = client.get(`${LIST}?start_date=2026-04-01&account_id=${id}&per_page=10000`).json
        .journals;
      assert.ok(journals.length > 0);
      for (const journal of journals as Journal[]) {
        assert.ok(journal.branches.some((b) => b.debitor.account_id === id || b.creditor.account_id === id));
      }
    }
  });

  test('transaction_ids finds journals made from those lines, at most 50 ids', () => {
    const { client, mf } = setup();
    const line = firstLine(mf, (tx) => tx.date >= '2026-04-01');
    const account = mf.findAccount('雑費').id;
    client.post('/api/v3/transactions/journalize', { transaction_id: line.id, account_id: account });
    const found = client.get(`${LIST}?start_date=2026-04-01&transaction_ids=${line.id}`).json.journals;
    assert.equal(found.length, 1);
    assert.equal(found[0].transaction_id, line.id);
    const ids = Array.from({ length: 51 }, () => `transaction_ids=${line.id}`).join('&');
    assertError(client.get(`${LIST}?start_date=2026-04-01&${ids}`), 400, 'invalid_query_parameter_value');
    const fifty = Array.from({ length: 50 }, () => `transaction_ids=${line.id}`).join('&');
    assert.equal(client.get(`${LIST}?start_date=2026-04-01&${fifty}`).status, 200);
    assertError(
      client.get(`${LIST}?start_date=2026-04-01&transaction_ids[]=${line.id}`),
      400,
      'unsupported_query_parameter',
    );
  });

  test('per_page defaults to 10 and allows up to 10000', () => {
    const { client } = setup();
    const page = client.get(`${LIST}?start_date=2025-04-01`);
    assert.equal(page.json.journals.length, 10);
    const all = client.get(`${LIST}?start_date=2025-04-01&per_page=10000`);
    assert.equal(all.json.metadata.total_pages, 1);
    assertError(
      client.get(`${LIST}?start_date=2025-04-01&per_page=10001`),
      400,
      'invalid_query_parameter_value',
    );
    assertError(client.get(`${LIST}?start_date=2025-04-01&per_page=0`), 400, 'invalid_query_parameter_value');
  });

  test('page metadata', () => {
    const { client } = setup();
    const { total_count: count, total_pages: pages } = client.get(`${LIST}?start_date=2025-04-01&per_page=7`)
      .json.metadata;
    assert.equal(pages, Math.ceil(count / 7));
    const last = client.get(`${LIST}?start_date=2025-04-01&per_page=7&page=${pages}`).json.journals;
    assert.equal(last.length, count - 7 * (pages - 1));
    assertError(
      client.get(`${LIST}?start_date=2025-04-01&per_page=7&page=${pages + 1}`),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('journal_types and is_realized filter', () => {
    const { client, mf } = setup();
    client.post(LIST, journalBody(mf, { journal_type: 'adjusting_entry' }));
    const adjusting = client.get(
      `${LIST}?start_date=2026-04-01&journal_types=adjusting_entry&is_realized=true`,
    );
    assert.equal(adjusting.json.journals.length, 1);
    assertError(
      client.get(`${LIST}?start_date=2026-04-01&is_realized=yes`),
      400,
      'invalid_query_parameter_value',
    );
  });
});

describe('GET/PUT/DELETE /journals/{id}', () => {
  test('GET returns the journal', () => {
    const { client, mf } = setup();
    const created = client.post(LIST, journalBody(mf)).json.journal;
    const reply = client.get(`${LIST}/${encodeURIComponent(created.id)}`);
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json.journal, created);
  });

  test('an unknown id is 400 invalid_request_path_parameter, not 404', () => {
    const { client } = setup();
    for (const method of ['GET', 'PUT', 'DELETE']) {
      assertError(
        client.call(method, `${LIST}/AAAAAAAAAAAAAAAAAAAAAA%3D%3D`, method === 'PUT' ? { body: {} } : {}),
        400,
        'invalid_request_path_parameter',
        Messages.idNotFound,
      );
    }
  });

  test('PUT replaces the whole journal and keeps id, number, create_time and transaction_id', () => {
    const { client, mf, clock } = setup();
    const line = firstLine(mf, (tx) => tx.date >= '2026-04-01' && tx.side === 'EXPENSE');
    const created = client.post('/api/v3/transactions/journalize', {
      transaction_id: line.id,
      account_id: mf.findAccount('雑費').id,
    }).json.journal;
    clock.now += 60_000;
    const half = Math.floor(line.value / 2);
    const credit = created.branches[0].creditor;
    const split = {
      journal: {
        transaction_date: created.transaction_date,
        journal_type: 'journal_entry',
        tags: ['kc-split'],
        branches: [
          {
            debitor: { account_id: mf.findAccount('消耗品費').id, value: half },
            creditor: { account_id: credit.account_id, sub_account_id: credit.sub_account_id, value: half },
          },
          {
            debitor: { account_id: mf.findAccount('会議費').id, value: line.value - half },
            creditor: {
              account_id: credit.account_id,
              sub_account_id: credit.sub_account_id,
              value: line.value - half,
            },
          },
        ],
      },
    };
    const reply = client.put(`${LIST}/${encodeURIComponent(created.id)}`, split);
    assert.equal(reply.status, 200, reply.raw.body);
    const updated = reply.json.journal;
    assert.equal(updated.id, created.id);
    assert.equal(updated.number, created.number);
    assert.equal(updated.create_time, created.create_time);
    assert.equal(updated.update_time, '2026-07-01T09:01:00Z');
    assert.equal(updated.transaction_id, line.id);
    assert.equal(updated.branches.length, 2);
    assert.deepEqual(updated.tags, ['kc-split']);
    assert.equal(updated.memo, null, 'PUT replaces memo too');
  });

  test('PUT validates like POST and cannot move a journal to another term', () => {
    const { client, mf } = setup();
    const created = client.post(LIST, journalBody(mf)).json.journal;
    assertError(
      client.put(
        `${LIST}/${encodeURIComponent(created.id)}`,
        journalBody(mf, { transaction_date: '2026-03-31' }),
      ),
      400,
      'invalid_request_body_value',
      Messages.movedTerm,
    );
    assertError(
      client.put(`${LIST}/${encodeURIComponent(created.id)}`, journalBody(mf, { memo: 'x'.repeat(201) })),
      400,
      'invalid_request_body_value',
    );
    assert.equal(
      client.put(
        `${LIST}/${encodeURIComponent(created.id)}`,
        journalBody(mf, { transaction_date: '2026-12-31' }),
      ).status,
      200,
    );
  });

  test('DELETE answers 204 and removes the journal', () => {
    const { client, mf } = setup();
    const created = client.post(LIST, journalBody(mf)).json.journal;
    const reply = client.delete(`${LIST}/${encodeURIComponent(created.id)}`);
    assert.equal(reply.status, 204);
    assert.equal(reply.raw.body, '');
    assertError(
      client.get(`${LIST}/${encodeURIComponent(created.id)}`),
      400,
      'invalid_request_path_parameter',
    );
    assertError(
      client.delete(`${LIST}/${encodeURIComponent(created.id)}`),
      400,
      'invalid_request_path_parameter',
    );
  });

  test('deleting a journal made by journalize sends its line to excluded, not back to none', () => {
    const { client, mf } = setup();
    const line = firstLine(mf);
    const created = client.post('/api/v3/transactions/journalize', {
      transaction_id: line.id,
      account_id: mf.findAccount('雑費').id,
    }).json.journal;
    assert.equal(client.delete(`${LIST}/${encodeURIComponent(created.id)}`).status, 204);
    assert.equal(mf.transaction(line.id)?.journalizing_status, 'excluded');
    const none = client.get(
      `/api/v3/transactions?start_date=${line.date}&end_date=${line.date}&journalizing_statuses=none&per_page=500`,
    );
    assert.ok(!none.json.transactions.some((tx: { id: string }) => tx.id === line.id));
  });

  test('unknown paths and methods', () => {
    const { client } = setup();
    assertError(client.get('/api/v3/vouchers'), 404, 'not_found');
    assertError(client.call('PATCH', LIST), 405, 'method_not_allowed');
  });
});
