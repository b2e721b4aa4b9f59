import {
  type ClockPort,
  HttpNotSentError,
  type HttpPort,
  type HttpRequest,
  type HttpResponse,
  HttpTransportError,
} from '../core/ports';
import { redactSecrets } from '../core/redact';
import type { AuthProvider } from './auth';
import { MfApiError, MfAuthError, MfOfficeCodeError, MfOfficeMismatchError } from './errors';
import { explainMfError, explainOfficeCode } from './messages';
import { pathWithId, QueryBuilder, withQuery } from './query';
import { MAX_RETRY_AFTER_MS, RateLimiter, retryAfterMs } from './rate-limit';
import { scopeFor } from './scopes';
import type {
  CreateJournalRequest,
  DeleteOutcome,
  JournalizeRequest,
  JournalizingStatus,
  MfAccount,
  MfAccountingPeriod,
  MfConnectedAccount,
  MfId,
  MfJournal,
  MfOffice,
  MfTax,
  MfTermSetting,
  MfTradePartner,
  MfTransaction,
  MfTrialBalance,
  SendOutcome,
} from './types';
import { accountingPeriodFor, splitByPeriods, splitWindow } from './windows';

const API_PREFIX = '/api/v3';

/** GET /transactions: the spec says 1000 but the live API answered "per_page must be between 10 and 500". */
export const TRANSACTIONS_PER_PAGE_MAX = 500;
const TRANSACTIONS_PER_PAGE_MIN = 10;
/** GET /journals allows 10000 per the spec, while an error text in the same spec says 100 [C]. */
export const JOURNALS_PER_PAGE_MAX = 10_000;
export const JOURNALS_PER_PAGE_DEFAULT = JOURNALS_PER_PAGE_MAX;
/** What GET /journals is asked again with when it refuses a larger per_page (its error text's limit). */
export const JOURNALS_PER_PAGE_FALLBACK = 100;
/** GET /journals accepts at most 50 transaction_ids per call. */
export const TRANSACTION_IDS_PER_CALL = 50;
/** GETs retried after 429 before giving up; each waits Retry-After or a doubling backoff. */
const DEFAULT_RATE_LIMIT_RETRIES = 3;
const BACKOFF_BASE_MS = 1000;

export interface MfClientOptions {
  /** e.g. https://api-accounting.moneyforward.com (without /api/v3). */
  apiBaseUrl: string;
  http: HttpPort;
  clock: ClockPort;
  auth: AuthProvider;
  /** Share one limiter between every client of an execution; by default each client spaces its own calls. */
  limiter?: RateLimiter;
  /** per_page for GET /journals (1–10000, default 10000, the document's maximum). */
  maxPerPage?: number;
  /** per_page for GET /transactions (10–500, default 500). */
  transactionsPerPage?: number;
  /** How many times a GET answered 429 is sent again (default 3). */
  rateLimitRetries?: number;
  /**
   * Called once before the first request of this client (DESIGN §5 one-office guard); it may read
   * office() and throws to stop every call. Not called again once it has passed.
   */
  officeCheck?: (client: MfClient) => void;
}

/** Which journals to list (DESIGN §5: split by accounting period). */
export interface JournalFilter {
  transactionIds?: MfId[];
  accountId?: MfId;
}

export interface ListTransactionsQuery {
  startDate: string;
  endDate: string;
  /** Omitted or empty: every status. */
  statuses?: JournalizingStatus[];
  connectedAccountId?: MfId;
}

/** GET /reports/trial_balance_bs: the balance sheet's trial balance over startDate..endDate (one period). */
export interface TrialBalanceQuery {
  startDate: string;
  endDate: string;
  /** Sub-account rows under each account (the document's with_sub_accounts). */
  withSubAccounts?: boolean;
}

export interface ListJournalsQuery {
  startDate?: string;
  endDate?: string;
  /** Journals created from these statement lines. An empty array means "none" (no call is made). */
  transactionIds?: MfId[];
  /** Journals with this account on either side. */
  accountId?: MfId;
}

const Msg = {
  timeout: 'MFの応答がタイムアウトしました。',
  network: 'MFに接続できませんでした。',
  transportRetry: 'しばらく待ってから再実行してください。',
  unexpectedSend: 'MFへの送信中に予期しないエラーが発生しました。',
  unauthorized:
    'MFの認証が通りませんでした。メニュー「記帳 > 接続と設定 > MFに接続」で接続し直してください。',
  refreshFailed:
    'MFのアクセストークンを更新できませんでした。APIキーまたはMFとの連携の設定を確認してください。',
  server: (status: number, code: string) =>
    `MFでエラーが発生しました（HTTP ${status} ${code}）。しばらく待ってから再実行してください。`,
  badAnswer: (status: number) => `MFから読めない応答が返りました（HTTP ${status}）。`,
  noJournalId: (status: number) => `MFの応答から仕訳IDを読めませんでした（HTTP ${status}）。`,
  needDate: 'GET /journals には startDate か endDate が必要です。',
} as const;

interface MfErrorInfo {
  code: string;
  message: string;
}

/** Longest piece of a non-JSON body quoted in an error (it may be an HTML error page). */
const MAX_QUOTED_BODY = 200;

/** MF's first `{errors:[{code, message}]}` entry; a non-JSON body falls back to `http_<status>` and its text. */
export function parseMfError(res: HttpResponse): MfErrorInfo {
  try {
    const body = JSON.parse(res.body) as { errors?: { code?: unknown; message?: unknown }[] } | null;
    const first = body?.errors?.[0];
    if (first && (typeof first.code === 'string' || typeof first.message === 'string')) {
      return {
        code: typeof first.code === 'string' && first.code !== '' ? first.code : `http_${res.status}`,
        message: typeof first.message === 'string' ? first.message : '',
      };
    }
  } catch {
    // Not JSON (a proxy page, an empty body): quote a little of the text below.
  }
  const text = (res.body ?? '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return {
    code: `http_${res.status}`,
    message: text.length > MAX_QUOTED_BODY ? `${text.slice(0, MAX_QUOTED_BODY)}…` : text,
  };
}

function clampInt(value: number | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Paging stops after a page when MF sends no metadata (masters are not known to page). */
function totalPages(body: Record<string, unknown>): number {
  const metadata = body.metadata;
  if (isObject(metadata) && typeof metadata.total_pages === 'number') return metadata.total_pages;
  return 1;
}

function unique<T>(items: readonly T[]): T[] {
  const out: T[] = [];
  const seen = new Set<T>();
  for (const item of items) {
    if (!seen.has(item)) {
      seen.add(item);
      out.push(item);
    }
  }
  return out;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface Sent {
  res: HttpResponse;
}

/**
 * MF Cloud Accounting API v3 over the HTTP port (mf-api.md). Reads retry what is safe to retry (429,
 * one 401 after a refresh); creates are sent once and their outcome is classified, never retried,
 * because MF has no idempotency key and a lost answer may hide a created journal (DESIGN §5).
 */
export class MfClient {
  private readonly baseUrl: string;
  private readonly http: HttpPort;
  private readonly clock: ClockPort;
  private readonly auth: AuthProvider;
  private readonly limiter: RateLimiter;
  /** Lowered to the fallback for the rest of the run when MF refuses the document's maximum. */
  private journalsPerPage: number;
  private readonly transactionsPerPage: number;
  private readonly rateLimitRetries: number;
  private readonly officeCheck: ((client: MfClient) => void) | undefined;
  private officeChecked = false;
  private checkingOffice = false;
  /** GET /offices once per client: the guard and every period split share it. */
  private officeCache: MfOffice | null = null;
  /** The token of the last request, scrubbed from any text quoted out of a response. */
  private lastToken: string | null = null;

  constructor(opts: MfClientOptions) {
    this.baseUrl = opts.apiBaseUrl.replace(/\/+$/, '');
    this.http = opts.http;
    this.clock = opts.clock;
    this.auth = opts.auth;
    this.limiter = opts.limiter ?? new RateLimiter(opts.clock);
    this.journalsPerPage = clampInt(opts.maxPerPage, 1, JOURNALS_PER_PAGE_MAX, JOURNALS_PER_PAGE_DEFAULT);
    this.transactionsPerPage = clampInt(
      opts.transactionsPerPage,
      TRANSACTIONS_PER_PAGE_MIN,
      TRANSACTIONS_PER_PAGE_MAX,
      TRANSACTIONS_PER_PAGE_MAX,
    );
    this.rateLimitRetries = clampInt(opts.rateLimitRetries, 0, 10, DEFAULT_RATE_LIMIT_RETRIES);
    this.officeCheck = opts.officeCheck;
  }

  /** How this client authenticates: where a refused permission is granted differs. */
  get mode(): 'apikey' | 'oauth' {
    return this.auth.officeCode ? 'apikey' : 'oauth';
  }

  /** The per_page GET /journals is sent with now (10000, or 100 after MF refused more). */
  get journalsPageSize(): number {
    return this.journalsPerPage;
  }

  // Masters

  /** The office the token is tied to, with its accounting periods (newest first); asked once per client. */
  office(): MfOffice {
    if (this.officeCache) return this.officeCache;
    let body: Record<string, unknown>;
    try {
      body = this.getObject('/offices', new QueryBuilder());
    } catch (error) {
      throw this.officeCodeRefusal(error) ?? error;
    }
    // A single object, not an array [O S5, S7]; accept a `{office: …}` wrapper too in case MF adds one.
    const office = isObject(body.office) ? body.office : body;
    if (!Array.isArray(office.accounting_periods)) throw this.badAnswer(200);
    this.officeCache = office as unknown as MfOffice;
    return this.officeCache;
  }

  /**
   * API-key mode: GET /offices refused in a way only the office_code explains (it is the one parameter
   * sent): 400 invalid_query_parameter_value, 403 other than a disabled account or office, 409
   * no_office_found, or 401 for a token fetched just before. MF's own answer is unpublished; each is said
   * as a wrong 事業者コード (messages.ts explainOfficeCode). Null for anything else.
   */
  private officeCodeRefusal(error: unknown): MfOfficeCodeError | null {
    const code = this.auth.officeCode;
    if (!code || !(error instanceof MfApiError) || error.status === null) return null;
    const { status } = error;
    const refused =
      (status === 400 && error.code === 'invalid_query_parameter_value') ||
      (status === 403 && error.code !== 'account_is_disabled' && error.code !== 'office_is_disabled') ||
      (status === 409 && error.code === 'no_office_found') ||
      (status === 401 && error instanceof MfAuthError && error.freshToken);
    if (!refused) return null;
    return new MfOfficeCodeError(explainOfficeCode(code, status, error.code), code, {
      status,
      code: error.code,
    });
  }

  /** The office's accounting periods (from the one office() call). */
  periods(): MfAccountingPeriod[] {
    return this.office().accounting_periods;
  }

  /** The accounting period containing `date`, or null when the date is outside every period. */
  periodOf(date: string): MfAccountingPeriod | null {
    return accountingPeriodFor(date, this.periods());
  }

  /** Every account, active or not, each with its sub_accounts. */
  accounts(): MfAccount[] {
    return this.getMaster<MfAccount>('/accounts', 'accounts');
  }

  taxes(): MfTax[] {
    return this.getMaster<MfTax>('/taxes', 'taxes');
  }

  tradePartners(): MfTradePartner[] {
    return this.getMaster<MfTradePartner>('/trade_partners', 'trade_partners');
  }

  connectedAccounts(): MfConnectedAccount[] {
    return this.getMaster<MfConnectedAccount>('/connected_accounts', 'connected_accounts');
  }

  /** GET /term_settings: every fiscal year's settings, newest first (課税形式 for インボイス区分). */
  termSettings(): MfTermSetting[] {
    return this.getMaster<MfTermSetting>('/term_settings', 'term_settings');
  }

  // Statement lines and journals

  /**
   * Statement lines dated startDate..endDate. The window is cut into pieces of at most 366 days (MF's
   * limit) and each piece is paged oldest first, so lines arriving during the listing land on later pages
   * instead of shifting earlier ones; a line seen twice is kept once.
   */
  listTransactions(q: ListTransactionsQuery): MfTransaction[] {
    const seen = new Set<string>();
    return splitWindow(q.startDate, q.endDate).flatMap((window) =>
      this.paged<MfTransaction>('/transactions', 'transactions', seen, (page) =>
        new QueryBuilder()
          .set('start_date', window.start)
          .set('end_date', window.end)
          .list('journalizing_statuses', q.statuses)
          .id('connected_account_id', q.connectedAccountId)
          .set('order', 'asc')
          .set('page', page)
          .set('per_page', this.transactionsPerPage),
      ),
    );
  }

  /**
   * One listing of journals by transaction date, optionally narrowed to statement lines or an account.
   * MF searches only the accounting period that contains the date it is given (startDate, else endDate)
   * and silently drops the rest of the window: callers use journalsBetween, which splits by period.
   * transactionIds are sent at most 50 per call.
   */
  listJournals(q: ListJournalsQuery): MfJournal[] {
    if (!q.startDate && !q.endDate) throw new RangeError(Msg.needDate);
    if (q.transactionIds !== undefined && q.transactionIds.length === 0) return [];
    const idChunks: (MfId[] | undefined)[] =
      q.transactionIds === undefined
        ? [undefined]
        : chunk(unique(q.transactionIds), TRANSACTION_IDS_PER_CALL);
    const seen = new Set<string>();
    return idChunks.flatMap((ids) =>
      this.paged<MfJournal>('/journals', 'journals', seen, (page) =>
        new QueryBuilder()
          .set('start_date', q.startDate)
          .set('end_date', q.endDate)
          .id('account_id', q.accountId)
          .ids('transaction_ids', ids)
          .set('page', page)
          .set('per_page', this.journalsPerPage),
      ),
    );
  }

  /**
   * Every journal dated startDate..endDate (one accounting period) when the listing takes at most
   * `maxPages` pages, else null after its first page (total_pages says how many it would take): a caller
   * with many transaction ids lists the window instead of asking for the ids 50 at a time when that
   * is cheaper, and pays one call more when it is not.
   */
  listJournalsWithin(q: { startDate: string; endDate: string }, maxPages: number): MfJournal[] | null {
    const query = (page: number) =>
      new QueryBuilder()
        .set('start_date', q.startDate)
        .set('end_date', q.endDate)
        .set('page', page)
        .set('per_page', this.journalsPerPage);
    const first = this.getPage('/journals', () => query(1));
    const items = this.arrayField<MfJournal>(first, 'journals');
    const pages = items.length === 0 ? 0 : totalPages(first);
    if (pages > maxPages) return null;
    const seen = new Set<string>();
    const out: MfJournal[] = [];
    const keep = (list: MfJournal[]) => {
      for (const j of list) {
        if (!seen.has(j.id)) {
          seen.add(j.id);
          out.push(j);
        }
      }
    };
    keep(items);
    for (let page = 2; page <= pages; page++)
      keep(
        this.arrayField<MfJournal>(
          this.getPage('/journals', () => query(page)),
          'journals',
        ),
      );
    return out;
  }

  /**
   * Every page of one listing (`page` 1..total_pages); an item seen on an earlier page is kept once. With
   * `sink`, each page's new items go there instead of into the result (a large listing is then never held
   * whole in memory).
   */
  private paged<T extends { id: string }>(
    path: string,
    field: string,
    seen: Set<string>,
    query: (page: number) => QueryBuilder,
    sink?: (items: T[]) => void,
  ): T[] {
    const out: T[] = [];
    for (let page = 1, pages = 1; page <= pages; page++) {
      const body = this.getPage(path, () => query(page));
      const items = this.arrayField<T>(body, field);
      const fresh: T[] = sink ? [] : out;
      for (const item of items) {
        if (!seen.has(item.id)) {
          seen.add(item.id);
          fresh.push(item);
        }
      }
      if (sink) sink(fresh);
      pages = items.length === 0 ? 0 : totalPages(body);
    }
    return out;
  }

  /**
   * A page of a listing. GET /journals is asked with the document's maximum per_page; if MF refuses it
   * with a 400 (one of the document's texts says 1–100 [C]), the page is asked once more with 100, and
   * 100 is kept for the rest of the run.
   */
  private getPage(path: string, query: () => QueryBuilder): Record<string, unknown> {
    try {
      return this.getObject(path, query());
    } catch (error) {
      const retry =
        path === '/journals' &&
        this.journalsPerPage > JOURNALS_PER_PAGE_FALLBACK &&
        error instanceof MfApiError &&
        error.status === 400 &&
        error.code === 'invalid_query_parameter_value';
      if (!retry) throw error;
      this.journalsPerPage = JOURNALS_PER_PAGE_FALLBACK;
      return this.getObject(path, query());
    }
  }

  /**
   * Journals dated startDate..endDate across accounting periods: MF answers one period per call, so
   * the range is cut at period boundaries (one listing per period, paged; DESIGN §5). Parts outside
   * every period are not asked (MF would answer 400 "Given date is outside the accounting period.").
   */
  journalsBetween(startDate: string, endDate: string, filter: JournalFilter = {}): MfJournal[] {
    if (filter.transactionIds !== undefined && filter.transactionIds.length === 0) return [];
    return splitByPeriods(startDate, endDate, this.periods()).flatMap((w) =>
      this.listJournals({ startDate: w.start, endDate: w.end, ...filter }),
    );
  }

  /**
   * Every journal dated startDate..endDate, split by accounting period like journalsBetween, handed to
   * `onPage` one page at a time (重複点検 reads a whole term this way without holding it twice).
   */
  eachJournalPage(startDate: string, endDate: string, onPage: (journals: MfJournal[]) => void): void {
    for (const w of splitByPeriods(startDate, endDate, this.periods())) {
      this.paged<MfJournal>(
        '/journals',
        'journals',
        new Set<string>(),
        (page) =>
          new QueryBuilder()
            .set('start_date', w.start)
            .set('end_date', w.end)
            .set('page', page)
            .set('per_page', this.journalsPerPage),
        onPage,
      );
    }
  }

  /** One journal by id, or null when MF says the id does not exist (400 invalid_request_path_parameter). */
  journal(id: MfId): MfJournal | null {
    try {
      const body = this.getObject(pathWithId('/journals', id), new QueryBuilder());
      if (!isObject(body.journal)) throw this.badAnswer(200);
      return body.journal as unknown as MfJournal;
    } catch (error) {
      if (
        error instanceof MfApiError &&
        error.status === 400 &&
        error.code === 'invalid_request_path_parameter'
      ) {
        return null;
      }
      throw error;
    }
  }

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
   * looks the journal up (journal(id)) before deciding anything. A 401 is resent once after a refresh
   * (MF did nothing with it). MF answers an id it does not have with 400 invalid_request_path_parameter
   * (the same as GET [O]): `absent`.
   */
  deleteJournal(id: MfId): DeleteOutcome {
    const path = pathWithId('/journals', id);
    let sent = this.trySend('delete', path, new QueryBuilder());
    if (!('res' in sent)) return this.deleteOutcomeOf(sent);
    if (sent.res.status === 401) {
      const refreshed = this.tryRefresh();
      if (refreshed !== null) return { kind: 'unauthorized', message: refreshed };
      sent = this.trySend('delete', path, new QueryBuilder());
      if (!('res' in sent)) return this.deleteOutcomeOf(sent);
    }
    const { res } = sent;
    if (res.status >= 200 && res.status < 300) return { kind: 'deleted' };
    if (res.status === 401) return { kind: 'unauthorized', message: Msg.unauthorized };
    if (res.status === 429)
      return { kind: 'rate-limited', retryAfterMs: retryAfterMs(res.headers, this.clock.now()) };
    if (res.status >= 400 && res.status < 500) {
      const error = this.errorInfo(res);
      if (res.status === 400 && error.code === 'invalid_request_path_parameter') return { kind: 'absent' };
      const explanation = explainMfError(res.status, error.code, error.message, {
        mode: this.mode,
        scope: scopeFor('delete', `${API_PREFIX}${path}`),
      });
      return { kind: 'rejected', status: res.status, code: error.code, message: error.message, explanation };
    }
    if (res.status >= 500)
      return { kind: 'unknown', reason: Msg.server(res.status, this.errorInfo(res).code) };
    return { kind: 'unknown', reason: Msg.badAnswer(res.status) };
  }

  /** trySend's outcomes for a request that got no answer, as a delete's. */
  private deleteOutcomeOf(outcome: SendOutcome): DeleteOutcome {
    if (outcome.kind === 'unauthorized' || outcome.kind === 'unknown') return outcome;
    return { kind: 'unknown', reason: Msg.unexpectedSend };
  }

  /**
   * GET /reports/trial_balance_bs for one range inside one accounting period: closing_balance is the balance
   * at endDate. Accounts and sub-accounts whose every figure is 0 are left out by MF [D].
   */
  trialBalanceBs(q: TrialBalanceQuery): MfTrialBalance {
    const body = this.getObject(
      '/reports/trial_balance_bs',
      new QueryBuilder()
        .set('start_date', q.startDate)
        .set('end_date', q.endDate)
        .set('with_sub_accounts', q.withSubAccounts ? 'true' : undefined),
    );
    if (!Array.isArray(body.rows) || !Array.isArray(body.columns)) throw this.badAnswer(200);
    return body as unknown as MfTrialBalance;
  }

  // Creates

  private create(path: string, body: unknown): SendOutcome {
    const payload = JSON.stringify(body);
    let sent = this.trySend('post', path, new QueryBuilder(), payload);
    if (!('res' in sent)) return sent;
    if (sent.res.status === 401) {
      // A 401 means MF did not process the request, so one resend with a fresh token is safe.
      const refreshed = this.tryRefresh();
      if (refreshed !== null) return { kind: 'unauthorized', message: refreshed };
      sent = this.trySend('post', path, new QueryBuilder(), payload);
      if (!('res' in sent)) return sent;
    }
    return this.classifyCreate(sent.res, 'post', `${API_PREFIX}${path}`);
  }

  /** One attempt; whatever prevents knowing the answer becomes an outcome instead of an exception. */
  private trySend(
    method: HttpRequest['method'],
    path: string,
    query: QueryBuilder,
    payload?: string,
  ): Sent | SendOutcome {
    let token: string;
    try {
      // The one-office guard before anything is sent: a create must never reach another office.
      this.runOfficeCheck();
      token = this.auth.accessToken();
    } catch (error) {
      // Nothing was sent: the run stops and the rows go back to 送信待ち (DESIGN §5 step 4).
      if (error instanceof MfAuthError || error instanceof MfOfficeMismatchError)
        return { kind: 'unauthorized', message: error.message };
      throw error;
    }
    try {
      return { res: this.sendWith(token, method, path, query, payload) };
    } catch (error) {
      if (error instanceof HttpTransportError) {
        return { kind: 'unknown', reason: error.reason === 'timeout' ? Msg.timeout : Msg.network };
      }
      // Apps Script refused it before sending: the caller stops and sends it again later.
      if (error instanceof HttpNotSentError) throw error;
      // The port failed in a way it should not; the request may still have left.
      return { kind: 'unknown', reason: Msg.unexpectedSend };
    }
  }

  private classifyCreate(res: HttpResponse, method: string, path: string): SendOutcome {
    const { status } = res;
    if (status >= 200 && status < 300) {
      const id = this.journalIdFrom(res);
      // Created, but we cannot tell which journal: reconcile finds it by transaction id or tag.
      if (id === null) return { kind: 'unknown', reason: Msg.noJournalId(status) };
      const kinds = this.storedInvoiceKinds(res);
      return { kind: 'created', journalId: id, ...(kinds ? { invoiceKinds: kinds } : {}) };
    }
    if (status === 401) return { kind: 'unauthorized', message: Msg.unauthorized };
    if (status === 429)
      return { kind: 'rate-limited', retryAfterMs: retryAfterMs(res.headers, this.clock.now()) };
    if (status >= 400 && status < 500) {
      // No decision rests on MF's wording (DESIGN §5 step 4): the caller looks a journalize up first.
      const error = this.errorInfo(res);
      const explanation = explainMfError(status, error.code, error.message, {
        mode: this.mode,
        scope: scopeFor(method, path),
      });
      return { kind: 'rejected', status, code: error.code, message: error.message, explanation };
    }
    if (status >= 500) {
      // The journal may exist (a 500 after commit): look it up, never resend blindly.
      return { kind: 'unknown', reason: Msg.server(status, this.errorInfo(res).code) };
    }
    return { kind: 'unknown', reason: Msg.badAnswer(status) };
  }

  /** The invoice_kind of every side of the created journal (CRUDJournalResponse), or null when not shown. */
  private storedInvoiceKinds(res: HttpResponse): string[] | null {
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

  private journalIdFrom(res: HttpResponse): MfId | null {
    try {
      const body = JSON.parse(res.body) as { journal?: { id?: unknown } } | null;
      const id = body?.journal?.id;
      return typeof id === 'string' && id !== '' ? id : null;
    } catch {
      return null;
    }
  }

  /** null when a fresh credential is in place, else the Japanese message to report. */
  private tryRefresh(): string | null {
    try {
      return this.auth.refresh() ? null : Msg.refreshFailed;
    } catch (error) {
      return error instanceof MfAuthError ? error.message : Msg.refreshFailed;
    }
  }

  // Reads

  private getMaster<T>(path: string, key: string): T[] {
    // Masters are not documented as paged; follow metadata only if MF sends it, and send `page` only then
    // (unknown parameters are a 400).
    const first = this.getObject(path, new QueryBuilder());
    const out = this.arrayField<T>(first, key);
    const pages = totalPages(first);
    for (let page = 2; page <= pages; page++) {
      out.push(...this.arrayField<T>(this.getObject(path, new QueryBuilder().set('page', page)), key));
    }
    return out;
  }

  private getObject(path: string, query: QueryBuilder): Record<string, unknown> {
    const res = this.get(path, query);
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      throw this.badAnswer(res.status);
    }
    if (!isObject(body)) throw this.badAnswer(res.status);
    return body;
  }

  private arrayField<T>(body: Record<string, unknown>, key: string): T[] {
    const value = body[key];
    if (!Array.isArray(value)) throw this.badAnswer(200);
    return value as T[];
  }

  /** A GET with the retries that are safe for a read; any other failure throws MfApiError. */
  private get(path: string, query: QueryBuilder): HttpResponse {
    let refreshed = false;
    let rateRetries = 0;
    for (;;) {
      const token = this.auth.accessToken();
      let res: HttpResponse;
      try {
        res = this.sendWith(token, 'get', path, query);
      } catch (error) {
        if (error instanceof HttpTransportError) {
          const lead = error.reason === 'timeout' ? Msg.timeout : Msg.network;
          throw new MfApiError(`${lead}${Msg.transportRetry}`, { status: null, code: error.reason });
        }
        throw error;
      }
      if (res.status >= 200 && res.status < 300) return res;
      if (res.status === 401 && !refreshed) {
        refreshed = true;
        const failure = this.tryRefresh();
        if (failure !== null) throw new MfAuthError(failure, { status: 401, code: this.errorInfo(res).code });
        continue;
      }
      if (res.status === 429 && rateRetries < this.rateLimitRetries) {
        const wait = retryAfterMs(res.headers, this.clock.now()) ?? BACKOFF_BASE_MS * 2 ** rateRetries;
        rateRetries++;
        this.clock.sleep(Math.min(wait, MAX_RETRY_AFTER_MS));
        continue;
      }
      throw this.errorFor(res, path, refreshed);
    }
  }

  /** MF's answer in Japanese, with its code in brackets (messages.ts); MF's own text stays in `detail`. */
  private errorFor(res: HttpResponse, path: string, freshToken = false): MfApiError {
    const { status } = res;
    const { code, message } = this.errorInfo(res);
    const opts = { status, code, detail: message || null };
    const text = explainMfError(status, code, message, {
      mode: this.mode,
      scope: scopeFor('get', `${API_PREFIX}${path.replace(/\?.*$/, '')}`),
    });
    if (status === 401) return new MfAuthError(text, { ...opts, freshToken });
    return new MfApiError(text, opts);
  }

  /** Runs the one-office guard now (it throws MfOfficeMismatchError when the office is another one). */
  assertOffice(): void {
    this.runOfficeCheck();
  }

  /** The one-office guard, before the first request (its own office() call passes straight through). */
  private runOfficeCheck(): void {
    if (!this.officeCheck || this.officeChecked || this.checkingOffice) return;
    this.checkingOffice = true;
    try {
      this.officeCheck(this);
      this.officeChecked = true;
    } finally {
      this.checkingOffice = false;
    }
  }

  private badAnswer(status: number): MfApiError {
    return new MfApiError(Msg.badAnswer(status), { status, code: 'invalid_response' });
  }

  /** MF's error with anything credential-like scrubbed: its text ends up in メモ and ログ. */
  private errorInfo(res: HttpResponse): MfErrorInfo {
    const info = parseMfError(res);
    return {
      code: redactSecrets(info.code, [this.lastToken]),
      message: redactSecrets(info.message, [this.lastToken]),
    };
  }

  private sendWith(
    token: string,
    method: HttpRequest['method'],
    path: string,
    query: QueryBuilder,
    payload?: string,
  ): HttpResponse {
    this.runOfficeCheck();
    this.lastToken = token;
    const fullQuery = new QueryBuilder();
    const text = query.toString();
    // API-key tokens must name the office on every call; OAuth ignores it (mf-api.md §2.2).
    if (this.auth.officeCode) fullQuery.set('office_code', this.auth.officeCode);
    const url = withQuery(withQuery(`${this.baseUrl}${API_PREFIX}${path}`, text), fullQuery);
    const request: HttpRequest = {
      method,
      url,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    };
    if (payload !== undefined) {
      request.headers['Content-Type'] = 'application/json';
      request.contentType = 'application/json';
      request.payload = payload;
    }
    this.limiter.acquire();
    return this.http.send(request);
  }
}
