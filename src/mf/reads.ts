/**
 * What kicho reads from MF: the office and its periods, masters, statement lines and journals, with
 * paging, the 366-day and per-period splits, and the per_page fallback. Every read goes through the
 * transport (transport.ts), which retries what is safe to retry. Every Japanese text said here: messages.ts.
 */
import { MfApiError } from './errors';
import { ClientMsg } from './messages';
import { pathWithId, QueryBuilder } from './query';
import { clampInt, isObject, type MfTransport } from './transport';
import type {
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
} from './types';
import { accountingPeriodFor, splitByPeriods, splitWindow } from './windows';

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

export interface ReadOptions {
  /** per_page for GET /journals (1–10000, default 10000, the document's maximum). */
  maxPerPage?: number;
  /** per_page for GET /transactions (10–500, default 500). */
  transactionsPerPage?: number;
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

export class MfReads {
  /** Lowered to the fallback for the rest of the run when MF refuses the document's maximum. */
  private journalsPerPage: number;
  private readonly transactionsPerPage: number;
  /** GET /offices once per client: the guard and every period split share it. */
  private officeCache: MfOffice | null = null;

  constructor(
    private readonly transport: MfTransport,
    opts: ReadOptions = {},
  ) {
    this.journalsPerPage = clampInt(opts.maxPerPage, 1, JOURNALS_PER_PAGE_MAX, JOURNALS_PER_PAGE_DEFAULT);
    this.transactionsPerPage = clampInt(
      opts.transactionsPerPage,
      TRANSACTIONS_PER_PAGE_MIN,
      TRANSACTIONS_PER_PAGE_MAX,
      TRANSACTIONS_PER_PAGE_MAX,
    );
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
      body = this.transport.getObject('/offices', new QueryBuilder());
    } catch (error) {
      throw this.transport.officeCodeRefusal(error) ?? error;
    }
    // A single object, not an array [O S5, S7]; accept a `{office: …}` wrapper too in case MF adds one.
    const office = isObject(body.office) ? body.office : body;
    if (!Array.isArray(office.accounting_periods)) throw this.transport.badAnswer(200);
    this.officeCache = office as unknown as MfOffice;
    return this.officeCache;
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
    if (!q.startDate && !q.endDate) throw new RangeError(ClientMsg.needDate);
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
      return this.transport.getObject(path, query());
    } catch (error) {
      const retry =
        path === '/journals' &&
        this.journalsPerPage > JOURNALS_PER_PAGE_FALLBACK &&
        error instanceof MfApiError &&
        error.status === 400 &&
        error.code === 'invalid_query_parameter_value';
      if (!retry) throw error;
      this.journalsPerPage = JOURNALS_PER_PAGE_FALLBACK;
      return this.transport.getObject(path, query());
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
      const body = this.transport.getObject(pathWithId('/journals', id), new QueryBuilder());
      if (!isObject(body.journal)) throw this.transport.badAnswer(200);
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

  /**
   * GET /reports/trial_balance_bs for one range inside one accounting period: closing_balance is the balance
   * at endDate. Accounts and sub-accounts whose every figure is 0 are left out by MF [D].
   */
  trialBalanceBs(q: TrialBalanceQuery): MfTrialBalance {
    const body = this.transport.getObject(
      '/reports/trial_balance_bs',
      new QueryBuilder()
        .set('start_date', q.startDate)
        .set('end_date', q.endDate)
        .set('with_sub_accounts', q.withSubAccounts ? 'true' : undefined),
    );
    if (!Array.isArray(body.rows) || !Array.isArray(body.columns)) throw this.transport.badAnswer(200);
    return body as unknown as MfTrialBalance;
  }

  // Paging and answers

  private getMaster<T>(path: string, key: string): T[] {
    // Masters are not documented as paged; follow metadata only if MF sends it, and send `page` only then
    // (unknown parameters are a 400).
    const first = this.transport.getObject(path, new QueryBuilder());
    const out = this.arrayField<T>(first, key);
    const pages = totalPages(first);
    for (let page = 2; page <= pages; page++) {
      out.push(
        ...this.arrayField<T>(this.transport.getObject(path, new QueryBuilder().set('page', page)), key),
      );
    }
    return out;
  }

  private arrayField<T>(body: Record<string, unknown>, key: string): T[] {
    const value = body[key];
    if (!Array.isArray(value)) throw this.transport.badAnswer(200);
    return value as T[];
  }
}
