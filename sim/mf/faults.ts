// Injected failures, so tests can prove the posting protocol survives what MF and the network do:
// a write that happened but whose answer was lost, a refusal before anything happened, rate limits,
// and journals that exist but do not show in listings yet.

import { errorResponse, Messages } from './errors';
import type { ParsedRequest } from './request';
import type { HttpResponse } from './types';

export type FaultKind =
  /** The write is applied, then the client sees a timeout (the dangerous case: retrying duplicates). */
  | 'commit-then-timeout'
  /** The client sees a timeout; nothing was applied. */
  | 'timeout-before-commit'
  /** The host cannot be reached; nothing was applied. */
  | 'unreachable'
  /** 500 internal_error; nothing was applied. */
  | '5xx-before-commit'
  /** The write is applied, then 500 internal_error. */
  | '5xx-after-commit'
  /** 429 too_many_requests, with Retry-After when retryAfterSeconds is given. */
  | '429'
  /** 401 access_token_is_not_active_or_invalid although the token is valid. */
  | '401-once'
  /** 403 insufficient_permissions. */
  | '403'
  /** Journals created by matching requests stay out of GET /journals for `lagReads` listing calls. */
  | 'visibility-lag';

export interface FaultMatch {
  method?: string;
  /** Exact raw path (no query), or a pattern tested against it. */
  path?: string | RegExp;
}

export interface FaultSpec {
  kind: FaultKind;
  /** Without a path, a fault matches only `/api/v3/...` requests, never the auth endpoints. */
  match?: FaultMatch;
  /** How many matching requests it hits (default 1; Infinity for "until cleared"). */
  times?: number;
  retryAfterSeconds?: number;
  /** For 'visibility-lag': listing calls a new journal stays hidden for (default 1). */
  lagReads?: number;
}

export interface FaultHandle {
  readonly spec: FaultSpec;
  /** Matching requests this fault will still hit. */
  remaining(): number;
  cancel(): void;
}

interface ActiveFault {
  spec: FaultSpec;
  remaining: number;
}

const AFTER_COMMIT: ReadonlySet<FaultKind> = new Set(['commit-then-timeout', '5xx-after-commit']);

export function isAfterCommit(kind: FaultKind): boolean {
  return AFTER_COMMIT.has(kind);
}

/** A transport failure: no HTTP answer reached the client. Status 504/502 only for the HTTP server's sake. */
export function transportFault(fault: 'timeout' | 'unreachable'): HttpResponse {
  return { status: fault === 'timeout' ? 504 : 502, headers: { 'x-fake-mf-fault': fault }, body: '', fault };
}

function matches(spec: FaultSpec, req: ParsedRequest): boolean {
  const { method, path } = spec.match ?? {};
  if (method !== undefined && method.toUpperCase() !== req.method) return false;
  if (path === undefined) return req.path.startsWith('/api/v3/');
  if (typeof path === 'string') return path === req.path;
  path.lastIndex = 0;
  return path.test(req.path);
}

export class FaultInjector {
  private active: ActiveFault[] = [];

  add(spec: FaultSpec): FaultHandle {
    const fault: ActiveFault = { spec, remaining: spec.times ?? 1 };
    this.active.push(fault);
    return {
      spec,
      remaining: () => fault.remaining,
      cancel: () => {
        fault.remaining = 0;
        this.prune();
      },
    };
  }

  clear(): void {
    this.active = [];
  }

  pending(): FaultSpec[] {
    return this.active.map((fault) => fault.spec);
  }

  /** The first fault (other than visibility-lag) that hits this request, consumed. */
  takeRequestFault(req: ParsedRequest): FaultSpec | undefined {
    const fault = this.active.find((f) => f.spec.kind !== 'visibility-lag' && matches(f.spec, req));
    if (!fault) return undefined;
    this.consume(fault);
    return fault.spec;
  }

  /** A visibility-lag fault for this request; consumed only if the request actually created a journal. */
  peekVisibilityLag(req: ParsedRequest): { lagReads: number; consume(): void } | undefined {
    const fault = this.active.find((f) => f.spec.kind === 'visibility-lag' && matches(f.spec, req));
    if (!fault) return undefined;
    return { lagReads: fault.spec.lagReads ?? 1, consume: () => this.consume(fault) };
  }

  private consume(fault: ActiveFault): void {
    fault.remaining -= 1;
    this.prune();
  }

  private prune(): void {
    this.active = this.active.filter((fault) => fault.remaining > 0);
  }
}

/** The answer a fault gives instead of (before-commit) or after (after-commit) handling the request. */
export function faultResponse(spec: FaultSpec): HttpResponse {
  switch (spec.kind) {
    case 'commit-then-timeout':
    case 'timeout-before-commit':
      return transportFault('timeout');
    case 'unreachable':
      return transportFault('unreachable');
    case '5xx-before-commit':
    case '5xx-after-commit':
      return errorResponse(500, 'internal_error', Messages.internalError);
    case '429':
      return errorResponse(
        429,
        'too_many_requests',
        Messages.tooManyRequests,
        spec.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(spec.retryAfterSeconds) },
      );
    case '401-once':
      return errorResponse(401, 'access_token_is_not_active_or_invalid', Messages.tokenInvalid);
    case '403':
      return errorResponse(403, 'insufficient_permissions', Messages.insufficientPermissions);
    case 'visibility-lag':
      throw new Error('visibility-lag is applied to created journals, not as a response');
  }
}

export interface RateLimit {
  /** Requests admitted per second (sliding window on the fake's clock); MF is assumed to allow 3. */
  requestsPerSecond: number;
  /** Sent as Retry-After when set; MF's accounting 429s are not known to carry it [§9]. */
  retryAfterSeconds?: number;
}

/** Optional automatic limiter over /api/v3 calls, off unless configured. */
export class RateLimiter {
  private limit: RateLimit | undefined;
  private admitted: number[] = [];

  configure(limit: RateLimit | undefined): void {
    this.limit = limit;
    this.admitted = [];
  }

  /** A 429 response when the request is over the limit; otherwise records it and returns undefined. */
  check(now: number): HttpResponse | undefined {
    if (!this.limit) return undefined;
    this.admitted = this.admitted.filter((t) => t > now - 1000);
    if (this.admitted.length >= this.limit.requestsPerSecond) {
      const retry = this.limit.retryAfterSeconds;
      return errorResponse(
        429,
        'too_many_requests',
        Messages.tooManyRequests,
        retry === undefined ? {} : { 'Retry-After': String(retry) },
      );
    }
    this.admitted.push(now);
    return undefined;
  }
}
