// Validation of journal request bodies (POST/PUT /journals, and the counter side of journalize).
// Ids in a JSON body are compared exactly as stored; a URL-decoded id is invalid_request_body_value.

import type { ApiSettings } from './context';
import { isIsoDate } from './dates';
import { type ApiError, badRequest, Messages } from './errors';
import { looksDecoded } from './ids';
import type { MfStore } from './store';
import type { AccountingPeriod, InvoiceKind, JournalType, StoredBranch, StoredSide } from './types';

export const MAX_BRANCHES = 300;
export const MAX_MEMO = 200;
export const MAX_REMARK = 200;
export const MAX_TAG = 20;
const JOURNAL_TYPES: readonly JournalType[] = ['journal_entry', 'adjusting_entry'];
/** Reads can return more kinds; these are the ones MF accepts on write [D]. */
const WRITABLE_INVOICE_KINDS: readonly InvoiceKind[] = [
  'INVOICE_KIND_NOT_TARGET',
  'INVOICE_KIND_QUALIFIED',
  'INVOICE_KIND_UNQUALIFIED_80',
];
/**
 * What MF's own MCP server declares for writes (totto2727-org/open-connector
 * src/providers/moneyforward_mcp/actions.ts): the 令和8年度 steps too [O].
 */
const MCP_INVOICE_KINDS: readonly InvoiceKind[] = [
  ...WRITABLE_INVOICE_KINDS,
  'INVOICE_KIND_UNQUALIFIED_70',
  'INVOICE_KIND_UNQUALIFIED_50',
  'INVOICE_KIND_UNQUALIFIED_30',
  'INVOICE_KIND_UNQUALIFIED',
];

/** The reported text of MF's refusal of an invoice_kind (a receipt app's live field table, 2026-05-23) [O]. */
export const INVOICE_KIND_REFUSED = Messages.invoiceKindRefused;

/** How the fake treats invoice_kind on a write (issue 27 switches; context.ts). */
export type InvoiceRules = Pick<
  ApiSettings,
  'invoiceKindsOnWrite' | 'notTargetOnTaxable' | 'invoiceKindOnCredit'
>;

export const DOCUMENT_INVOICE_RULES: InvoiceRules = {
  invoiceKindsOnWrite: 'document',
  notTargetOnTaxable: 'refused',
  invoiceKindOnCredit: 'refused',
};

type Json = Record<string, unknown>;

export function invalidBody(message: string): ApiError {
  return badRequest('invalid_request_body_value', message);
}

function missingKey(path: string): ApiError {
  return badRequest('missing_required_request_body_key', `${path} is required.`);
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, path: string): Json {
  if (value === undefined) throw missingKey(path);
  if (!isObject(value)) throw invalidBody(`${path} must be an object.`);
  return value;
}

/** An optional id: absent or null means "not given". */
export function optionalId(
  body: Json,
  key: string,
  path: string,
  exists: (id: string) => boolean,
): string | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidBody(`${path} must be a string.`);
  if (!exists(value)) {
    throw invalidBody(
      looksDecoded(value)
        ? `${path} is not a valid id: send the id exactly as returned, without decoding it.`
        : `The given ${path} does not exist for this office.`,
    );
  }
  return value;
}

export function requiredId(body: Json, key: string, path: string, exists: (id: string) => boolean): string {
  if (body[key] === undefined || body[key] === null) throw missingKey(path);
  return optionalId(body, key, path, exists) as string;
}

export function optionalText(
  body: Json,
  key: string,
  path: string,
  max: number,
  tooLong: string,
): string | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidBody(`${path} must be a string.`);
  if ([...value].length > max) throw invalidBody(tooLong);
  return value;
}

export function readTags(body: Json, path: string): string[] {
  const value = body.tags;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((tag) => typeof tag === 'string')) {
    throw invalidBody(`${path} must be an array of strings.`);
  }
  if (value.some((tag) => [...tag].length > MAX_TAG)) throw invalidBody(Messages.tagTooLong);
  return [...value];
}

/** A transaction_date inside one of the office's accounting periods. */
export function readDateInPeriod(
  store: MfStore,
  value: unknown,
  path: string,
): AccountingPeriod & { date: string } {
  if (!isIsoDate(value)) throw invalidBody(`${path} must be a YYYY-MM-DD date.`);
  const period = store.periodContaining(value);
  if (!period) throw invalidBody(Messages.outsidePeriod);
  return { ...period, date: value };
}

/**
 * Validates the references of one side and fills defaults: the tax defaults to the sub-account's or
 * the account's own tax, as MF does when tax_id is left out [O S6]. `prefix` names the side in messages
 * (`journal.branches[0].debitor.`, or '' for the flat journalize body).
 */
export function readSideRefs(
  store: MfStore,
  body: Json,
  prefix: string,
  value: number,
  position: 'debitor' | 'creditor' = 'debitor',
  rules: InvoiceRules = DOCUMENT_INVOICE_RULES,
): StoredSide {
  const accountId = requiredId(body, 'account_id', `${prefix}account_id`, (id) => !!store.account(id));
  const account = store.account(accountId);
  if (!account?.available) throw invalidBody(Messages.accountInactive);
  const subAccountId = optionalId(
    body,
    'sub_account_id',
    `${prefix}sub_account_id`,
    (id) => !!store.subAccount(id),
  );
  const subAccount = subAccountId === null ? undefined : store.subAccount(subAccountId);
  if (subAccount && subAccount.account_id !== accountId) {
    throw invalidBody(`${prefix}sub_account_id does not belong to ${prefix}account_id.`);
  }
  const taxId =
    optionalId(body, 'tax_id', `${prefix}tax_id`, (id) => !!store.tax(id)) ??
    subAccount?.tax_id ??
    account.tax_id;
  if (store.tax(taxId)?.available === false) throw invalidBody(Messages.taxUnavailable);
  const departmentId = optionalId(
    body,
    'department_id',
    `${prefix}department_id`,
    (id) => !!store.department(id),
  );
  const partnerCode = optionalId(body, 'trade_partner_code', `${prefix}trade_partner_code`, (code) => {
    return !!store.tradePartner(code);
  });
  return {
    account_id: accountId,
    sub_account_id: subAccountId,
    tax_id: taxId,
    department_id: departmentId,
    trade_partner_code: partnerCode,
    invoice_kind: readInvoiceKind(store, body, prefix, taxId, position, rules),
    value,
  };
}

/**
 * A side's invoice_kind. The value must be one the world's MF writes; the reported refusals (on the credit
 * side, NOT_TARGET with a taxable tax) answer 400 「インボイスは不正な値です」. Left out, MF records QUALIFIED
 * for a taxable purchase and NOT_TARGET otherwise, as a receipt app saw live (mf-api.md §16) [O]; which
 * tax is "taxable" the fake judges by its rate [I].
 */
function readInvoiceKind(
  store: MfStore,
  body: Json,
  prefix: string,
  taxId: string | null,
  position: 'debitor' | 'creditor',
  rules: InvoiceRules,
): InvoiceKind {
  const given = body.invoice_kind ?? null;
  const writable = rules.invoiceKindsOnWrite === 'mcp' ? MCP_INVOICE_KINDS : WRITABLE_INVOICE_KINDS;
  if (given !== null && !(writable as readonly unknown[]).includes(given)) {
    throw invalidBody(`${prefix}invoice_kind must be one of: ${writable.join(', ')}.`);
  }
  const tax = taxId === null ? undefined : store.tax(taxId);
  const taxable = (tax?.tax_rate ?? 0) > 0;
  const refused = () =>
    badRequest('invalid_request_body_value', INVOICE_KIND_REFUSED, 'invoice-kind-refusal-text');
  if (given !== null && position === 'creditor' && rules.invoiceKindOnCredit === 'refused') throw refused();
  if (given === 'INVOICE_KIND_NOT_TARGET' && taxable && rules.notTargetOnTaxable === 'refused')
    throw refused();
  if (given !== null) return given as InvoiceKind;
  return taxable && position === 'debitor' ? 'INVOICE_KIND_QUALIFIED' : 'INVOICE_KIND_NOT_TARGET';
}

function readSide(
  store: MfStore,
  raw: unknown,
  path: string,
  position: 'debitor' | 'creditor',
  rules: InvoiceRules,
): StoredSide {
  const body = requireObject(raw, path);
  if (body.value === undefined || body.value === null) throw missingKey(`${path}.value`);
  const value = body.value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidBody(`${path}.value must be a non-negative integer (tax-inclusive yen).`);
  }
  return readSideRefs(store, body, `${path}.`, value, position, rules);
}

function readBranch(store: MfStore, raw: unknown, path: string, rules: InvoiceRules): StoredBranch {
  const body = requireObject(raw, path);
  const remark = optionalText(body, 'remark', `${path}.remark`, MAX_REMARK, Messages.remarkTooLong);
  if (
    body.debitor === undefined ||
    body.debitor === null ||
    body.creditor === undefined ||
    body.creditor === null
  ) {
    throw invalidBody(Messages.creditorAndDebitor);
  }
  const debitor = readSide(store, body.debitor, `${path}.debitor`, 'debitor', rules);
  const creditor = readSide(store, body.creditor, `${path}.creditor`, 'creditor', rules);
  if (debitor.value !== creditor.value) throw invalidBody(Messages.branchUnbalanced);
  return { remark, debitor, creditor };
}

export interface JournalFields {
  transaction_date: string;
  term_period: number;
  journal_type: JournalType;
  branches: StoredBranch[];
  memo: string | null;
  tags: string[];
}

/** Reads the `{journal: {...}}` body of POST /journals and PUT /journals/{id}. */
export function readJournalBody(
  store: MfStore,
  body: unknown,
  rules: InvoiceRules = DOCUMENT_INVOICE_RULES,
): JournalFields {
  const root = requireObject(body, 'body');
  const journal = requireObject(root.journal, 'journal');
  for (const key of ['transaction_date', 'journal_type', 'branches']) {
    if (journal[key] === undefined || journal[key] === null) throw missingKey(`journal.${key}`);
  }
  const period = readDateInPeriod(store, journal.transaction_date, 'journal.transaction_date');
  const journalType = journal.journal_type;
  if (!(JOURNAL_TYPES as readonly unknown[]).includes(journalType)) {
    throw invalidBody(`journal.journal_type must be one of: ${JOURNAL_TYPES.join(', ')}.`);
  }
  const rawBranches = journal.branches;
  if (!Array.isArray(rawBranches)) throw invalidBody('journal.branches must be an array.');
  if (rawBranches.length < 1 || rawBranches.length > MAX_BRANCHES) throw invalidBody(Messages.branchCount);
  const memo = optionalText(journal, 'memo', 'journal.memo', MAX_MEMO, Messages.memoTooLong);
  const tags = readTags(journal, 'journal.tags');
  const branches = rawBranches.map((branch, i) => readBranch(store, branch, `journal.branches[${i}]`, rules));
  return {
    transaction_date: period.date,
    term_period: period.fiscal_year,
    journal_type: journalType as JournalType,
    branches,
    memo,
    tags,
  };
}
