import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeMf } from '../../sim/mf/fake-mf';
import { DEFAULT_TOKEN_CACHE_KEY, OAuthAuth, type OAuthServiceLike } from '../../src/mf/auth';
import { MfClient } from '../../src/mf/client';
import { MfApiError, MfAuthError } from '../../src/mf/errors';
import {
  API_BASE,
  apiKeyAuth,
  assertNoSecret,
  FakeClock,
  FakeHttp,
  harness,
  MemoryStore,
  requestsTo,
  TEST_API_KEY,
  TEST_OFFICE_CODE,
  thrown,
} from './helpers';

const EXCHANGE = '/auth/exchange';

describe('API-key auth', () => {
  test('exchanges the key once and sends the token and office_code on every call', () => {
    const { mf, http, client } = harness();
    assert.equal(client.office().code, TEST_OFFICE_CODE);
    assert.equal(client.accounts().length > 0, true);
    assert.equal(requestsTo(mf, EXCHANGE).length, 1);
    const [exchange, ...calls] = http.sent;
    assert.ok(exchange);
    assert.equal(exchange.method, 'post');
    assert.equal(exchange.url, 'https://api.biz.moneyforward.com/auth/exchange');
    assert.equal(exchange.headers.Authorization, `Bearer ${TEST_API_KEY}`);
    for (const call of calls) {
      assert.match(call.headers.Authorization ?? '', /^Bearer fake-mf-at-/);
      assert.equal(call.headers.Accept, 'application/json');
      assert.match(call.url, /[?&]office_code=1234-5678(&|$)/);
      assert.ok(!call.url.includes(TEST_API_KEY));
    }
  });

  test('two clients sharing a cache share one token', () => {
    const clock = new FakeClock();
    const mf = new FakeMf({ now: () => clock.now() });
    const http = new FakeHttp(mf, clock);
    const cache = new MemoryStore();
    const a = new MfClient({ apiBaseUrl: API_BASE, http, clock, auth: apiKeyAuth(http, clock, cache) });
    const b = new MfClient({ apiBaseUrl: API_BASE, http, clock, auth: apiKeyAuth(http, clock, cache) });
    a.taxes();
    b.taxes();
    a.accounts();
    assert.equal(requestsTo(mf, EXCHANGE).length, 1);
    const stored = JSON.parse(cache.get(DEFAULT_TOKEN_CACHE_KEY) ?? 'null');
    assert.equal(stored.officeCode, TEST_OFFICE_CODE);
    assert.ok(!JSON.stringify(stored).includes(TEST_API_KEY), 'the key itself is never cached');
    const tokens = new Set(http.sent.slice(1).map((r) => r.headers.Authorization));
    assert.equal(tokens.size, 1);
  });

  test('a token is used until a minute before it expires, then exchanged again', () => {
    const { mf, clock, client } = harness();
    client.taxes();
    clock.time += 3540_000 - 1;
    client.taxes();
    assert.equal(requestsTo(mf, EXCHANGE).length, 1);
    clock.time += 1;
    client.taxes();
    assert.equal(requestsTo(mf, EXCHANGE).length, 2);
    assert.ok(mf.requestLog.every((entry) => entry.status === 200));
  });

  test('a cached token from another key or office is not reused', () => {
    const clock = new FakeClock();
    const mf = new FakeMf({
      now: () => clock.now(),
      apiKeys: { [TEST_API_KEY]: TEST_OFFICE_CODE, other: '9999-9999' },
    });
    const http = new FakeHttp(mf, clock);
    const cache = new MemoryStore();
    apiKeyAuth(http, clock, cache, 'other').accessToken();
    apiKeyAuth(http, clock, cache).accessToken();
    assert.equal(requestsTo(mf, EXCHANGE).length, 2);
  });

  test('invalidate() drops the shared token; refresh() exchanges a new one', () => {
    const { mf, clock, http, cache, auth } = harness();
    const first = auth.accessToken();
    auth.invalidate();
    assert.equal(cache.get(DEFAULT_TOKEN_CACHE_KEY), null);
    const second = auth.accessToken();
    assert.notEqual(first, second);
    assert.equal(auth.refresh(), true);
    assert.notEqual(auth.accessToken(), second);
    assert.equal(requestsTo(mf, EXCHANGE).length, 3);
    // refresh() adopts a newer token another execution already cached instead of exchanging again.
    const other = apiKeyAuth(http, clock, cache);
    const mine = auth.accessToken();
    other.invalidate();
    const newer = other.accessToken();
    assert.equal(auth.refresh(), true);
    assert.equal(auth.accessToken(), newer);
    assert.notEqual(newer, mine);
    assert.equal(requestsTo(mf, EXCHANGE).length, 4);
  });

  test('an invalid key gives MfAuthError in Japanese, without the key', () => {
    const { client } = harness({ apiKey: 'mf_api_prd_wrong_key_123' });
    const error = thrown(() => client.office());
    assert.ok(error instanceof MfAuthError);
    assert.equal(error.message, 'MFのAPIキーが無効です。設定し直してください。');
    assert.equal(error.status, 401);
    assertNoSecret(`${error.message} ${error.stack} ${JSON.stringify(error)}`, ['mf_api_prd_wrong_key_123']);
  });

  test('a missing key or office code is named, and nothing is sent', () => {
    const clock = new FakeClock();
    const mf = new FakeMf({ now: () => clock.now() });
    const http = new FakeHttp(mf, clock);
    const error = thrown(() => apiKeyAuth(http, clock, new MemoryStore(), '  ').accessToken());
    assert.ok(error instanceof MfAuthError);
    assert.match(error.message, /MF_API_KEY/);
    assert.equal(http.sent.length, 0);
  });

  test('exchange 429 is waited out (Retry-After); an unreachable auth server is reported without the key', () => {
    const { mf, clock, auth, http } = harness();
    mf.injectFault({ kind: '429', match: { path: EXCHANGE }, retryAfterSeconds: 2 });
    assert.match(auth.accessToken(), /^fake-mf-at-/);
    assert.deepEqual(clock.sleeps, [2000]);
    auth.invalidate();
    mf.injectFault({ kind: 'timeout-before-commit', match: { path: EXCHANGE } });
    const error = thrown(() => auth.accessToken());
    assert.ok(error instanceof MfAuthError);
    assert.equal(error.code, 'timeout');
    assert.match(error.message, /タイムアウト/);
    assertNoSecret(error.message, [TEST_API_KEY]);
    assert.equal(http.sent.at(-1)?.headers.Authorization, `Bearer ${TEST_API_KEY}`);
  });
});

class StubOAuthService implements OAuthServiceLike {
  refreshes = 0;
  access = true;
  token: string;

  constructor(private readonly mf: FakeMf) {
    this.token = mf.issueAccessToken('oauth');
  }

  getAccessToken(): string {
    return this.token;
  }

  hasAccess(): boolean {
    return this.access;
  }

  refresh(): void {
    this.refreshes++;
    this.token = this.mf.issueAccessToken('oauth');
  }
}

describe('OAuth auth', () => {
  function oauthHarness() {
    const clock = new FakeClock();
    const mf = new FakeMf({ now: () => clock.now() });
    const http = new FakeHttp(mf, clock);
    const service = new StubOAuthService(mf);
    const auth = new OAuthAuth(service);
    const client = new MfClient({ apiBaseUrl: API_BASE, http, clock, auth });
    return { mf, http, service, auth, client };
  }

  test('uses the library token and sends no office_code', () => {
    const { http, service, auth, client } = oauthHarness();
    assert.equal(auth.officeCode, null);
    assert.equal(client.office().code, TEST_OFFICE_CODE);
    assert.equal(http.sent[0]?.headers.Authorization, `Bearer ${service.token}`);
    assert.ok(!http.sent[0]?.url.includes('office_code'));
  });

  test('a 401 makes the library refresh once, and the call succeeds', () => {
    const { mf, service, client } = oauthHarness();
    mf.injectFault({ kind: '401-once' });
    assert.ok(client.taxes().length > 0);
    assert.equal(service.refreshes, 1);
    assert.deepEqual(
      mf.requestLog.map((entry) => entry.status),
      [401, 200],
    );
  });

  test('lost access is an MfAuthError asking to authorize again; nothing is sent', () => {
    const { http, service, client } = oauthHarness();
    service.access = false;
    const error = thrown(() => client.taxes());
    assert.ok(error instanceof MfAuthError);
    assert.ok(error instanceof MfApiError);
    assert.match(error.message, /認証し直してください/);
    assert.equal(http.sent.length, 0);
  });

  test('a refresh that throws is reported in our words, not the library’s', () => {
    const { mf, service, client } = oauthHarness();
    service.refresh = () => {
      throw new Error(`Error refreshing token: refresh_token=${service.token}`);
    };
    mf.injectFault({ kind: '401-once' });
    const error = thrown(() => client.taxes());
    assert.ok(error instanceof MfAuthError);
    assertNoSecret(error.message, [service.token]);
  });
});
