// Wire and domain types of the fake MF Cloud Accounting API v3 (see /work/shared/reference/mf-api.md).
// Field names follow the API (snake_case) so fixtures can be compared with real responses.

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

// fault: the emulator's UrlFetchApp turns 'timeout' into `Exception: Timeout: <url>` and 'unreachable'
// into `Address unavailable: <url>`
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  fault?: 'timeout' | 'unreachable';
}

export interface ApiErrorItem {
  code: string;
  message: string;
}

export interface ErrorBody {
  errors: ApiErrorItem[];
}

export type Side = 'INCOME' | 'EXPENSE';
export type JournalizingStatus = 'none' | 'registered' | 'excluded' | 'modified' | 'new_voucher_attached';
export type JournalType = 'journal_entry' | 'adjusting_entry';
export type EnteredBy =
  | 'JOURNAL_TYPE_EXTERNAL'
  | 'JOURNAL_TYPE_NORMAL'
  | 'JOURNAL_TYPE_OPENING'
  | 'JOURNAL_TYPE_DATA_LINKAGE'
  | 'JOURNAL_TYPE_IMPORT';
export type InvoiceKind =
  | 'INVOICE_KIND_NONE'
  | 'INVOICE_KIND_NOT_TARGET'
  | 'INVOICE_KIND_QUALIFIED'
  | 'INVOICE_KIND_UNQUALIFIED_80'
  // Not in the document's read enum: written where MF takes them (invoiceKindsOnWrite 'mcp', issue 27).
  | 'INVOICE_KIND_UNQUALIFIED_70'
  | 'INVOICE_KIND_UNQUALIFIED_50'
  | 'INVOICE_KIND_UNQUALIFIED_30'
  | 'INVOICE_KIND_UNQUALIFIED';
export type AccountGroup = 'NONE' | 'ASSET' | 'LIABILITY' | 'CAPITAL' | 'REVENUE' | 'EXPENSE';
export type FinancialStatementType =
  | 'BALANCE_SHEET'
  | 'PROFIT_LOSS'
  | 'COST_REPORT'
  | 'REAL_ESTATE'
  | 'UNKNOWN';
export type AccountingMethod = 'TAX_INCLUDED' | 'TAX_EXCLUDED_SEPARATE' | 'TAX_EXCLUDED_INCLUDED';

export interface AccountingPeriod {
  start_date: string;
  end_date: string;
  fiscal_year: number;
}

export interface Office {
  id: string;
  name: string;
  code: string;
  type: 'INDIVIDUAL' | 'CORPORATE';
  is_manufacturing: boolean;
  /** Newest first, as MF returns them. */
  accounting_periods: AccountingPeriod[];
}

/** What GET /accessible_offices lists for an API key (shape not in the spec we read: [I]). */
export interface AccessibleOffice {
  code: string;
  name: string;
  type: Office['type'];
}

export interface TermSetting {
  fiscal_year: number;
  start_date: string;
  end_date: string;
  accounting_method: AccountingMethod;
  tax_method: 'FREE' | 'SIMPLE' | 'PROPORTIONAL_ALLOCATION' | 'INDIVIDUAL_ALLOCATION';
  sales_rounding_method: 'ROUND_DOWN' | 'ROUND_OFF' | 'ROUND_UP';
  purchases_rounding_method: 'ROUND_DOWN' | 'ROUND_OFF' | 'ROUND_UP';
  prefecture: string;
  business_types: string[];
}

export interface SubAccount {
  id: string;
  account_id: string;
  name: string;
  search_key: string | null;
  tax_id: string;
}

export interface Account {
  id: string;
  name: string;
  available: boolean;
  tax_id: string;
  search_key: string | null;
  account_group: AccountGroup;
  category: string;
  financial_statement_type: FinancialStatementType;
  sub_accounts: SubAccount[];
}

export interface Tax {
  id: string;
  /** Long form, echoed in journals as tax_long_name. */
  name: string;
  /** Short form, echoed in journals as tax_name. */
  abbreviation: string;
  tax_rate: number | null;
  search_key: string | null;
  available: boolean;
}

export interface Department {
  id: string;
  name: string;
  parent_id: string | null;
  search_key: string | null;
}

/** Has no id: journals reference a trade partner by code. */
export interface TradePartner {
  code: string;
  name: string;
  available: boolean;
  invoice_registration_number: string | null;
  corporate_number: string | null;
  search_key: string | null;
}

export interface ConnectedSubAccount {
  id: string;
  name: string;
  account_id: string;
  sub_account_id: string | null;
}

export interface ConnectedAccount {
  id: string;
  name: string;
  is_manual: boolean;
  /** Set only when connected_sub_accounts is empty. */
  account_id: string | null;
  sub_account_id: string | null;
  connected_sub_accounts: ConnectedSubAccount[];
}

/** A statement line (明細). */
export interface Transaction {
  id: string;
  date: string;
  value: number;
  side: Side;
  content: string | null;
  memo: string | null;
  journalizing_status: JournalizingStatus;
  connected_account_id: string;
  connected_sub_account_id: string | null;
  voucher_file_ids: string[];
}

export interface PageMetadata {
  total_count: number;
  total_pages: number;
}

/** One side of a journal branch as GET returns it: value excludes tax, tax_value holds it. */
export interface JournalSide {
  account_id: string;
  account_name: string;
  sub_account_id: string | null;
  sub_account_name: string | null;
  tax_id: string | null;
  tax_name: string | null;
  tax_long_name: string | null;
  value: number;
  tax_value: number;
  department_id: string | null;
  department_name: string | null;
  trade_partner_code: string | null;
  trade_partner_name: string | null;
  invoice_kind: InvoiceKind;
}

export interface Branch {
  remark: string | null;
  debitor: JournalSide;
  creditor: JournalSide;
}

export interface Journal {
  id: string;
  number: number;
  term_period: number;
  transaction_date: string;
  is_realized: boolean;
  journal_type: JournalType;
  entered_by: EnteredBy;
  create_time: string;
  update_time: string;
  branches: Branch[];
  tags: string[];
  memo: string | null;
  voucher_file_ids: string[];
  transaction_id: string | null;
}

/** One side as a request sends it: value is the tax-inclusive amount. */
export interface JournalSideInput {
  account_id: string;
  value: number;
  sub_account_id?: string | null;
  tax_id?: string | null;
  department_id?: string | null;
  trade_partner_code?: string | null;
  invoice_kind?: InvoiceKind | null;
}

export interface BranchInput {
  remark?: string | null;
  debitor?: JournalSideInput;
  creditor?: JournalSideInput;
}

/** Body of POST /journals and PUT /journals/{id}, inside the `journal` wrapper. */
export interface JournalInput {
  transaction_date: string;
  journal_type: JournalType;
  branches: BranchInput[];
  memo?: string | null;
  tags?: string[];
}

/** Flat body of POST /transactions/journalize. */
export interface JournalizeInput {
  transaction_id: string;
  account_id: string;
  sub_account_id?: string | null;
  tax_id?: string | null;
  department_id?: string | null;
  trade_partner_code?: string | null;
  invoice_kind?: InvoiceKind | null;
  transaction_date?: string;
  remark?: string | null;
  memo?: string | null;
  tags?: string[];
}

/** How the fake stores a side: gross (tax-inclusive) value, every optional reference resolved. */
export interface StoredSide {
  account_id: string;
  sub_account_id: string | null;
  tax_id: string | null;
  department_id: string | null;
  trade_partner_code: string | null;
  invoice_kind: InvoiceKind;
  value: number;
}

export interface StoredBranch {
  remark: string | null;
  debitor: StoredSide;
  creditor: StoredSide;
}

/** A journal as the fake keeps it; rendered into `Journal` (names, tax split) on the way out. */
export interface JournalRecord {
  id: string;
  number: number;
  term_period: number;
  transaction_date: string;
  is_realized: boolean;
  journal_type: JournalType;
  entered_by: EnteredBy;
  create_time: string;
  update_time: string;
  branches: StoredBranch[];
  tags: string[];
  memo: string | null;
  voucher_file_ids: string[];
  transaction_id: string | null;
}

/** Everything one office holds; `buildDataset` in seed.ts makes a realistic one. */
export interface MfDataset {
  office: Office;
  termSettings: TermSetting[];
  accounts: Account[];
  taxes: Tax[];
  departments: Department[];
  tradePartners: TradePartner[];
  connectedAccounts: ConnectedAccount[];
  transactions: Transaction[];
  journals: JournalRecord[];
}
