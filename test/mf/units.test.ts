import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { redactSecrets } from '../../src/core/redact';
import { MfApiError, MfAuthError } from '../../src/mf/errors';
import { encodeStoredId, pathWithId, QueryBuilder, withQuery } from '../../src/mf/query';
import { RateLimiter, retryAfterMs } from '../../src/mf/rate-limit';
import { accountingPeriodFor, daysBetween, splitByPeriods, splitWindow } from '../../src/mf/windows';
import { FakeClock } from './helpers';

const ID = 'BowMhLnFvzZ1y9TeF5%2B3QQ%3D%3D';

describe('query building', () => {
  test('ids go out as stored; arrays repeat the key; other values are encoded', () => {
    const q = new QueryBuilder()
      .set('start_date', '2026-04-01')
      .list('journalizing_statuses', ['none', 'modified'])
      .ids('transaction_ids', [ID, 'abc%2Fdef'])
      .set('content', 'ｱﾏｿﾞﾝ & co=1')
      .set('skip', undefined)
      .id('account_id', null);
    assert.equal(
      q.toString(),
      `start_date=2026-04-01&journalizing_statuses=none&journalizing_statuses=modified&transaction_ids=${ID}` +
        `&transaction_ids=abc%2Fdef&content=${encodeURIComponent('ｱﾏｿﾞﾝ & co=1')}`,
    );
    assert.ok(!q.toString().includes('[]'));
  });

  test('a stored id is never encoded twice; characters that cannot stand raw are', () => {
    assert.equal(encodeStoredId(ID), ID);
    assert.equal(encodeStoredId('a+b/c='), 'a%2Bb%2Fc%3D');
    assert.equal(encodeStoredId('50%off'), '50%25off');
    // In a path the stored id is encoded exactly once more: MF turns a raw %2F into / and answers 403.
    assert.equal(pathWithId('/journals/', ID), `/journals/${encodeURIComponent(ID)}`);
    assert.equal(pathWithId('/journals', 'a%2Fb%2B%3D'), '/journals/a%252Fb%252B%253D');
  });

  test('withQuery joins with ? or &, and leaves a URL alone for an empty query', () => {
    assert.equal(withQuery('https://x/a', ''), 'https://x/a');
    assert.equal(withQuery('https://x/a', 'p=1'), 'https://x/a?p=1');
    assert.equal(withQuery('https://x/a?p=1', new QueryBuilder().set('q', 2)), 'https://x/a?p=1&q=2');
  });
});

describe('date windows', () => {
  test('a window up to 366 days stays whole', () => {
    assert.deepEqual(splitWindow('2026-01-01', '2026-01-01'), [{ start: '2026-01-01', end: '2026-01-01' }]);
    assert.deepEqual(splitWindow('2024-01-01', '2024-12-31'), [{ start: '2024-01-01', end: '2024-12-31' }]);
  });

  test('wider windows are cut into consecutive pieces of at most 366 days', () => {
    const windows = splitWindow('2024-01-01', '2026-06-30');
    assert.deepEqual(windows, [
      { start: '2024-01-01', end: '2024-12-31' },
      { start: '2025-01-01', end: '2026-01-01' },
      { start: '2026-01-02', end: '2026-06-30' },
    ]);
    for (const w of windows) assert.ok(daysBetween(w.start, w.end) + 1 <= 366);
    assert.deepEqual(splitWindow('2026-01-10', '2026-01-01'), []);
    assert.equal(splitWindow('2026-01-01', '2026-01-10', 3).length, 4);
  });

  test('dates are calendar strings: no time-zone shift, invalid dates refused', () => {
    assert.deepEqual(splitWindow('2026-03-31', '2026-04-01', 1), [
      { start: '2026-03-31', end: '2026-03-31' },
      { start: '2026-04-01', end: '2026-04-01' },
    ]);
    assert.throws(() => splitWindow('2026-02-30', '2026-03-01'), RangeError);
    assert.throws(() => splitWindow('2026/01/01', '2026-03-01'), RangeError);
  });

  test('accounting periods', () => {
    const periods = [
      { start_date: '2026-04-01', end_date: '2027-03-31', fiscal_year: 2026 },
      { start_date: '2025-04-01', end_date: '2026-03-31', fiscal_year: 2025 },
    ];
    assert.equal(accountingPeriodFor('2026-03-31', periods)?.fiscal_year, 2025);
    assert.equal(accountingPeriodFor('2026-04-01', periods)?.fiscal_year, 2026);
    assert.equal(accountingPeriodFor('2024-01-01', periods), null);
    assert.deepEqual(splitByPeriods('2026-01-05', '2026-06-30', periods), [
      { start: '2026-01-05', end: '2026-03-31' },
      { start: '2026-04-01', end: '2026-06-30' },
    ]);
    assert.deepEqual(splitByPeriods('2024-01-01', '2024-02-01', periods), []);
  });
});

describe('rate limiting', () => {
  test('requests are spaced at least minInterval apart on the clock', () => {
    const clock = new FakeClock(0);
    const limiter = new RateLimiter(clock);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      limiter.acquire();
      times.push(clock.now());
      clock.time += 100; // the request itself takes 100 ms
    }
    assert.deepEqual(times, [0, 350, 700, 1050, 1400]);
    clock.time += 1000;
    limiter.acquire();
    assert.equal(clock.sleeps.length, 4, 'no sleep when enough time has passed');
  });

  test('Retry-After: seconds, any header case, capped; HTTP-date with a clock; else null', () => {
    assert.equal(retryAfterMs({ 'Retry-After': '2' }), 2000);
    assert.equal(retryAfterMs({ 'retry-after': '1.5' }), 1500);
    assert.equal(retryAfterMs({ 'RETRY-AFTER': '3600' }), 60_000);
    assert.equal(retryAfterMs({ 'Retry-After': 'soon' }), null);
    assert.equal(retryAfterMs({}), null);
    assert.equal(retryAfterMs(undefined), null);
    const now = Date.parse('2026-07-01T09:00:00Z');
    assert.equal(retryAfterMs({ 'Retry-After': 'Wed, 01 Jul 2026 09:00:05 GMT' }, now), 5000);
  });
});

describe('errors', () => {
  test('MfAuthError is an MfApiError with status and code', () => {
    const error = new MfAuthError('MFのAPIキーが無効です。', { status: 401, code: 'x' });
    assert.ok(error instanceof MfApiError);
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'MfAuthError');
    assert.equal(error.status, 401);
    assert.equal(error.code, 'x');
    assert.equal(error.detail, null);
  });

  test('redactSecrets scrubs bearer tokens, API keys and given secrets', () => {
    const text = redactSecrets('Authorization: Bearer abc.def key mf_api_prd_XYZ tok-123456', ['tok-123456']);
    assert.equal(text, 'Authorization: *** key *** ***');
  });
});
