// The books of the one office the fake serves: masters, statement lines and journals. Handlers read and
// write through this class so that invariants (unique ids, journal numbering, listing lag) hold in one place.

import type { IdFactory } from './ids';
import type {
  Account,
  AccountingPeriod,
  ConnectedAccount,
  ConnectedSubAccount,
  Department,
  JournalRecord,
  MfDataset,
  Office,
  SubAccount,
  Tax,
  TermSetting,
  TradePartner,
  Transaction,
} from './types';

export class MfStore {
  readonly office: Office;
  readonly termSettings: TermSetting[];
  readonly accounts: Account[];
  readonly taxes: Tax[];
  readonly departments: Department[];
  readonly tradePartners: TradePartner[];
  readonly connectedAccounts: ConnectedAccount[];
  private readonly transactionsById = new Map<string, Transaction>();
  private readonly journalsById = new Map<string, JournalRecord>();
  /** Journal id → listing calls it stays hidden from (simulates "created, not yet visible"). */
  private readonly hiddenReads = new Map<string, number>();
  /** Journal id → the virtual time the visibility-lag fault stops hiding it however few listings came. */
  private readonly hiddenUntil = new Map<string, number>();
  /** Ids of journals created while handling the current request (for the visibility-lag fault). */
  createdInRequest: string[] = [];
  /** Journal id → the virtual time it first shows in listings (the listingLagMs switch). */
  private readonly listedFrom = new Map<string, number>();
  /** Line id → the virtual time its new journalizing status first shows in GET /transactions. */
  private readonly statusFrom = new Map<string, number>();

  constructor(
    dataset: MfDataset,
    readonly ids: IdFactory,
  ) {
    const data = structuredClone(dataset);
    this.office = data.office;
    this.termSettings = data.termSettings;
    this.accounts = data.accounts;
    this.taxes = data.taxes;
    this.departments = data.departments;
    this.tradePartners = data.tradePartners;
    this.connectedAccounts = data.connectedAccounts;
    for (const tx of data.transactions) this.putTransaction(tx);
    for (const journal of data.journals) this.putJournal(journal);
    for (const id of this.allMasterIds()) ids.reserve(id);
  }

  private *allMasterIds(): Iterable<string> {
    yield this.office.id;
    for (const account of this.accounts) {
      yield account.id;
      for (const sub of account.sub_accounts) yield sub.id;
    }
    for (const list of [this.taxes, this.departments]) for (const item of list) yield item.id;
    for (const service of this.connectedAccounts) {
      yield service.id;
      for (const sub of service.connected_sub_accounts) yield sub.id;
    }
  }

  // Masters

  account(id: string): Account | undefined {
    return this.accounts.find((account) => account.id === id);
  }

  subAccount(id: string): SubAccount | undefined {
    for (const account of this.accounts) {
      const sub = account.sub_accounts.find((candidate) => candidate.id === id);
      if (sub) return sub;
    }
    return undefined;
  }

  tax(id: string): Tax | undefined {
    return this.taxes.find((tax) => tax.id === id);
  }

  department(id: string): Department | undefined {
    return this.departments.find((department) => department.id === id);
  }

  tradePartner(code: string): TradePartner | undefined {
    return this.tradePartners.find((partner) => partner.code === code);
  }

  connectedAccount(id: string): ConnectedAccount | undefined {
    return this.connectedAccounts.find((service) => service.id === id);
  }

  connectedSubAccount(id: string): ConnectedSubAccount | undefined {
    for (const service of this.connectedAccounts) {
      const sub = service.connected_sub_accounts.find((candidate) => candidate.id === id);
      if (sub) return sub;
    }
    return undefined;
  }

  periodContaining(date: string): AccountingPeriod | undefined {
    return this.office.accounting_periods.find((p) => p.start_date <= date && date <= p.end_date);
  }

  // Statement lines

  transactions(): Transaction[] {
    return [...this.transactionsById.values()];
  }

  transaction(id: string): Transaction | undefined {
    return this.transactionsById.get(id);
  }

  putTransaction(tx: Transaction): void {
    this.ids.reserve(tx.id);
    this.transactionsById.set(tx.id, tx);
  }

  // Journals

  journals(): JournalRecord[] {
    return [...this.journalsById.values()];
  }

  journal(id: string): JournalRecord | undefined {
    return this.journalsById.get(id);
  }

  /** Journal numbers run per term, as in MF's 仕訳帳. */
  nextJournalNumber(termPeriod: number): number {
    let max = 0;
    for (const journal of this.journalsById.values()) {
      if (journal.term_period === termPeriod) max = Math.max(max, journal.number);
    }
    return max + 1;
  }

  insertJournal(journal: JournalRecord, hiddenForListings: number): void {
    this.putJournal(journal);
    if (hiddenForListings > 0) this.hiddenReads.set(journal.id, hiddenForListings);
    this.createdInRequest.push(journal.id);
  }

  replaceJournal(journal: JournalRecord): void {
    this.journalsById.set(journal.id, journal);
  }

  removeJournal(id: string): void {
    this.journalsById.delete(id);
    this.hiddenReads.delete(id);
    this.hiddenUntil.delete(id);
    this.listedFrom.delete(id);
  }

  /**
   * Eventual consistency in time: the journal stays out of listings until `until`, and the line it was
   * made from (if any) lists as `none` until then.
   */
  lagInListings(journal: JournalRecord, until: number): void {
    this.listedFrom.set(journal.id, until);
    if (journal.transaction_id !== null) this.statusFrom.set(journal.transaction_id, until);
  }

  /** Whether a listing at `now` shows the journal (neither listing lag hides it). */
  isListedAt(id: string, now: number): boolean {
    const from = this.listedFrom.get(id);
    if (from !== undefined && from > now) return false;
    const until = this.hiddenUntil.get(id);
    if (until !== undefined && until <= now) {
      this.hiddenReads.delete(id);
      this.hiddenUntil.delete(id);
    }
    return this.isListed(id);
  }

  /** The journalizing status a listing at `now` shows for a line (its journal may still be lagging). */
  listedStatus(tx: Transaction, now: number): Transaction['journalizing_status'] {
    const from = this.statusFrom.get(tx.id);
    return from !== undefined && from > now ? 'none' : tx.journalizing_status;
  }

  /** The visibility-lag fault: hidden for `listingCalls` listings, and never past `until` (virtual ms). */
  hideFromListings(id: string, listingCalls: number, until = Number.POSITIVE_INFINITY): void {
    this.hiddenReads.set(id, Math.max(this.hiddenReads.get(id) ?? 0, listingCalls));
    if (Number.isFinite(until)) this.hiddenUntil.set(id, Math.max(this.hiddenUntil.get(id) ?? 0, until));
  }

  isListed(id: string): boolean {
    return !this.hiddenReads.has(id);
  }

  /** Called after each successful GET /journals: hidden journals come one listing closer to showing. */
  countListing(): void {
    for (const [id, remaining] of this.hiddenReads) {
      if (remaining <= 1) {
        this.hiddenReads.delete(id);
        this.hiddenUntil.delete(id);
      } else this.hiddenReads.set(id, remaining - 1);
    }
  }

  private putJournal(journal: JournalRecord): void {
    this.ids.reserve(journal.id);
    this.journalsById.set(journal.id, journal);
  }
}
