// A thin client over FakeMf.handle for the tests: raw paths and queries go through untouched, so each
// test controls the exact encoding on the wire.

import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { AuthMode } from '../../sim/mf/auth';
import { FakeMf, type FakeMfOptions } from '../../sim/mf/fake-mf';
import { TEST_OFFICE_CODE } from '../../sim/mf/seed';
import type { HttpResponse, Transaction } from '../../sim/mf/types';
import { contract } from '../contract/shared';

/**
 * The fake's own tests send deliberately wrong requests, so only its answers are held to MF's document
 * here: every answer to an operation the document has must validate against that operation's response
 * schema for its status (or be a named difference). Collected per file and failed at its end.
 */
export const answerViolations: string[] = [];

after(() => {
  if (answerViolations.length > 0) {
    throw new Error(
      `${answerViolations.length} answer(s) of the fake broke MF's document:\n${answerViolations.slice(0, 20).join('\n')}`,
    );
  }
});

function checkAnswer(
  req: { method: string; url: string; headers: Record<string, string>; body?: string },
  res: HttpResponse,
): void {
  for (const f of contract.check(req, res)) {
    if (f.part === 'response' && f.difference === null)
      answerViolations.push(`${f.method} ${f.path}: ${f.detail}`);
  }
}

export const API = 'https://api-accounting.moneyforward.com';
export const AUTH = 'https://api.biz.moneyforward.com';
export const START = Date.parse('2026-07-01T09:00:00Z');

export interface Reply {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON shapes
  json: any;
  raw: HttpResponse;
}

export interface CallOptions {
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** null: do not add office_code (API-key mode adds it by default). */
  officeCode?: string | null;
  token?: string | null;
}

export class TestClient {
  constructor(
    readonly mf: FakeMf,
    public token: string,
    readonly mode: AuthMode = 'apiKey',
  ) {}

  call(method: string, pathAndQuery: string, opts: CallOptions = {}): Reply {
    let url = `${API}${pathAndQuery}`;
    const officeCode = opts.officeCode === undefined ? TEST_OFFICE_CODE : opts.officeCode;
    if (this.mode === 'apiKey' && officeCode !== null) {
      url += `${url.includes('?') ? '&' : '?'}office_code=${officeCode}`;
    }
    const token = opts.token === undefined ? this.token : opts.token;
    const headers: Record<string, string> = token === null ? {} : { Authorization: `Bearer ${token}` };
    let body: string | undefined;
    if (opts.rawBody !== undefined || opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = opts.rawBody ?? JSON.stringify(opts.body);
    }
    Object.assign(headers, opts.headers);
    const req = { method, url, headers, body };
    const res = this.mf.handle(req);
    checkAnswer(req, res);
    return toReply(res);
  }

  get(pathAndQuery: string, opts?: CallOptions): Reply {
    return this.call('GET', pathAndQuery, opts);
  }

  post(path: string, body: unknown, opts?: CallOptions): Reply {
    return this.call('POST', path, { ...opts, body });
  }

  put(path: string, body: unknown, opts?: CallOptions): Reply {
    return this.call('PUT', path, { ...opts, body });
  }

  delete(path: string, opts?: CallOptions): Reply {
    return this.call('DELETE', path, opts);
  }
}

export function toReply(raw: HttpResponse): Reply {
  const isJson = (raw.headers['Content-Type'] ?? '').startsWith('application/json');
  return {
    status: raw.status,
    headers: raw.headers,
    json: isJson && raw.body ? JSON.parse(raw.body) : undefined,
    raw,
  };
}

/** A fake on a controllable clock, with an API-key token already exchanged. */
export function setup(options: FakeMfOptions = {}) {
  const clock = { now: START };
  const mf = new FakeMf({ now: () => clock.now, ...options });
  const client = new TestClient(mf, mf.issueAccessToken('apiKey'));
  return { mf, clock, client };
}

export function assertError(reply: Reply, status: number, code: string, message?: string | RegExp): void {
  assert.equal(reply.status, status, `expected ${status} ${code}, got ${reply.status} ${reply.raw.body}`);
  assert.equal(reply.json?.errors?.length, 1, reply.raw.body);
  assert.equal(reply.json.errors[0].code, code);
  // The wire carries the document's text; the fake's own explanation, when different, is in a header.
  const texts = [reply.json.errors[0].message, reply.headers['x-fake-mf-detail'] ?? ''];
  if (typeof message === 'string')
    assert.ok(texts.includes(message), `${message} not in ${texts.join(' | ')}`);
  else if (message)
    assert.ok(
      texts.some((t) => message.test(t)),
      `${message} not in ${texts.join(' | ')}`,
    );
}

export function firstLine(mf: FakeMf, predicate: (tx: Transaction) => boolean = () => true): Transaction {
  const tx = mf
    .transactions()
    .find((candidate) => candidate.journalizing_status === 'none' && predicate(candidate));
  assert.ok(tx, 'no matching none line in the dataset');
  return tx;
}

type SideBody = Record<string, unknown>;

export interface JournalBody {
  journal: { branches: { remark?: string; debitor: SideBody; creditor: SideBody }[]; [key: string]: unknown };
}

/** A minimal valid POST /journals body: 消耗品費 1,100 (tax included) paid in cash on 2026-05-10. */
export function journalBody(mf: FakeMf, overrides: Record<string, unknown> = {}, value = 1100): JournalBody {
  return {
    journal: {
      transaction_date: '2026-05-10',
      journal_type: 'journal_entry',
      tags: ['kc-0123456789abcdef'],
      memo: 'R-0001',
      branches: [
        {
          remark: '事務用品',
          debitor: { account_id: mf.findAccount('消耗品費').id, value },
          creditor: { account_id: mf.findAccount('現金').id, value },
        },
      ],
      ...overrides,
    },
  };
}

/** The debit or credit side of the first branch, to tweak one field of a valid body. */
export function firstSide(body: JournalBody, which: 'debitor' | 'creditor'): SideBody {
  const branch = body.journal.branches[0];
  assert.ok(branch);
  return branch[which];
}
