import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Messages } from '../../sim/mf/errors';
import { assertError, firstLine, setup } from './helpers';

const PATH = '/api/v3/transactions/journalize';

describe('POST /transactions/journalize', () => {
  test('turns a none line into a registered one and returns 201 {journal} linked to it', () => {
    const { client, mf } = setup();
    const card = mf.findConnectedAccount('三井住友カード');
    const line = firstLine(mf, (tx) => tx.connected_account_id === card.id && tx.side === 'EXPENSE');
    const expense = mf.findAccount('消耗品費');
    const reply = client.post(PATH, {
      transaction_id: line.id,
      account_id: expense.id,
      tags: ['kc-aaaabbbbccccdddd'],
    });
    assert.equal(reply.status, 201, reply.raw.body);
    const journal = reply.json.journal;
    assert.equal(journal.transaction_id, line.id);
    assert.equal(journal.entered_by, 'JOURNAL_TYPE_EXTERNAL');
    assert.equal(journal.transaction_date, line.date);
    assert.deepEqual(journal.tags, ['kc-aaaabbbbccccdddd']);
    const [branch] = journal.branches;
    // Expense: the counter account is debited, the card's 未払金/三井住友カード credited.
    assert.equal(branch.debitor.account_id, expense.id);
    assert.equal(branch.debitor.value + branch.debitor.tax_value, line.value);
    assert.equal(branch.creditor.account_id, card.account_id);
    assert.equal(branch.creditor.sub_account_id, card.sub_account_id);
    assert.equal(branch.creditor.sub_account_name, '三井住友カード');
    assert.equal(branch.remark, line.content);
    assert.equal(mf.transaction(line.id)?.journalizing_status, 'registered');
    assert.equal(mf.journalsForTransaction(line.id).length, 1);
  });

  test('the bank side of an income line comes from the connected sub-account', () => {
    const { client, mf } = setup();
    const bank = mf.findConnectedAccount('三井住友銀行');
    const sub = bank.connected_sub_accounts[0];
    assert.ok(sub);
    const line = firstLine(mf, (tx) => tx.connected_sub_account_id === sub.id && tx.side === 'INCOME');
    const reply = client.post(PATH, {
      transaction_id: line.id,
      account_id: mf.findAccount('売掛金').id,
      trade_partner_code: '000001',
    });
    assert.equal(reply.status, 201, reply.raw.body);
    const [branch] = reply.json.journal.branches;
    assert.equal(branch.debitor.account_id, sub.account_id);
    assert.equal(branch.debitor.sub_account_id, sub.sub_account_id);
    assert.equal(branch.debitor.sub_account_name, '三井住友銀行');
    assert.equal(branch.creditor.account_name, '売掛金');
    assert.equal(branch.creditor.trade_partner_name, '株式会社山田商事');
  });

  test('only transaction_id and account_id are required', () => {
    const { client, mf } = setup();
    const line = firstLine(mf);
    assertError(
      client.post(PATH, { account_id: mf.findAccount('雑費').id }),
      400,
      'missing_required_request_body_key',
    );
    assertError(client.post(PATH, { transaction_id: line.id }), 400, 'missing_required_request_body_key');
  });

  test('an unknown transaction_id is invalid_request_body_value', () => {
    const { client, mf } = setup();
    const reply = client.post(PATH, {
      transaction_id: 'AAAAAAAAAAAAAAAAAAAAAA%3D%3D',
      account_id: mf.findAccount('雑費').id,
    });
    assertError(reply, 400, 'invalid_request_body_value');
  });

  test('a second journalize of a registered line is rejected and creates nothing', () => {
    const { client, mf } = setup();
    const line = firstLine(mf);
    const body = { transaction_id: line.id, account_id: mf.findAccount('雑費').id };
    assert.equal(client.post(PATH, body).status, 201);
    assertError(client.post(PATH, body), 400, 'invalid_request_body_value', Messages.alreadyJournalized);
    assert.equal(mf.journalsForTransaction(line.id).length, 1);
  });

  test('lines already registered, modified or excluded in the dataset are rejected', () => {
    const { client, mf } = setup();
    const account = mf.findAccount('雑費').id;
    for (const status of ['registered', 'modified'] as const) {
      const line = mf.transactions().find((tx) => tx.journalizing_status === status);
      assert.ok(line, status);
      assertError(
        client.post(PATH, { transaction_id: line.id, account_id: account }),
        400,
        'invalid_request_body_value',
      );
    }
    const excluded = mf.transactions().find((tx) => tx.journalizing_status === 'excluded');
    assert.ok(excluded);
    assertError(
      client.post(PATH, { transaction_id: excluded.id, account_id: account }),
      400,
      'invalid_request_body_value',
      Messages.transactionExcluded,
    );
  });

  test('permissiveJournalize creates a second journal, so tests see OUR duplicates', () => {
    const { client, mf } = setup({ permissiveJournalize: true });
    const line = firstLine(mf);
    const body = { transaction_id: line.id, account_id: mf.findAccount('雑費').id };
    assert.equal(client.post(PATH, body).status, 201);
    assert.equal(client.post(PATH, body).status, 201);
    assert.equal(mf.journalsForTransaction(line.id).length, 2);
    const excluded = mf.transactions().find((tx) => tx.journalizing_status === 'excluded');
    assert.ok(excluded);
    assert.equal(client.post(PATH, { ...body, transaction_id: excluded.id }).status, 400);
  });

  test('transaction_date may be given but must lie in an accounting period', () => {
    const { client, mf } = setup();
    const line = firstLine(mf, (tx) => tx.date >= '2026-04-01');
    const account = mf.findAccount('雑費').id;
    assertError(
      client.post(PATH, { transaction_id: line.id, account_id: account, transaction_date: '2030-01-01' }),
      400,
      'invalid_request_body_value',
      Messages.outsidePeriod,
    );
    const reply = client.post(PATH, {
      transaction_id: line.id,
      account_id: account,
      transaction_date: '2026-04-30',
    });
    assert.equal(reply.json.journal.transaction_date, '2026-04-30');
    assert.equal(reply.json.journal.term_period, 2026);
  });

  test('the counter side is validated like a journal side', () => {
    const { client, mf } = setup();
    const line = firstLine(mf);
    const post = (extra: Record<string, unknown>) =>
      client.post(PATH, { transaction_id: line.id, account_id: mf.findAccount('消耗品費').id, ...extra });
    assertError(
      post({ account_id: mf.findAccount('諸会費').id }),
      400,
      'invalid_request_body_value',
      Messages.accountInactive,
    );
    assertError(post({ tax_id: 'AAAAAAAAAAAAAAAAAAAAAA%3D%3D' }), 400, 'invalid_request_body_value');
    assertError(
      post({ tax_id: mf.findTax('課税仕入 8%').id }),
      400,
      'invalid_request_body_value',
      Messages.taxUnavailable,
    );
    assertError(
      post({ sub_account_id: mf.findAccount('普通預金').sub_accounts[0]?.id }),
      400,
      'invalid_request_body_value',
      /does not belong/,
    );
    assertError(post({ trade_partner_code: '999999' }), 400, 'invalid_request_body_value');
    assertError(post({ invoice_kind: 'INVOICE_KIND_UNQUALIFIED' }), 400, 'invalid_request_body_value');
    assertError(post({ memo: 'x'.repeat(201) }), 400, 'invalid_request_body_value', Messages.memoTooLong);
    assertError(post({ remark: 'x'.repeat(201) }), 400, 'invalid_request_body_value');
    assertError(post({ tags: ['x'.repeat(21)] }), 400, 'invalid_request_body_value', Messages.tagTooLong);
    assert.equal(mf.transaction(line.id)?.journalizing_status, 'none', 'a rejected call changes nothing');
  });

  test('the tax defaults to the account tax, and given tax and invoice kind are kept', () => {
    const { client, mf } = setup();
    const line = firstLine(mf, (tx) => tx.side === 'EXPENSE' && tx.value === 648);
    const reduced = mf.findTax('課税仕入 8%（軽）');
    const reply = client.post(PATH, {
      transaction_id: line.id,
      account_id: mf.findAccount('会議費').id,
      tax_id: reduced.id,
      invoice_kind: 'INVOICE_KIND_QUALIFIED',
    });
    const debit = reply.json.journal.branches[0].debitor;
    assert.equal(debit.tax_long_name, '課税仕入 8%（軽）');
    assert.equal(debit.tax_value, 48);
    assert.equal(debit.value, 600);
    assert.equal(debit.invoice_kind, 'INVOICE_KIND_QUALIFIED');
  });

  test('needs a JSON content type', () => {
    const { client, mf } = setup();
    const line = firstLine(mf);
    const reply = client.call('POST', PATH, {
      rawBody: `transaction_id=${line.id}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assertError(reply, 415, 'unsupported_media_type');
    assertError(client.call('POST', PATH, { rawBody: '{not json' }), 400, 'invalid_input');
  });
});
