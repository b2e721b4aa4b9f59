// FakeMf: an in-process stand-in for MF Cloud Accounting API v3 and its auth server. The Apps Script
// emulator's UrlFetchApp hands every request for a configured MF base URL to `handle`; routing is by
// path only, so any host works. Tests inspect the books directly and inject faults per request.

import { type AuthMode, AuthServer, type ClientAuthMethod, type OAuthClient } from './auth';
import type { ApiSettings, WrongOfficeCode } from './context';
import { formatTimestamp } from './dates';
import { errorResponse, Messages } from './errors';
import {
  type FaultHandle,
  FaultInjector,
  type FaultKind,
  type FaultSpec,
  faultResponse,
  isAfterCommit,
  type RateLimit,
  RateLimiter,
} from './faults';
import { IdFactory } from './ids';
import { renderJournal } from './journal-view';
import { Random } from './random';
import { type ParsedRequest, parseRequest } from './request';
import { handleApi } from './router';
import { buildDataset, TEST_OFFICE_CODE } from './seed';
import { OTHER_OFFICE_CODE, otherOfficeDataset } from './seed-other-office';
import { MfStore } from './store';
import type {
  Account,
  ConnectedAccount,
  EnteredBy,
  HttpRequest,
  HttpResponse,
  Journal,
  JournalRecord,
  MfDataset,
  StoredSide,
  Tax,
  Transaction,
} from './types';

export { TEST_OFFICE_CODE } from './seed';
export { OTHER_OFFICE_CODE, OTHER_OFFICE_NAME } from './seed-other-office';

/** Looks nothing like a production key (`mf_api_prd_…`), so it can sit in fixtures and docs. */
export const TEST_API_KEY = 'mf_api_test_key_0001';
/** An API key of the second office (option otherOffice). */
export const TEST_API_KEY_OTHER = 'mf_api_test_key_0002';
/** An OAuth app registered with CLIENT_SECRET_POST (the secret in the token request's body). */
export const TEST_CLIENT_ID = 'kicho-test-client';
export const TEST_CLIENT_SECRET = 'kicho-test-secret';
/** An OAuth app registered with CLIENT_SECRET_BASIC (the secret in an HTTP Basic header). */
export const TEST_CLIENT_ID_BASIC = 'kicho-test-client-basic';
export const TEST_CLIENT_SECRET_BASIC = 'kicho-test-secret-basic';
export const DEFAULT_APP_NAME = 'kicho';

export interface FakeMfOptions {
  /** Seeds the dataset and every id and token the fake hands out (default 1). */
  seed?: number;
  /** Virtual clock in ms, used for token expiry, rate limits and create_time/update_time. */
  now?: () => number;
  /** When true, journalizing an already registered line makes another journal instead of a 400. */
  permissiveJournalize?: boolean;
  /** Wording of the 400 for a second journalize (default 'generic', the document's text). */
  secondJournalize?: 'generic' | 'invented';
  /** GET /journals per_page limit (default 10000 as the schema says; 100 as its error text says). */
  journalsPerPageMax?: 10_000 | 100;
  /** How journal.transaction_id spells the line id (default 'as-listed'). */
  transactionIdForm?: 'as-listed' | 'lowercase-hex';
  /** Leaf rows of a trial balance: `rows: []` as the schema says (default) or null as its example shows. */
  trialBalanceLeafRows?: 'empty' | 'null';
  /** Adds a second office (OTHER_OFFICE_CODE, key TEST_API_KEY_OTHER) with books of its own. */
  otherOffice?: boolean;
  /** API key → office code (default: TEST_API_KEY → 1234-5678, and TEST_API_KEY_OTHER with otherOffice). */
  apiKeys?: Record<string, string>;
  /**
   * OAuth client_id → secret and registered client authentication method (default: TEST_CLIENT_ID with
   * client_secret_post, TEST_CLIENT_ID_BASIC with client_secret_basic).
   */
  oauthClients?: Record<string, OAuthClient>;
  /** App name MF appends to memo for OAuth-created journals. */
  appName?: string;
  /**
   * The longest a visibility-lag fault keeps a new journal out of GET /journals, in virtual ms, however
   * few listings came since (default: no limit — hidden until its listing calls are spent).
   */
  visibilityLagMaxMs?: number;
  /** Listing calls (GET /journals) every new journal stays invisible for (default 0). */
  journalVisibilityLag?: number;
  /**
   * Virtual ms every new journal stays out of GET /journals, and a journalized line shows `none` in
   * GET /transactions, after the 201 (default 0: at once). By-id reads (GET /journals/{id}) see it at once.
   */
  listingLagMs?: number;
  /** Whether journalize keeps the request's tags (default 'kept'; unverified, mf-api.md §15). */
  tagsOnJournalize?: 'kept' | 'dropped';
  /** Whether POST /journals keeps the request's tags (default 'kept'). */
  tagsOnCreate?: 'kept' | 'dropped';
  /**
   * invoice_kind values a write takes (default 'document'; 'mcp' adds 70/50/30 as MF's MCP server declares;
   * 'ignored' takes those but stores the kind of a side sent without one).
   */
  invoiceKindsOnWrite?: 'document' | 'mcp' | 'ignored';
  /** NOT_TARGET with a taxable tax category (default 'refused', as reported). */
  notTargetOnTaxable?: 'refused' | 'accepted';
  /** invoice_kind on the credit side (default 'refused', as reported). */
  invoiceKindOnCredit?: 'refused' | 'accepted';
  /** The office's 課税形式 in GET /term_settings (default INDIVIDUAL_ALLOCATION). */
  taxMethod?: 'FREE' | 'SIMPLE' | 'PROPORTIONAL_ALLOCATION' | 'INDIVIDUAL_ALLOCATION';
  /** The answer to an office_code the API key cannot use (default 'invalid-query'; unpublished). */
  wrongOfficeCode?: WrongOfficeCode;
  /** Automatic 429s above this rate (off by default). */
  rateLimit?: RateLimit;
  /** Replaces the generated dataset. */
  dataset?: MfDataset;
  /** Statement lines in the generated dataset (default 300). */
  lineCount?: number;
  /** Adds the receivables book for 売掛金チェック (seed-receivables.ts; default off). */
  receivables?: boolean;
  /** Seed option: accounting periods up to this fiscal year (default 2026, to 2027-03-31). */
  lastFiscalYear?: number;
}

export interface RequestLogEntry {
  seq: number;
  /** The fake's clock when the request arrived. */
  time: number;
  method: string;
  /** Raw path, as sent. */
  path: string;
  /** Raw query string without `?`. */
  query: string;
  status: number;
  /** The injected fault that shaped the answer, or 'rate-limit'. */
  fault?: FaultKind | 'rate-limit';
}

/** A line to add with `addTransactions`: anything left out gets a sensible default. */
export type NewTransaction = Pick<Transaction, 'date' | 'value' | 'side'> &
  Partial<Omit<Transaction, 'date' | 'value' | 'side'>>;

/** One side of a journal added with `addJournal`, by names as a person picks them in MF's screen. */
export interface NewJournalSide {
  account: string;
  sub?: string | null;
  /** Tax-inclusive amount. */
  value: number;
  tax?: string | null;
  partnerCode?: string | null;
}

/** A journal someone else made (a person in MF, another app, MF itself): see `addJournal`. */
export interface NewJournal {
  date: string;
  debit: NewJournalSide;
  credit: NewJournalSide;
  remark?: string | null;
  memo?: string | null;
  tags?: string[];
  /** The statement line it was made from (the line becomes `registered`). */
  transactionId?: string | null;
  /** Default JOURNAL_TYPE_NORMAL (typed in MF's screen). */
  enteredBy?: EnteredBy;
  /** Default: the fake's clock. */
  createTime?: string;
}

/** Datasets are never mutated (the store works on a clone), so tests building many fakes share them. */
const datasets = new Map<string, MfDataset>();

function cachedDataset(
  seed: number,
  lineCount: number | undefined,
  receivables = false,
  lastFiscalYear?: number,
): MfDataset {
  const key = `${seed}:${lineCount ?? ''}:${receivables}:${lastFiscalYear ?? ''}`;
  let dataset = datasets.get(key);
  if (!dataset) {
    dataset = buildDataset(seed, { lineCount, receivables, ...(lastFiscalYear ? { lastFiscalYear } : {}) });
    datasets.set(key, dataset);
  }
  return dataset;
}

/** Separates runtime ids and tokens from the dataset's stream, so requests never shift seeded data. */
const RUNTIME_STREAM = 0x5eed_f00d;

export class FakeMf {
  readonly requestLog: RequestLogEntry[] = [];
  private readonly now: () => number;
  private readonly seed: number;
  private readonly dataset: MfDataset;
  private readonly settings: ApiSettings;
  private readonly apiKeys: Record<string, string>;
  private readonly oauthClients: Record<string, OAuthClient>;
  private readonly otherDataset: MfDataset | undefined;
  /** Every office's books by office code; `store` is the first office's. */
  private readonly stores = new Map<string, MfStore>();
  private readonly faults = new FaultInjector();
  private readonly rateLimit: RateLimit | undefined;
  private readonly limiter = new RateLimiter();
  private readonly visibilityLagMaxMs: number;
  private store!: MfStore;
  private auth!: AuthServer;
  private seq = 0;

  constructor(options: FakeMfOptions = {}) {
    this.now = options.now ?? Date.now;
    this.seed = options.seed ?? 1;
    this.visibilityLagMaxMs = options.visibilityLagMaxMs ?? Number.POSITIVE_INFINITY;
    this.dataset =
      options.dataset ??
      cachedDataset(this.seed, options.lineCount, options.receivables, options.lastFiscalYear);
    this.settings = {
      permissiveJournalize: options.permissiveJournalize ?? false,
      journalVisibilityLag: options.journalVisibilityLag ?? 0,
      appName: options.appName ?? DEFAULT_APP_NAME,
      secondJournalize: options.secondJournalize ?? 'generic',
      journalsPerPageMax: options.journalsPerPageMax ?? 10_000,
      transactionIdForm: options.transactionIdForm ?? 'as-listed',
      trialBalanceLeafRows: options.trialBalanceLeafRows ?? 'empty',
      tagsOnJournalize: options.tagsOnJournalize ?? 'kept',
      tagsOnCreate: options.tagsOnCreate ?? 'kept',
      listingLagMs: options.listingLagMs ?? 0,
      invoiceKindsOnWrite: options.invoiceKindsOnWrite ?? 'document',
      notTargetOnTaxable: options.notTargetOnTaxable ?? 'refused',
      invoiceKindOnCredit: options.invoiceKindOnCredit ?? 'refused',
      taxMethod: options.taxMethod ?? 'INDIVIDUAL_ALLOCATION',
      wrongOfficeCode: options.wrongOfficeCode ?? 'invalid-query',
    };
    this.otherDataset = options.otherOffice ? otherOfficeDataset(this.seed) : undefined;
    this.apiKeys = options.apiKeys ?? {
      [TEST_API_KEY]: TEST_OFFICE_CODE,
      ...(options.otherOffice ? { [TEST_API_KEY_OTHER]: OTHER_OFFICE_CODE } : {}),
    };
    this.oauthClients = options.oauthClients ?? {
      [TEST_CLIENT_ID]: { secret: TEST_CLIENT_SECRET, authMethod: 'client_secret_post' },
      [TEST_CLIENT_ID_BASIC]: { secret: TEST_CLIENT_SECRET_BASIC, authMethod: 'client_secret_basic' },
    };
    this.rateLimit = options.rateLimit;
    this.reset();
  }

  /** Back to the initial state: dataset restored, tokens, faults and log cleared, rate limit as constructed. */
  reset(): void {
    const random = new Random((this.seed ^ RUNTIME_STREAM) >>> 0);
    const ids = new IdFactory(random);
    this.store = new MfStore(this.dataset, ids);
    this.stores.clear();
    this.stores.set(this.store.office.code, this.store);
    if (this.otherDataset) {
      const other = new MfStore(this.otherDataset, ids);
      this.stores.set(other.office.code, other);
    }
    this.auth = new AuthServer({
      now: this.now,
      random,
      apiKeys: this.apiKeys,
      oauthClients: this.oauthClients,
      officeCode: this.store.office.code,
    });
    this.faults.clear();
    this.limiter.configure(this.rateLimit);
    this.requestLog.length = 0;
    this.seq = 0;
  }

  handle(req: HttpRequest): HttpResponse {
    const parsed = parseRequest(req);
    const time = this.now();
    const { response, fault } = this.dispatch(parsed, time);
    this.requestLog.push({
      seq: ++this.seq,
      time,
      method: parsed.method,
      path: parsed.path,
      query: parsed.rawQuery,
      status: response.status,
      ...(fault === undefined ? {} : { fault }),
    });
    return response;
  }

  private dispatch(
    req: ParsedRequest,
    time: number,
  ): { response: HttpResponse; fault?: RequestLogEntry['fault'] } {
    if (req.path.startsWith('/api/v3/')) {
      const limited = this.limiter.check(time);
      if (limited) return { response: limited, fault: 'rate-limit' };
    }
    const fault = this.faults.takeRequestFault(req);
    if (fault && !isAfterCommit(fault.kind)) return { response: faultResponse(fault), fault: fault.kind };
    const lag = this.faults.peekVisibilityLag(req);
    for (const store of this.stores.values()) store.createdInRequest = [];
    const response = this.route(req, time);
    for (const store of this.stores.values()) {
      const created = store.createdInRequest;
      if (lag && created.length > 0) {
        for (const id of created) store.hideFromListings(id, lag.lagReads, time + this.visibilityLagMaxMs);
        lag.consume();
      }
    }
    if (fault) return { response: faultResponse(fault), fault: fault.kind };
    return { response };
  }

  private route(req: ParsedRequest, time: number): HttpResponse {
    switch (req.path) {
      case '/auth/exchange':
        return this.auth.exchange(req);
      case '/authorize':
        return this.auth.authorize(req);
      case '/token':
        return this.auth.token(req);
    }
    if (req.path.startsWith('/api/v3/')) {
      return handleApi(req, {
        auth: this.auth,
        storeFor: (code) => this.stores.get(code),
        settings: this.settings,
        nowMs: time,
      });
    }
    return errorResponse(404, 'not_found', Messages.notFound);
  }

  // Faults and limits

  injectFault(spec: FaultSpec): FaultHandle {
    return this.faults.add(spec);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  pendingFaults(): FaultSpec[] {
    return this.faults.pending();
  }

  /** Turns the automatic limiter on (or off with undefined). */
  setRateLimit(limit: RateLimit | undefined): void {
    this.limiter.configure(limit);
  }

  clearRequestLog(): void {
    this.requestLog.length = 0;
  }

  // Inspection, for tests

  /** Every journal, rendered as GET returns it, including ones still hidden from listings. */
  journals(): Journal[] {
    return this.store.journals().map((journal) => renderJournal(this.store, journal));
  }

  journalsByTag(tag: string): Journal[] {
    return this.journals().filter((journal) => journal.tags.includes(tag));
  }

  journalsForTransaction(transactionId: string): Journal[] {
    return this.journals().filter((journal) => journal.transaction_id === transactionId);
  }

  transactions(): Transaction[] {
    return structuredClone(this.store.transactions());
  }

  transaction(id: string): Transaction | undefined {
    const tx = this.store.transaction(id);
    return tx && structuredClone(tx);
  }

  get office() {
    return structuredClone(this.store.office);
  }

  accounts(): Account[] {
    return structuredClone(this.store.accounts);
  }

  connectedAccounts(): ConnectedAccount[] {
    return structuredClone(this.store.connectedAccounts);
  }

  findAccount(name: string): Account {
    const account = this.store.accounts.find((candidate) => candidate.name === name);
    if (!account) throw new Error(`FakeMf: no account named ${name}`);
    return structuredClone(account);
  }

  findTax(name: string): Tax {
    const tax = this.store.taxes.find((candidate) => candidate.name === name);
    if (!tax) throw new Error(`FakeMf: no tax named ${name}`);
    return structuredClone(tax);
  }

  findConnectedAccount(name: string): ConnectedAccount {
    const service = this.store.connectedAccounts.find((candidate) => candidate.name === name);
    if (!service) throw new Error(`FakeMf: no connected account named ${name}`);
    return structuredClone(service);
  }

  /** The office an OAuth user picks on the next consent screen (default: the first office). */
  setConsentOffice(officeCode: string): void {
    if (!this.stores.has(officeCode)) throw new Error(`FakeMf: no office ${officeCode}`);
    this.auth.consentOffice = officeCode;
  }

  /** Every journal of one office (the first office's are `journals()`). */
  journalsOf(officeCode: string): Journal[] {
    const store = this.stores.get(officeCode);
    if (!store) throw new Error(`FakeMf: no office ${officeCode}`);
    return store.journals().map((journal) => renderJournal(store, journal));
  }

  /** The registered client authentication method of an OAuth app. */
  clientAuthMethod(clientId: string): ClientAuthMethod | undefined {
    return this.oauthClients[clientId]?.authMethod;
  }

  /** A valid access token without going through /auth/exchange or /token. */
  issueAccessToken(mode: AuthMode = 'apiKey'): string {
    return this.auth.issueAccessToken(mode);
  }

  /** Adds statement lines as a bank sync would. Defaults: first service (and its first sub-account), `none`. */
  addTransactions(lines: readonly NewTransaction[]): Transaction[] {
    const defaultService = this.store.connectedAccounts[0];
    return lines.map((line) => {
      const serviceId = line.connected_account_id ?? defaultService?.id;
      const service = serviceId === undefined ? undefined : this.store.connectedAccount(serviceId);
      if (!service) throw new Error(`FakeMf.addTransactions: unknown connected account ${serviceId}`);
      const subId =
        line.connected_sub_account_id !== undefined
          ? line.connected_sub_account_id
          : line.connected_account_id === undefined
            ? (service.connected_sub_accounts[0]?.id ?? null)
            : null;
      if (subId !== null && !service.connected_sub_accounts.some((sub) => sub.id === subId)) {
        throw new Error(`FakeMf.addTransactions: ${subId} is not a sub-account of ${service.name}`);
      }
      if (line.id !== undefined && this.store.transaction(line.id)) {
        throw new Error(`FakeMf.addTransactions: duplicate id ${line.id}`);
      }
      const tx: Transaction = {
        id: line.id ?? this.store.ids.next(),
        date: line.date,
        value: line.value,
        side: line.side,
        content: line.content ?? null,
        memo: line.memo ?? null,
        journalizing_status: line.journalizing_status ?? 'none',
        connected_account_id: service.id,
        connected_sub_account_id: subId,
        voucher_file_ids: line.voucher_file_ids ?? [],
      };
      this.store.putTransaction(tx);
      return structuredClone(tx);
    });
  }

  /**
   * Adds a journal as someone other than kicho would make it: a person typing it in MF (NORMAL), MF's own
   * journalizing of a line (DATA_LINKAGE), another app over the API (EXTERNAL). For tests and the demo.
   */
  addJournal(spec: NewJournal): Journal {
    const period = this.store.periodContaining(spec.date);
    if (!period) throw new Error(`FakeMf.addJournal: ${spec.date} is outside every accounting period`);
    const side = (s: NewJournalSide): StoredSide => {
      const account = this.findAccount(s.account);
      const sub = s.sub ? account.sub_accounts.find((x) => x.name === s.sub) : undefined;
      if (s.sub && !sub) throw new Error(`FakeMf.addJournal: no sub-account ${s.account}/${s.sub}`);
      return {
        account_id: account.id,
        sub_account_id: sub?.id ?? null,
        tax_id: s.tax ? this.findTax(s.tax).id : null,
        department_id: null,
        trade_partner_code: s.partnerCode ?? null,
        invoice_kind: 'INVOICE_KIND_NONE',
        value: s.value,
      };
    };
    const stamp = spec.createTime ?? formatTimestamp(this.now());
    const record: JournalRecord = {
      id: this.store.ids.next(),
      number: this.store.nextJournalNumber(period.fiscal_year),
      term_period: period.fiscal_year,
      transaction_date: spec.date,
      is_realized: true,
      journal_type: 'journal_entry',
      entered_by: spec.enteredBy ?? 'JOURNAL_TYPE_NORMAL',
      create_time: stamp,
      update_time: stamp,
      branches: [{ remark: spec.remark ?? null, debitor: side(spec.debit), creditor: side(spec.credit) }],
      tags: spec.tags ?? [],
      memo: spec.memo ?? null,
      voucher_file_ids: [],
      transaction_id: spec.transactionId ?? null,
    };
    if (record.transaction_id !== null) {
      const tx = this.store.transaction(record.transaction_id);
      if (!tx) throw new Error(`FakeMf.addJournal: unknown transaction ${record.transaction_id}`);
      tx.journalizing_status = 'registered';
    }
    this.store.insertJournal(record, 0);
    return renderJournal(this.store, record);
  }

  /**
   * Someone deletes a journal in MF's screen (the simulation's people, issue 25): modelled as DELETE
   * /journals/{id} does it (journals.ts: the line it was made from goes to `excluded`, [O S3]); the screen's
   * own behaviour is not documented. False when there is no such journal.
   */
  deleteJournalByHand(id: string): boolean {
    const journal = this.store.journal(id);
    if (!journal) return false;
    this.store.removeJournal(id);
    if (journal.transaction_id !== null) {
      const tx = this.store.transaction(journal.transaction_id);
      if (tx) tx.journalizing_status = 'excluded';
    }
    return true;
  }

  /** Changes a line as a later sync or a person in the MF UI would (e.g. to `modified` or `excluded`). */
  updateTransaction(id: string, patch: Partial<Omit<Transaction, 'id'>>): Transaction {
    const tx = this.store.transaction(id);
    if (!tx) throw new Error(`FakeMf.updateTransaction: unknown id ${id}`);
    Object.assign(tx, patch);
    return structuredClone(tx);
  }
}
