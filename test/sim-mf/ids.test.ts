import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeMf } from '../../sim/mf/fake-mf';
import { encodeBase64Id, pathIdCandidates, storedIdFromQueryValue } from '../../sim/mf/ids';
import { buildDataset } from '../../sim/mf/seed';
import { assertError, firstLine, firstSide, journalBody, setup } from './helpers';

const ENCODED_ID = /^[A-Za-z0-9]*(?:%2B|%2F|%3D|[A-Za-z0-9])*$/;

function allIds(mf: FakeMf): string[] {
  return [
    ...mf.accounts().flatMap((a) => [a.id, ...a.sub_accounts.map((s) => s.id)]),
    ...mf.connectedAccounts().flatMap((c) => [c.id, ...c.connected_sub_accounts.map((s) => s.id)]),
    ...mf.transactions().map((t) => t.id),
    ...mf.journals().map((j) => j.id),
  ];
}

describe('id shape', () => {
  test('ids are base64 already percent-encoded, and they carry %2B or %2F and %3D', () => {
    const { mf } = setup();
    const ids = allIds(mf);
    assert.ok(ids.length > 300);
    for (const id of ids) {
      assert.match(id, ENCODED_ID);
      assert.match(id, /%2B|%2F/);
      assert.match(id, /%3D%3D$/);
      assert.equal(Buffer.from(decodeURIComponent(id), 'base64').length, 16);
    }
    assert.ok(ids.some((id) => id.includes('%2B')));
    assert.ok(ids.some((id) => id.includes('%2F')));
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  });

  test('the same seed gives the same dataset; another seed another one', () => {
    assert.deepEqual(buildDataset(7), buildDataset(7));
    assert.notDeepEqual(buildDataset(7).transactions[0]?.id, buildDataset(8).transactions[0]?.id);
    const a = new FakeMf({ seed: 3, now: () => 0 });
    const b = new FakeMf({ seed: 3, now: () => 0 });
    assert.equal(a.issueAccessToken(), b.issueAccessToken());
  });

  test('master ids do not depend on the number of lines', () => {
    assert.deepEqual(
      buildDataset(5, { lineCount: 50 }).accounts,
      buildDataset(5, { lineCount: 400 }).accounts,
    );
  });

  test('helpers', () => {
    assert.equal(encodeBase64Id('ab+c/d=='), 'ab%2Bc%2Fd%3D%3D');
    assert.deepEqual(pathIdCandidates('ab%252B'), ['ab%252B', 'ab%2B']);
    assert.equal(storedIdFromQueryValue('ab+c/d=='), 'ab%2Bc%2Fd%3D%3D');
    assert.equal(storedIdFromQueryValue('ab%2Bc'), undefined);
    assert.equal(storedIdFromQueryValue('ab c'), undefined);
  });
});

describe('ids in a path are decoded once', () => {
  test('encodeURIComponent(stored) reaches the journal; the stored string as is only without %2F', () => {
    const { client, mf } = setup();
    const ids = mf.journals().map((j) => j.id);
    const plusOnly = ids.find((id) => id.includes('%2B') && !id.includes('%2F'));
    const withSlash = ids.find((id) => id.includes('%2F'));
    assert.ok(plusOnly && withSlash);
    for (const id of [plusOnly, withSlash]) {
      assert.equal(client.get(`/api/v3/journals/${encodeURIComponent(id)}`).json.journal.id, id);
    }
    assert.equal(client.get(`/api/v3/journals/${plusOnly}`).json.journal.id, plusOnly);
  });

  test('path-slash-403: a raw %2F turns into / before routing and MF answers 403', () => {
    const { client, mf } = setup();
    const withSlash = mf.journals().find((j) => j.id.includes('%2F'))?.id ?? '';
    for (const method of ['GET', 'DELETE']) {
      assertError(client.call(method, `/api/v3/journals/${withSlash}`), 403, 'insufficient_permissions');
    }
    assert.ok(
      mf.journals().some((j) => j.id === withSlash),
      'nothing deleted',
    );
  });

  test('a fully decoded id (literal +, / or =) is invalid_request_path_parameter', () => {
    const { client, mf } = setup();
    const ids = mf.journals().map((j) => j.id);
    const withPlus = ids.find((id) => id.includes('%2B'));
    const withSlash = ids.find((id) => id.includes('%2F'));
    assert.ok(withPlus && withSlash);
    assertError(
      client.get(`/api/v3/journals/${decodeURIComponent(withPlus)}`),
      400,
      'invalid_request_path_parameter',
    );
    assertError(
      client.delete(`/api/v3/journals/${decodeURIComponent(withPlus)}`),
      400,
      'invalid_request_path_parameter',
    );
    assert.equal(mf.journals().length, ids.length, 'nothing deleted');
  });

  test('an encoded id decoded twice does not match either', () => {
    const { client, mf } = setup();
    const id = mf.journals()[0]?.id ?? '';
    assertError(
      client.get(`/api/v3/journals/${encodeURIComponent(encodeURIComponent(id))}`),
      400,
      'invalid_request_path_parameter',
    );
  });
});

describe('ids in a query are sent as stored', () => {
  test('the stored string unchanged (%2B on the wire) matches', () => {
    const { client, mf } = setup();
    const card = mf.findConnectedAccount('三井住友カード');
    assert.match(card.id, /%/);
    const reply = client.get(
      `/api/v3/transactions?start_date=2026-01-01&end_date=2026-06-30&connected_account_id=${card.id}`,
    );
    assert.equal(reply.status, 200);
    assert.ok(reply.json.metadata.total_count > 0);
  });

  test('double encoding (%252B on the wire) is invalid_query_parameter_value', () => {
    const { client, mf } = setup();
    const card = mf.findConnectedAccount('三井住友カード');
    assertError(
      client.get(
        `/api/v3/transactions?start_date=2026-01-01&end_date=2026-06-30&connected_account_id=${encodeURIComponent(card.id)}`,
      ),
      400,
      'invalid_query_parameter_value',
    );
    const line = firstLine(mf);
    assertError(
      client.get(`/api/v3/journals?start_date=2026-04-01&transaction_ids=${encodeURIComponent(line.id)}`),
      400,
      'invalid_query_parameter_value',
    );
    const account = mf.findAccount('普通預金');
    assertError(
      client.get(`/api/v3/journals?start_date=2026-04-01&account_id=${encodeURIComponent(account.id)}`),
      400,
      'invalid_query_parameter_value',
    );
    assertError(
      client.get(`/api/v3/sub_accounts?account_id=${encodeURIComponent(account.id)}`),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('a decoded id sent raw (literal + becomes a space) is invalid_query_parameter_value', () => {
    const { client, mf } = setup();
    const withPlus = mf.connectedAccounts().find((c) => c.id.includes('%2B'));
    assert.ok(withPlus);
    assertError(
      client.get(
        `/api/v3/transactions?start_date=2026-01-01&end_date=2026-06-30&connected_account_id=${decodeURIComponent(withPlus.id)}`,
      ),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('sub_accounts?account_id= with the stored id', () => {
    const { client, mf } = setup();
    const account = mf.findAccount('普通預金');
    const subs = client.get(`/api/v3/sub_accounts?account_id=${account.id}`).json.sub_accounts;
    assert.deepEqual(
      subs.map((s: { name: string }) => s.name),
      ['三井住友銀行', '三井住友銀行 渋谷支店', 'ゆうちょ銀行'],
    );
  });
});

describe('ids in a JSON body are compared as is', () => {
  test('a URL-decoded id is invalid_request_body_value', () => {
    const { client, mf } = setup();
    const line = firstLine(mf);
    const account = mf.findAccount('雑費');
    assertError(
      client.post('/api/v3/transactions/journalize', {
        transaction_id: decodeURIComponent(line.id),
        account_id: account.id,
      }),
      400,
      'invalid_request_body_value',
      /without decoding/,
    );
    assertError(
      client.post('/api/v3/transactions/journalize', {
        transaction_id: line.id,
        account_id: decodeURIComponent(account.id),
      }),
      400,
      'invalid_request_body_value',
    );
    const body = journalBody(mf);
    Object.assign(firstSide(body, 'debitor'), { account_id: decodeURIComponent(account.id) });
    assertError(client.post('/api/v3/journals', body), 400, 'invalid_request_body_value');
    assert.equal(mf.transaction(line.id)?.journalizing_status, 'none');
  });

  test('an id encoded again is invalid_request_body_value too', () => {
    const { client, mf } = setup();
    const line = firstLine(mf);
    assertError(
      client.post('/api/v3/transactions/journalize', {
        transaction_id: encodeURIComponent(line.id),
        account_id: mf.findAccount('雑費').id,
      }),
      400,
      'invalid_request_body_value',
    );
  });
});
