/**
 * The fake MF as the simulation's executions reach it: every request goes to FakeMf, with two
 * additions the simulation needs.
 *
 * - Listing lag in time (eventual consistency): with `lagMs` > 0, a journal created by journalize
 *   stays out of GET /journals, and its line keeps showing `journalizing_status: none` in
 *   GET /transactions, for `lagMs` of virtual time. (FakeMf's own `visibility-lag` fault hides a
 *   journal for a number of listing calls but shows the line as registered at once.) kicho's 照合猶予
 *   is the defence: the lag is kept below it, so only a build without the grace period re-sends.
 * - Every access token MF hands out is remembered, so the invariants can look for it on the sheets.
 */
import type { FakeMf } from '../mf/fake-mf';
import type { HttpRequest, HttpResponse } from '../mf/types';

const JOURNALIZE = '/api/v3/transactions/journalize';

export class MfView {
  readonly tokens = new Set<string>();
  private readonly hidden = new Map<string, { tx: string; until: number }>();

  constructor(
    readonly mf: FakeMf,
    private readonly now: () => number,
    readonly lagMs: number,
  ) {}

  handle(req: HttpRequest): HttpResponse {
    const url = new URL(req.url);
    const method = req.method.toUpperCase();
    const path = url.pathname;
    let tx: string | undefined;
    let before: Set<string> | undefined;
    if (this.lagMs > 0 && method === 'POST' && path === JOURNALIZE) {
      tx = transactionIdOf(req.body);
      if (tx !== undefined) before = new Set(this.mf.journalsForTransaction(tx).map((j) => j.id));
    }
    const res = this.mf.handle(req);
    if ((path === '/auth/exchange' || path === '/token') && res.status === 200) this.rememberToken(res.body);
    if (tx !== undefined && before) {
      for (const j of this.mf.journalsForTransaction(tx)) {
        if (!before.has(j.id)) this.hidden.set(j.id, { tx, until: this.now() + this.lagMs });
      }
    }
    if (method !== 'GET' || res.status !== 200 || this.hidden.size === 0) return res;
    const now = this.now();
    for (const [id, h] of this.hidden) if (h.until <= now) this.hidden.delete(id);
    if (this.hidden.size === 0) return res;
    if (path === '/api/v3/journals') {
      const body = JSON.parse(res.body) as { journals: { id: string }[] };
      body.journals = body.journals.filter((j) => !this.hidden.has(j.id));
      return { ...res, body: JSON.stringify(body) };
    }
    if (path === '/api/v3/transactions') {
      // A lagging line is still 未仕訳: it shows as none — also in a listing that asks for none only
      // (people delete rows, so "we posted it, it is in the 台帳 already" does not hold) — and not in
      // a listing that asks for other statuses only.
      const lagging = new Set([...this.hidden.values()].map((h) => h.tx));
      const statuses = url.searchParams.getAll('journalizing_statuses');
      const noneWanted = statuses.length === 0 || statuses.includes('none');
      const body = JSON.parse(res.body) as { transactions: { id: string; journalizing_status: string }[] };
      body.transactions = body.transactions.filter((t) => noneWanted || !lagging.has(t.id));
      if (noneWanted && statuses.length > 0) {
        // The same listing over every status supplies the lagging lines (the simulation's datasets
        // fit one page).
        const everyStatus = new URL(req.url);
        everyStatus.searchParams.delete('journalizing_statuses');
        const all = this.mf.handle({ ...req, url: everyStatus.toString() });
        if (all.status === 200) {
          const listed = new Set(body.transactions.map((t) => t.id));
          const more = (JSON.parse(all.body) as typeof body).transactions.filter(
            (t) => lagging.has(t.id) && !listed.has(t.id),
          );
          body.transactions.push(...more);
        }
      }
      for (const t of body.transactions) if (lagging.has(t.id)) t.journalizing_status = 'none';
      return { ...res, body: JSON.stringify(body) };
    }
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

function transactionIdOf(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { transaction_id?: unknown };
    return typeof parsed.transaction_id === 'string' ? parsed.transaction_id : undefined;
  } catch {
    return undefined;
  }
}
