// No credential reaches an error the MF transport builds (DESIGN §9.5): an MF answer that echoes the
// bearer token — as is, base64-encoded, inside a non-JSON page, in its code — must come out scrubbed,
// whether a read throws it or a write returns it as an outcome.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HttpPort, HttpRequest, HttpResponse } from '../../src/core/ports';
import type { AuthProvider } from '../../src/mf/auth';
import { MfClient } from '../../src/mf/client';
import { MfApiError } from '../../src/mf/errors';
import { QueryBuilder } from '../../src/mf/query';
import { MfTransport } from '../../src/mf/transport';
import { API_BASE, assertNoSecret, FakeClock, thrown } from './helpers';

/** Shaped like no pattern redactSecrets knows, so only the transport's knowledge of it can hide it. */
const TOKENS = ['tok9f8e7d6c5b4a3210zyxw', 'tok0a1b2c3d4e5f6789vuts'];
/** An API key MF might echo (plainly fake); the transport never holds it, so only its shape can hide it. */
const API_KEY = 'mf_api_prd_fake_for_tests_0001';

/** Hands out TOKENS in turn: a refresh moves to the next one. */
class StubAuth implements AuthProvider {
  readonly officeCode = '1234-5678';
  private index = 0;
  accessToken(): string {
    return TOKENS[this.index];
  }
  invalidate(): void {}
  refresh(): boolean {
    this.index = Math.min(this.index + 1, TOKENS.length - 1);
    return true;
  }
}

function bearerOf(req: HttpRequest): string {
  return req.headers.Authorization.replace(/^Bearer /, '');
}

/** MF-shaped error bodies that quote the token the request carried, in the ways a body may. */
const ECHOES: { name: string; status: number; body: (token: string) => string }[] = [
  {
    name: 'JSON message with the raw token',
    status: 400,
    body: (t) =>
      JSON.stringify({
        errors: [{ code: 'invalid_request_body_value', message: `token ${t} is not valid` }],
      }),
  },
  {
    name: 'JSON code and message with the token base64-encoded, and an API key',
    status: 403,
    body: (t) =>
      JSON.stringify({
        errors: [
          {
            code: `denied_${t}`,
            message: `credential ${Buffer.from(`Bearer ${t}`).toString('base64')} key ${API_KEY}`,
          },
        ],
      }),
  },
  {
    name: 'an HTML page from a proxy quoting the Authorization header',
    status: 404,
    body: (t) => `<html><body><p>upstream rejected Authorization=${t}</p></body></html>`,
  },
  {
    name: 'a 500 whose code carries the token',
    status: 500,
    body: (t) => JSON.stringify({ errors: [{ code: `internal_${t}`, message: 'x' }] }),
  },
];

/** Answers every request with one echo; the token is the one that request carried. */
function echoing(status: number, body: (token: string) => string): HttpPort & { bodies: string[] } {
  const bodies: string[] = [];
  return {
    bodies,
    send(req: HttpRequest): HttpResponse {
      const text = body(bearerOf(req));
      bodies.push(text);
      return { status, headers: {}, body: text };
    },
  };
}

function everything(value: unknown): string {
  if (value instanceof Error) return `${value.message} ${JSON.stringify(value)}`;
  return JSON.stringify(value);
}

function assertEchoed(bodies: string[]): void {
  // The stub really quoted a credential: without redaction the assertions below would fail.
  assert.ok(bodies.length > 0);
  for (const b of bodies)
    assert.ok(TOKENS.some((t) => b.includes(t) || b.includes(Buffer.from(`Bearer ${t}`).toString('base64'))));
}

const SECRETS = [...TOKENS, API_KEY];

describe('MF transport redaction', () => {
  for (const echo of ECHOES) {
    test(`a read's MfApiError never carries the token: ${echo.name}`, () => {
      const http = echoing(echo.status, echo.body);
      const transport = new MfTransport({
        apiBaseUrl: API_BASE,
        http,
        clock: new FakeClock(),
        auth: new StubAuth(),
      });
      const error = thrown(() => transport.getObject('/taxes', new QueryBuilder()));
      assert.ok(error instanceof MfApiError);
      assertEchoed(http.bodies);
      assertNoSecret(everything(error), SECRETS);
    });

    test(`a write's outcome never carries the token: ${echo.name}`, () => {
      const http = echoing(echo.status, echo.body);
      const client = new MfClient({
        apiBaseUrl: API_BASE,
        http,
        clock: new FakeClock(),
        auth: new StubAuth(),
      });
      const created = client.createJournal({
        journal: { transaction_date: '2026-05-10', journal_type: 'journal_entry', tags: [], branches: [] },
      });
      const deleted = client.deleteJournal('abc');
      assert.notEqual(created.kind, 'created');
      assert.notEqual(deleted.kind, 'deleted');
      assertEchoed(http.bodies);
      assertNoSecret(everything(created), SECRETS);
      assertNoSecret(everything(deleted), SECRETS);
    });
  }

  test('after a 401 and a refresh, the new token is the one scrubbed', () => {
    const bodies: string[] = [];
    const http: HttpPort = {
      send(req) {
        const token = bearerOf(req);
        const body = JSON.stringify({ errors: [{ code: 'unauthorized', message: `bad token ${token}` }] });
        bodies.push(body);
        // The first token is refused; the refreshed one gets a 400 that quotes it.
        return { status: token === TOKENS[0] ? 401 : 400, headers: {}, body };
      },
    };
    const transport = new MfTransport({
      apiBaseUrl: API_BASE,
      http,
      clock: new FakeClock(),
      auth: new StubAuth(),
    });
    const error = thrown(() => transport.get('/taxes', new QueryBuilder()));
    assert.ok(error instanceof MfApiError);
    assert.equal(error.status, 400);
    assert.ok(bodies.some((b) => b.includes(TOKENS[1])));
    assertNoSecret(everything(error), SECRETS);
  });
});
