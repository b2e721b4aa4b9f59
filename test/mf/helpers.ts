// The MF client under test, wired to the real fake (sim/mf) through an HttpPort adapter, on a virtual
// clock whose sleep advances time: tests see exactly what went on the wire and when.

import assert from 'node:assert/strict';
import { FakeMf, type FakeMfOptions, TEST_API_KEY, TEST_OFFICE_CODE } from '../../sim/mf/fake-mf';
import type { Transaction } from '../../sim/mf/types';
import {
  type ClockPort,
  type HttpPort,
  type HttpRequest,
  type HttpResponse,
  HttpTransportError,
  type KeyValuePort,
} from '../../src/core/ports';
import { ApiKeyAuth, type AuthProvider } from '../../src/mf/auth';
import { MfClient, type MfClientOptions } from '../../src/mf/client';
import { fileContract } from '../contract/shared';

export const API_BASE = 'https://api-accounting.moneyforward.com';
export const AUTH_BASE = 'https://api.biz.moneyforward.com';
export const START = Date.parse('2026-07-01T09:00:00Z');
export { TEST_API_KEY, TEST_OFFICE_CODE };

export class FakeClock implements ClockPort {
  readonly sleeps: number[] = [];

  constructor(public time = START) {}

  now(): number {
    return this.time;
  }

  sleep(ms: number): void {
    this.sleeps.push(ms);
    this.time += ms;
  }

  iso(): string {
    return new Date(this.time).toISOString();
  }
}

export class MemoryStore implements KeyValuePort {
  readonly map = new Map<string, string>();

  get(key: string): string | null {
    return this.map.get(key) ?? null;
  }

  set(key: string, value: string): void {
    this.map.set(key, value);
  }

  delete(key: string): void {
    this.map.delete(key);
  }
}

/** HttpPort over FakeMf.handle, as the gas adapter is over UrlFetchApp: transport faults throw. */
export class FakeHttp implements HttpPort {
  readonly sent: HttpRequest[] = [];

  constructor(
    readonly mf: FakeMf,
    readonly clock: FakeClock,
    /** Virtual time each request takes. */
    readonly latencyMs = 0,
  ) {}

  send(request: HttpRequest): HttpResponse {
    this.sent.push(structuredClone(request));
    const headers = { ...request.headers };
    if (request.contentType && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = request.contentType;
    }
    const wire = { method: request.method.toUpperCase(), url: request.url, headers, body: request.payload };
    const res = this.mf.handle(wire);
    // The client's real requests and the fake's answers are held to MF's OpenAPI document.
    fileContract.record(wire, res);
    this.clock.time += this.latencyMs;
    if (res.fault === 'timeout') throw new HttpTransportError('timeout', `Timeout: ${request.url}`);
    if (res.fault === 'unreachable')
      throw new HttpTransportError('network', `Address unavailable: ${request.url}`);
    return { status: res.status, headers: res.headers, body: res.body };
  }
}

export interface Harness {
  mf: FakeMf;
  clock: FakeClock;
  http: FakeHttp;
  cache: MemoryStore;
  auth: AuthProvider;
  client: MfClient;
}

export interface HarnessOptions {
  fake?: FakeMfOptions;
  client?: Partial<MfClientOptions>;
  latencyMs?: number;
  apiKey?: string;
}

/** A fake MF, and a client in API-key mode against it (the production default). */
export function harness(opts: HarnessOptions = {}): Harness {
  const clock = new FakeClock();
  const mf = new FakeMf({ now: () => clock.now(), ...opts.fake });
  const http = new FakeHttp(mf, clock, opts.latencyMs ?? 0);
  const cache = new MemoryStore();
  const auth = apiKeyAuth(http, clock, cache, opts.apiKey);
  const client = new MfClient({ apiBaseUrl: API_BASE, http, clock, auth, ...opts.client });
  return { mf, clock, http, cache, auth, client };
}

export function apiKeyAuth(http: HttpPort, clock: ClockPort, cache: KeyValuePort, apiKey = TEST_API_KEY) {
  return new ApiKeyAuth({ authBaseUrl: AUTH_BASE, apiKey, officeCode: TEST_OFFICE_CODE, http, clock, cache });
}

/** Requests the fake saw on a path (raw, as on the wire). */
export function requestsTo(mf: FakeMf, path: string) {
  return mf.requestLog.filter((entry) => entry.path === path);
}

export function firstLine(mf: FakeMf, predicate: (tx: Transaction) => boolean = () => true): Transaction {
  const tx = mf
    .transactions()
    .find((candidate) => candidate.journalizing_status === 'none' && predicate(candidate));
  assert.ok(tx, 'no matching none line in the dataset');
  return tx;
}

/** Runs fn and returns what it threw (fails if it did not throw). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof Error, `threw a non-Error: ${String(error)}`);
    return error;
  }
  assert.fail('expected an exception');
}

/** No secret may reach an error message (DESIGN §9.5). */
export function assertNoSecret(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) assert.ok(!text.includes(secret), `secret leaked into: ${text}`);
}
