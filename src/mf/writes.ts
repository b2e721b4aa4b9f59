/**
 * Creates and deletes (DESIGN §5 step 4). Each is sent once and never retried here: MF has no idempotency
 * key, and a lost answer may hide a journal that was created or deleted. The one resend is after a 401,
 * which MF did not act on. Each answer becomes one ExchangeOutcome (types.ts); the caller looks an
 * `unknown` up before deciding anything. Every Japanese text said here: messages.ts.
 */
import type { HttpRequest, HttpResponse } from '../core/ports';
import { ClientMsg, explainMfError } from './messages';
import { pathWithId, QueryBuilder } from './query';
import { retryAfterMs } from './rate-limit';
import { scopeFor } from './scopes';
import { API_PREFIX, type MfErrorInfo, type MfTransport, type NoAnswer, type Sent } from './transport';
import type {
  CreateJournalRequest,
  DeleteOutcome,
  ExchangeOutcome,
  JournalizeRequest,
  MfId,
  SendOutcome,
} from './types';

/** What is particular to one kind of write when its answer is read. */
interface AnswerReading<Done extends { kind: string }> {
  /** A 2xx: what was done (or `unknown` when the answer does not say). */
  done(res: HttpResponse): ExchangeOutcome<Done>;
  /** A 4xx that means the write is moot rather than refused, or null. */
  moot?(status: number, error: MfErrorInfo): Done | null;
}

export class MfWrites {
  constructor(private readonly transport: MfTransport) {}

  /** POST /transactions/journalize: one statement line → one journal linked to it. Sent once. */
  journalize(body: JournalizeRequest): SendOutcome {
    return this.create('/transactions/journalize', body);
  }

  /** POST /journals: a journal for a CSV line (not linked to any statement line). Sent once. */
  createJournal(body: CreateJournalRequest): SendOutcome {
    return this.create('/journals', body);
  }

  /**
   * DELETE /journals/{id} (204). Sent once like a create: a timeout or a 5xx is `unknown` and the caller
   * looks the journal up (journal(id)) before deciding anything. MF answers an id it does not have with
   * 400 invalid_request_path_parameter (the same as GET [O]): `absent`.
   */
  deleteJournal(id: MfId): DeleteOutcome {
    const path = pathWithId('/journals', id);
    return this.classify<{ kind: 'deleted' } | { kind: 'absent' }>(
      this.sendOnce('delete', path),
      'delete',
      path,
      {
        done: () => ({ kind: 'deleted' }),
        moot: (status, error) =>
          status === 400 && error.code === 'invalid_request_path_parameter' ? { kind: 'absent' } : null,
      },
    );
  }

  private create(path: string, body: unknown): SendOutcome {
    return this.classify(this.sendOnce('post', path, JSON.stringify(body)), 'post', path, {
      done: (res) => {
        const id = journalIdFrom(res);
        // Created, but we cannot tell which journal: reconcile finds it by transaction id or tag.
        if (id === null) return { kind: 'unknown', reason: ClientMsg.noJournalId(res.status) };
        const kinds = storedInvoiceKinds(res);
        return { kind: 'created', journalId: id, ...(kinds ? { invoiceKinds: kinds } : {}) };
      },
    });
  }

  /** One send, and one resend only after a 401 and a fresh token. */
  private sendOnce(method: HttpRequest['method'], path: string, payload?: string): Sent | NoAnswer {
    const sent = this.transport.trySend(method, path, new QueryBuilder(), payload);
    if (!('res' in sent) || sent.res.status !== 401) return sent;
    // A 401 means MF did not process the request, so one resend with a fresh token is safe.
    const refreshed = this.transport.tryRefresh();
    if (refreshed !== null) return { kind: 'unauthorized', message: refreshed };
    return this.transport.trySend(method, path, new QueryBuilder(), payload);
  }

  /** What one write's answer means; the same for every write but a 2xx and a moot 4xx. */
  private classify<Done extends { kind: string }>(
    sent: Sent | NoAnswer,
    method: string,
    path: string,
    reading: AnswerReading<Done>,
  ): ExchangeOutcome<Done> {
    if (!('res' in sent)) return sent;
    const { res } = sent;
    const { status } = res;
    if (status >= 200 && status < 300) return reading.done(res);
    if (status === 401) return { kind: 'unauthorized', message: ClientMsg.unauthorized };
    if (status === 429)
      return { kind: 'rate-limited', retryAfterMs: retryAfterMs(res.headers, this.transport.clock.now()) };
    if (status >= 400 && status < 500) {
      // No decision rests on MF's wording (DESIGN §5 step 4): the caller looks a journalize up first.
      const error = this.transport.errorInfo(res);
      const moot = reading.moot?.(status, error);
      if (moot) return moot;
      const explanation = explainMfError(status, error.code, error.message, {
        mode: this.transport.mode,
        scope: scopeFor(method, `${API_PREFIX}${path}`),
      });
      return { kind: 'rejected', status, code: error.code, message: error.message, explanation };
    }
    // The write may have been done (a 500 after commit): look it up, never resend blindly.
    if (status >= 500)
      return { kind: 'unknown', reason: ClientMsg.server(status, this.transport.errorInfo(res).code) };
    return { kind: 'unknown', reason: ClientMsg.badAnswer(status) };
  }
}

/** The invoice_kind of every side of the created journal (CRUDJournalResponse), or null when not shown. */
function storedInvoiceKinds(res: HttpResponse): string[] | null {
  try {
    const body = JSON.parse(res.body) as { journal?: { branches?: unknown } } | null;
    const branches = body?.journal?.branches;
    if (!Array.isArray(branches)) return null;
    const kinds: string[] = [];
    for (const b of branches as {
      debitor?: { invoice_kind?: unknown };
      creditor?: { invoice_kind?: unknown };
    }[])
      for (const side of [b?.debitor, b?.creditor])
        if (typeof side?.invoice_kind === 'string') kinds.push(side.invoice_kind);
    return kinds.length > 0 ? kinds : null;
  } catch {
    return null;
  }
}

function journalIdFrom(res: HttpResponse): MfId | null {
  try {
    const body = JSON.parse(res.body) as { journal?: { id?: unknown } } | null;
    const id = body?.journal?.id;
    return typeof id === 'string' && id !== '' ? id : null;
  } catch {
    return null;
  }
}
