import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  FakeMf,
  TEST_API_KEY,
  TEST_CLIENT_ID,
  TEST_CLIENT_ID_BASIC,
  TEST_CLIENT_SECRET,
  TEST_CLIENT_SECRET_BASIC,
} from '../../sim/mf/fake-mf';
import { API, AUTH, assertError, journalBody, START, setup, TestClient, toReply } from './helpers';

const REDIRECT = 'https://script.google.com/macros/d/abc/usercallback';
/** Most tests authenticate with HTTP Basic, so they use the app registered for client_secret_basic. */
const BASIC_ID = TEST_CLIENT_ID_BASIC;
const BASIC_SECRET = TEST_CLIENT_SECRET_BASIC;

function exchange(mf: FakeMf, key: string | null) {
  const headers: Record<string, string> = key === null ? {} : { Authorization: `Bearer ${key}` };
  return toReply(mf.handle({ method: 'POST', url: `${AUTH}/auth/exchange`, headers }));
}

function authorize(mf: FakeMf, query: string) {
  return toReply(mf.handle({ method: 'GET', url: `${AUTH}/authorize?${query}`, headers: {} }));
}

function tokenRequest(mf: FakeMf, form: Record<string, string>, basic?: [string, string]) {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (basic) headers.Authorization = `Basic ${Buffer.from(`${basic[0]}:${basic[1]}`).toString('base64')}`;
  return toReply(
    mf.handle({ method: 'POST', url: `${AUTH}/token`, headers, body: new URLSearchParams(form).toString() }),
  );
}

function codeFrom(location: string): string {
  const code = new URL(location).searchParams.get('code');
  assert.ok(code);
  return code;
}

function oauthLogin(mf: FakeMf, scope = '') {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: BASIC_ID,
    redirect_uri: REDIRECT,
    state: 'st-1',
    ...(scope ? { scope } : {}),
  });
  const reply = authorize(mf, query.toString());
  assert.equal(reply.status, 302);
  const tokens = tokenRequest(
    mf,
    {
      grant_type: 'authorization_code',
      code: codeFrom(reply.headers.Location ?? ''),
      redirect_uri: REDIRECT,
    },
    [BASIC_ID, BASIC_SECRET],
  );
  assert.equal(tokens.status, 200, tokens.raw.body);
  return tokens.json as { access_token: string; refresh_token: string; expires_in: number; scope: string };
}

describe('API-key exchange', () => {
  test('POST /auth/exchange with the key returns a one-hour token', () => {
    const { mf } = setup();
    const reply = exchange(mf, TEST_API_KEY);
    assert.equal(reply.status, 200);
    assert.equal(reply.json.expires_in, 3600);
    assert.equal(typeof reply.json.access_token, 'string');
    const client = new TestClient(mf, reply.json.access_token);
    assert.equal(client.get('/api/v3/offices').status, 200);
  });

  test('without Authorization it is 401 no_authentication_information', () => {
    const { mf } = setup();
    assertError(exchange(mf, null), 401, 'no_authentication_information', 'No authorization header.');
  });

  test('an unknown key is 401', () => {
    const { mf } = setup();
    assertError(exchange(mf, 'mf_api_test_key_9999'), 401, 'access_token_is_not_active_or_invalid');
  });

  test('the token expires after 3600 s on the fake clock', () => {
    const { mf, clock } = setup();
    const client = new TestClient(mf, exchange(mf, TEST_API_KEY).json.access_token);
    clock.now = START + 3_599_000;
    assert.equal(client.get('/api/v3/offices').status, 200);
    clock.now = START + 3_600_000;
    assertError(client.get('/api/v3/offices'), 401, 'access_token_is_not_active_or_invalid');
  });

  test('more than 100 exchanges a minute get 429 with Retry-After', () => {
    const { mf, clock } = setup();
    for (let i = 0; i < 100; i++) assert.equal(exchange(mf, TEST_API_KEY).status, 200);
    const limited = exchange(mf, TEST_API_KEY);
    assertError(limited, 429, 'too_many_requests');
    assert.ok(Number(limited.headers['Retry-After']) >= 1);
    clock.now += 60_000;
    assert.equal(exchange(mf, TEST_API_KEY).status, 200);
  });

  test('the default key does not look like a production key', () => {
    assert.doesNotMatch(TEST_API_KEY, /^mf_api_prd_/);
  });
});

describe('Bearer authentication on /api/v3', () => {
  test('missing Authorization is 401 no_authentication_information', () => {
    const { client } = setup();
    assertError(client.get('/api/v3/offices', { token: null }), 401, 'no_authentication_information');
  });

  test('an unknown token is 401 access_token_is_not_active_or_invalid', () => {
    const { client } = setup();
    assertError(
      client.get('/api/v3/offices', { token: 'nope' }),
      401,
      'access_token_is_not_active_or_invalid',
    );
  });

  test('a non-Bearer scheme is 401 access_token_is_not_active_or_invalid', () => {
    const { mf } = setup();
    const reply = toReply(
      mf.handle({
        method: 'GET',
        url: `${API}/api/v3/offices`,
        headers: { Authorization: 'Basic Zm9vOmJhcg==' },
      }),
    );
    assertError(reply, 401, 'access_token_is_not_active_or_invalid');
  });

  test('header names are case-insensitive', () => {
    const { mf, client } = setup();
    const reply = toReply(
      mf.handle({
        method: 'GET',
        url: `${API}/api/v3/offices?office_code=1234-5678`,
        headers: { authorization: `Bearer ${client.token}` },
      }),
    );
    assert.equal(reply.status, 200);
  });

  test('routing ignores the host', () => {
    const { mf, client } = setup();
    const reply = toReply(
      mf.handle({
        method: 'GET',
        url: 'http://localhost:9999/api/v3/offices?office_code=1234-5678',
        headers: { Authorization: `Bearer ${client.token}` },
      }),
    );
    assert.equal(reply.status, 200);
  });
});

describe('office_code with API-key tokens', () => {
  test('every call but accessible_offices needs office_code', () => {
    const { client } = setup();
    assertError(client.get('/api/v3/offices', { officeCode: null }), 400, 'missing_required_query_parameter');
    assertError(
      client.get('/api/v3/transactions?start_date=2026-01-01&end_date=2026-01-31', { officeCode: null }),
      400,
      'missing_required_query_parameter',
    );
    const offices = client.get('/api/v3/accessible_offices', { officeCode: null });
    assert.equal(offices.status, 200);
    assert.deepEqual(offices.json.offices, [
      { code: '1234-5678', name: '株式会社サンプル', type: 'CORPORATE' },
    ]);
  });

  test('another office code is rejected', () => {
    const { client } = setup();
    assertError(
      client.get('/api/v3/offices', { officeCode: '9999-0000' }),
      400,
      'invalid_query_parameter_value',
    );
  });

  test('a key configured for an office the fake does not hold gets 409 no_office_found', () => {
    const mf = new FakeMf({ now: () => START, apiKeys: { mf_api_test_key_other: '0000-0000' } });
    const client = new TestClient(mf, exchange(mf, 'mf_api_test_key_other').json.access_token);
    assertError(client.get('/api/v3/offices', { officeCode: '0000-0000' }), 409, 'no_office_found');
  });
});

describe('OAuth authorization code flow', () => {
  test('/authorize redirects back with code and state', () => {
    const { mf } = setup();
    const reply = authorize(
      mf,
      `response_type=code&client_id=${BASIC_ID}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=${encodeURIComponent('mfc/accounting/offices.read mfc/accounting/journal.write')}&state=xyz`,
    );
    assert.equal(reply.status, 302);
    const location = new URL(reply.headers.Location ?? '');
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    assert.equal(location.searchParams.get('state'), 'xyz');
    assert.ok(location.searchParams.get('code'));
  });

  test('/authorize rejects an unknown client without redirecting', () => {
    const { mf } = setup();
    const reply = authorize(
      mf,
      `response_type=code&client_id=evil&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    assert.equal(reply.status, 400);
    assert.equal(reply.json.error, 'invalid_client');
  });

  test('/authorize redirects an unknown scope or response_type as an error', () => {
    const { mf } = setup();
    const base = `client_id=${BASIC_ID}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s`;
    const badScope = authorize(mf, `response_type=code&${base}&scope=mfc/accounting/everything`);
    assert.equal(new URL(badScope.headers.Location ?? '').searchParams.get('error'), 'invalid_scope');
    const badType = authorize(mf, `response_type=token&${base}`);
    assert.equal(
      new URL(badType.headers.Location ?? '').searchParams.get('error'),
      'unsupported_response_type',
    );
  });

  test('/token accepts HTTP Basic client authentication', () => {
    const { mf } = setup();
    const tokens = oauthLogin(mf);
    assert.equal(tokens.expires_in, 3600);
    assert.ok(tokens.refresh_token);
    assert.equal(new TestClient(mf, tokens.access_token, 'oauth').get('/api/v3/offices').status, 200);
  });

  test('/token accepts client credentials in the body', () => {
    const { mf } = setup();
    const redirect = authorize(
      mf,
      `response_type=code&client_id=${TEST_CLIENT_ID}&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    );
    const reply = tokenRequest(mf, {
      grant_type: 'authorization_code',
      code: codeFrom(redirect.headers.Location ?? ''),
      redirect_uri: REDIRECT,
      client_id: TEST_CLIENT_ID,
      client_secret: TEST_CLIENT_SECRET,
    });
    assert.equal(reply.status, 200);
  });

  test('each app is refused the client authentication method it was not registered with', () => {
    const { mf } = setup();
    const codeFor = (clientId: string) =>
      codeFrom(
        authorize(mf, `response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(REDIRECT)}`)
          .headers.Location ?? '',
      );
    const form = (clientId: string) => ({
      grant_type: 'authorization_code',
      code: codeFor(clientId),
      redirect_uri: REDIRECT,
    });
    // A client_secret_basic app sending its secret in the body.
    const basicInBody = tokenRequest(mf, {
      ...form(BASIC_ID),
      client_id: BASIC_ID,
      client_secret: BASIC_SECRET,
    });
    assert.equal(basicInBody.status, 401);
    assert.equal(basicInBody.json.error, 'invalid_client');
    assert.match(basicInBody.json.error_description, /client_secret_basic/);
    // A client_secret_post app sending an HTTP Basic header.
    const postAsBasic = tokenRequest(mf, form(TEST_CLIENT_ID), [TEST_CLIENT_ID, TEST_CLIENT_SECRET]);
    assert.equal(postAsBasic.status, 401);
    assert.equal(postAsBasic.json.error, 'invalid_client');
    // Both at once is more than one method (RFC 6749 §2.3), whatever the registration.
    const both = tokenRequest(mf, { ...form(BASIC_ID), client_secret: BASIC_SECRET }, [
      BASIC_ID,
      BASIC_SECRET,
    ]);
    assert.equal(both.json.error, 'invalid_client');
    assert.equal(mf.clientAuthMethod(BASIC_ID), 'client_secret_basic');
    assert.equal(mf.clientAuthMethod(TEST_CLIENT_ID), 'client_secret_post');
  });

  test('/token rejects a wrong secret, a reused code and a mismatched redirect_uri', () => {
    const { mf } = setup();
    const code = () =>
      codeFrom(
        authorize(mf, `response_type=code&client_id=${BASIC_ID}&redirect_uri=${encodeURIComponent(REDIRECT)}`)
          .headers.Location ?? '',
      );
    const wrongSecret = tokenRequest(
      mf,
      { grant_type: 'authorization_code', code: code(), redirect_uri: REDIRECT },
      [BASIC_ID, 'wrong'],
    );
    assert.equal(wrongSecret.status, 401);
    assert.equal(wrongSecret.json.error, 'invalid_client');

    const once = code();
    const form = { grant_type: 'authorization_code', code: once, redirect_uri: REDIRECT };
    assert.equal(tokenRequest(mf, form, [BASIC_ID, BASIC_SECRET]).status, 200);
    const reused = tokenRequest(mf, form, [BASIC_ID, BASIC_SECRET]);
    assert.equal(reused.status, 400);
    assert.equal(reused.json.error, 'invalid_grant');

    const otherRedirect = tokenRequest(
      mf,
      { grant_type: 'authorization_code', code: code(), redirect_uri: 'https://example.com/cb' },
      [BASIC_ID, BASIC_SECRET],
    );
    assert.equal(otherRedirect.json.error, 'invalid_grant');

    const badGrant = tokenRequest(mf, { grant_type: 'password' }, [BASIC_ID, BASIC_SECRET]);
    assert.equal(badGrant.json.error, 'unsupported_grant_type');
  });

  test('PKCE S256 is verified when a challenge was sent', () => {
    const { mf } = setup();
    const verifier = 'a'.repeat(50);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const start = () =>
      codeFrom(
        authorize(
          mf,
          `response_type=code&client_id=${BASIC_ID}&redirect_uri=${encodeURIComponent(REDIRECT)}&code_challenge=${challenge}&code_challenge_method=S256`,
        ).headers.Location ?? '',
      );
    const creds: [string, string] = [BASIC_ID, BASIC_SECRET];
    const bad = tokenRequest(
      mf,
      { grant_type: 'authorization_code', code: start(), redirect_uri: REDIRECT, code_verifier: 'wrong' },
      creds,
    );
    assert.equal(bad.json.error, 'invalid_grant');
    const good = tokenRequest(
      mf,
      { grant_type: 'authorization_code', code: start(), redirect_uri: REDIRECT, code_verifier: verifier },
      creds,
    );
    assert.equal(good.status, 200);
  });

  test('each refresh returns a new refresh token and invalidates the old pair', () => {
    const { mf } = setup();
    const first = oauthLogin(mf);
    const creds: [string, string] = [BASIC_ID, BASIC_SECRET];
    const second = tokenRequest(
      mf,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      creds,
    );
    assert.equal(second.status, 200);
    assert.notEqual(second.json.refresh_token, first.refresh_token);
    assert.notEqual(second.json.access_token, first.access_token);
    // A second process still holding the old refresh token loses.
    const stale = tokenRequest(
      mf,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      creds,
    );
    assert.equal(stale.status, 400);
    assert.equal(stale.json.error, 'invalid_grant');
    assertError(
      new TestClient(mf, first.access_token, 'oauth').get('/api/v3/offices'),
      401,
      'access_token_is_not_active_or_invalid',
    );
    assert.equal(new TestClient(mf, second.json.access_token, 'oauth').get('/api/v3/offices').status, 200);
  });

  test('OAuth access tokens expire after an hour too', () => {
    const { mf, clock } = setup();
    const client = new TestClient(mf, oauthLogin(mf).access_token, 'oauth');
    clock.now = START + 3_600_000;
    assertError(client.get('/api/v3/offices'), 401, 'access_token_is_not_active_or_invalid');
  });

  test('OAuth ignores office_code', () => {
    const { mf } = setup();
    const client = new TestClient(mf, oauthLogin(mf).access_token, 'oauth');
    assert.equal(client.get('/api/v3/offices').status, 200);
    assert.equal(client.get('/api/v3/offices?office_code=9999-0000').status, 200);
  });

  test('a token without the needed scope gets 403 insufficient_permissions', () => {
    const { mf } = setup();
    const client = new TestClient(mf, oauthLogin(mf, 'mfc/accounting/offices.read').access_token, 'oauth');
    assert.equal(client.get('/api/v3/offices').status, 200);
    assertError(client.post('/api/v3/journals', journalBody(mf)), 403, 'insufficient_permissions');
  });
});

describe('memo rewriting', () => {
  test('OAuth-created journals get "\\n" + app name appended', () => {
    const mf = new FakeMf({ now: () => START, appName: 'kicho-dev' });
    const client = new TestClient(mf, oauthLogin(mf).access_token, 'oauth');
    const reply = client.post('/api/v3/journals', journalBody(mf));
    assert.equal(reply.status, 201);
    assert.equal(reply.json.journal.memo, 'R-0001\nkicho-dev');
  });

  test('API-key journals get a trailing "\\n" only when memo is non-empty', () => {
    const { mf, client } = setup();
    assert.equal(client.post('/api/v3/journals', journalBody(mf)).json.journal.memo, 'R-0001\n');
    assert.equal(client.post('/api/v3/journals', journalBody(mf, { memo: '' })).json.journal.memo, '');
    assert.equal(client.post('/api/v3/journals', journalBody(mf, { memo: null })).json.journal.memo, null);
  });
});
