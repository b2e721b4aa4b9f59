/**
 * The fake MF as the simulation's executions reach it: every request goes to FakeMf, and every access
 * token MF hands out is remembered, so the invariants can look for it on the sheets. (Listing lag in time
 * — a new journal out of GET /journals and its line still `none` — is FakeMf's own `listingLagMs`.)
 */
import type { FakeMf } from '../mf/fake-mf';
import type { HttpRequest, HttpResponse } from '../mf/types';

export class MfView {
  readonly tokens = new Set<string>();
  /** Journals kicho deleted (DELETE answered 204), and when: the invariants tell them from people's. */
  readonly deleted = new Map<string, number>();

  constructor(
    readonly mf: FakeMf,
    private readonly now: () => number = Date.now,
  ) {}

  handle(req: HttpRequest): HttpResponse {
    const path = new URL(req.url).pathname;
    const res = this.mf.handle(req);
    if ((path === '/auth/exchange' || path === '/token') && res.status === 200) this.rememberToken(res.body);
    const deleted = /^\/api\/v3\/journals\/([^/]+)$/.exec(path);
    if (deleted && req.method === 'DELETE' && res.status === 204)
      this.deleted.set(decodeURIComponent(deleted[1]), this.now());
    return res;
  }

  private rememberToken(body: string): void {
    try {
      const parsed = JSON.parse(body) as { access_token?: unknown; refresh_token?: unknown };
      if (typeof parsed.access_token === 'string') this.tokens.add(parsed.access_token);
      if (typeof parsed.refresh_token === 'string') this.tokens.add(parsed.refresh_token);
    } catch {
      // not JSON: nothing to remember
    }
  }
}
