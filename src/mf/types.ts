/**
 * MF Cloud Accounting API v3 shapes as kicho uses them (reference/mf-api.md). Ids are opaque strings
 * that are already percent-encoded: stored, compared and sent exactly as received.
 */
export type MfId = string & { readonly __mfId?: never };

export type Side = 'INCOME' | 'EXPENSE';
export type JournalizingStatus = 'none' | 'registered' | 'excluded' | 'modified' | 'new_voucher_attached';

export interface MfTransaction {
  id: MfId;
  date: string;
  value: number;
  side: Side;
  content: string | null;
  memo: string | null;
  journalizing_status: JournalizingStatus;
  connected_account_id: MfId;
  connected_sub_account_id: MfId | null;
}

export interface MfSubAccount {
  id: MfId;
  account_id: MfId;
  name: string;
  tax_id?: MfId | null;
}

export interface MfAccount {
  id: MfId;
  name: string;
  available: boolean;
  tax_id: MfId | null;
  /** ASSET, LIABILITY, CAPITAL, REVENUE, EXPENSE or NONE (the document's AccountGroups). */
  account_group?: string;
  sub_accounts: MfSubAccount[];
}

export interface MfTax {
  id: MfId;
  name: string;
  abbreviation?: string | null;
  available: boolean;
}

export interface MfTradePartner {
  code: string;
  name: string;
  available: boolean;
  search_key?: string | null;
  /** T + 13 digits when the partner is a registered invoice issuer (the document's TradePartner). */
  invoice_registration_number?: string | null;
}

/** GET /term_settings: one fiscal year's settings (the document's TermSetting). */
export interface MfTermSetting {
  start_date: string;
  end_date: string;
  fiscal_year: number;
  /** FREE (免税事業者), SIMPLE (簡易課税), PROPORTIONAL_ALLOCATION, INDIVIDUAL_ALLOCATION. */
  tax_method: string;
}

export interface MfConnectedAccount {
  id: MfId;
  name: string;
  is_manual?: boolean;
  account_id: MfId | null;
  sub_account_id: MfId | null;
  connected_sub_accounts: { id: MfId; name: string; account_id: MfId | null; sub_account_id: MfId | null }[];
}

export interface MfAccountingPeriod {
  start_date: string;
  end_date: string;
  fiscal_year: number;
}

export interface MfOffice {
  name: string;
  code: string;
  accounting_periods: MfAccountingPeriod[];
}

export interface MfJournalSide {
  account_id: MfId;
  account_name?: string;
  sub_account_id?: MfId | null;
  sub_account_name?: string | null;
  tax_id?: MfId | null;
  trade_partner_code?: string | null;
  trade_partner_name?: string | null;
  value: number;
  tax_value?: number;
  /**
   * インボイス区分. Read as text: MF may answer values its document does not list (UNQUALIFIED_70 …), and
   * no read of kicho decides anything on it.
   */
  invoice_kind?: string | null;
}

/** How a journal came to be (the document's EnteredBy enum); only some values matter to kicho. */
export type MfEnteredBy = string;

export interface MfJournal {
  id: MfId;
  /** 仕訳番号, per term. */
  number?: number;
  transaction_date: string;
  transaction_id: MfId | null;
  tags: string[];
  memo: string | null;
  /** e.g. JOURNAL_TYPE_EXTERNAL (API), JOURNAL_TYPE_NORMAL (typed in MF), JOURNAL_TYPE_OPENING. */
  entered_by?: MfEnteredBy;
  journal_type?: string;
  is_realized?: boolean;
  create_time?: string;
  branches: { remark?: string | null; debitor?: MfJournalSide | null; creditor?: MfJournalSide | null }[];
}

/** One row of a trial balance (the document's TBRow): a total, an account or a sub-account. */
export interface MfTrialBalanceRow {
  name: string;
  /** assets, liabilities, net_assets, liabilities_net_assets, financial_statement_item, account, sub_account. */
  type: string;
  /** In the order of `columns`; null when MF cannot compute one (ratio with a zero denominator). */
  values: (number | null)[];
  rows: MfTrialBalanceRow[] | null;
}

/** GET /reports/trial_balance_bs (the document's TBResponse). */
export interface MfTrialBalance {
  columns: string[];
  start_date: string;
  end_date: string;
  rows: MfTrialBalanceRow[];
}

/** Body of POST /api/v3/transactions/journalize (flat, no wrapper). */
export interface JournalizeRequest {
  transaction_id: MfId;
  account_id: MfId;
  sub_account_id?: MfId | null;
  tax_id?: MfId | null;
  trade_partner_code?: string | null;
  /** Only for a purchase whose 区分 matters (core/invoice.ts); never on a 入金 (it is MF's credit side). */
  invoice_kind?: string;
  transaction_date?: string;
  remark?: string;
  tags: string[];
}

/** Body of POST /api/v3/journals: `{ journal: … }`, one balanced branch for a CSV line. */
export interface CreateJournalRequest {
  journal: {
    transaction_date: string;
    journal_type: 'journal_entry';
    tags: string[];
    memo?: string;
    branches: { remark?: string; debitor: MfJournalSide; creditor: MfJournalSide }[];
  };
}

/**
 * What became of one write sent once (DESIGN §5 step 4; writes.ts): `Done` when MF's answer says it was
 * done, a refusal MF answered (rejected, rate-limited, unauthorized — also when nothing could be sent),
 * or `unknown`: it may or may not have been done, so it is looked up, never blindly sent again.
 */
export type ExchangeOutcome<Done extends { kind: string }> =
  | Done
  /** A 4xx other than 401/429. `explanation` is Japanese with MF's code in brackets (messages.ts). */
  | { kind: 'rejected'; status: number; code: string; message: string; explanation: string }
  | { kind: 'rate-limited'; retryAfterMs: number | null }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'unknown'; reason: string };

/** One create call (POST /transactions/journalize, POST /journals). */
export type SendOutcome = ExchangeOutcome<
  /**
   * `invoiceKinds`: the invoice_kind of each side of the journal as MF's answer shows it stored (issue 27),
   * when the answer carries branches.
   */
  { kind: 'created'; journalId: MfId; invoiceKinds?: string[] }
>;

/** One DELETE /journals/{id}; an `unknown` one is looked up with GET /journals/{id}. */
export type DeleteOutcome = ExchangeOutcome<
  | { kind: 'deleted' }
  /** MF says no journal has this id (400 invalid_request_path_parameter): it is already gone. */
  | { kind: 'absent' }
>;
