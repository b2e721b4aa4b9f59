/**
 * MF Cloud Accounting API v3 as kicho uses it (mf-api.md), one object for callers, built of three parts:
 * - transport.ts: one HTTP exchange — auth header, rate limit, the retries a read may take, the one-office
 *   guard, MF's error read and scrubbed of credentials;
 * - reads.ts: the office, masters, statement lines and journals, paged and split by window and period;
 * - writes.ts: creates and deletes, each sent once, each answer one ExchangeOutcome (types.ts), never
 *   retried because MF has no idempotency key and a lost answer may hide a done write (DESIGN §5).
 * Every Japanese text the client says is in messages.ts.
 */
import type { ClockPort, HttpPort } from '../core/ports';
import type { AuthProvider } from './auth';
import type { RateLimiter } from './rate-limit';
import {
  type JournalFilter,
  type ListJournalsQuery,
  type ListTransactionsQuery,
  MfReads,
  type TrialBalanceQuery,
} from './reads';
import { MfTransport } from './transport';
import type {
  CreateJournalRequest,
  DeleteOutcome,
  JournalizeRequest,
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
import { MfWrites } from './writes';

export {
  JOURNALS_PER_PAGE_DEFAULT,
  JOURNALS_PER_PAGE_FALLBACK,
  JOURNALS_PER_PAGE_MAX,
  type JournalFilter,
  type ListJournalsQuery,
  type ListTransactionsQuery,
  TRANSACTION_IDS_PER_CALL,
  TRANSACTIONS_PER_PAGE_MAX,
  type TrialBalanceQuery,
} from './reads';

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

export class MfClient {
  private readonly transport: MfTransport;
  private readonly reads: MfReads;
  private readonly writes: MfWrites;

  constructor(opts: MfClientOptions) {
    const { officeCheck } = opts;
    this.transport = new MfTransport({
      apiBaseUrl: opts.apiBaseUrl,
      http: opts.http,
      clock: opts.clock,
      auth: opts.auth,
      limiter: opts.limiter,
      rateLimitRetries: opts.rateLimitRetries,
      officeCheck: officeCheck && (() => officeCheck(this)),
    });
    this.reads = new MfReads(this.transport, opts);
    this.writes = new MfWrites(this.transport);
  }

  /** How this client authenticates: where a refused permission is granted differs. */
  get mode(): 'apikey' | 'oauth' {
    return this.transport.mode;
  }

  /** Runs the one-office guard now (it throws MfOfficeMismatchError when the office is another one). */
  assertOffice(): void {
    this.transport.runOfficeCheck();
  }

  // Reads (reads.ts says what each asks)

  get journalsPageSize(): number {
    return this.reads.journalsPageSize;
  }
  office(): MfOffice {
    return this.reads.office();
  }
  periods(): MfAccountingPeriod[] {
    return this.reads.periods();
  }
  periodOf(date: string): MfAccountingPeriod | null {
    return this.reads.periodOf(date);
  }
  accounts(): MfAccount[] {
    return this.reads.accounts();
  }
  taxes(): MfTax[] {
    return this.reads.taxes();
  }
  tradePartners(): MfTradePartner[] {
    return this.reads.tradePartners();
  }
  connectedAccounts(): MfConnectedAccount[] {
    return this.reads.connectedAccounts();
  }
  termSettings(): MfTermSetting[] {
    return this.reads.termSettings();
  }
  listTransactions(q: ListTransactionsQuery): MfTransaction[] {
    return this.reads.listTransactions(q);
  }
  listJournals(q: ListJournalsQuery): MfJournal[] {
    return this.reads.listJournals(q);
  }
  listJournalsWithin(q: { startDate: string; endDate: string }, maxPages: number): MfJournal[] | null {
    return this.reads.listJournalsWithin(q, maxPages);
  }
  journalsBetween(startDate: string, endDate: string, filter: JournalFilter = {}): MfJournal[] {
    return this.reads.journalsBetween(startDate, endDate, filter);
  }
  eachJournalPage(startDate: string, endDate: string, onPage: (journals: MfJournal[]) => void): void {
    this.reads.eachJournalPage(startDate, endDate, onPage);
  }
  journal(id: MfId): MfJournal | null {
    return this.reads.journal(id);
  }
  trialBalanceBs(q: TrialBalanceQuery): MfTrialBalance {
    return this.reads.trialBalanceBs(q);
  }

  // Writes (writes.ts), each sent once

  journalize(body: JournalizeRequest): SendOutcome {
    return this.writes.journalize(body);
  }
  createJournal(body: CreateJournalRequest): SendOutcome {
    return this.writes.createJournal(body);
  }
  deleteJournal(id: MfId): DeleteOutcome {
    return this.writes.deleteJournal(id);
  }
}
