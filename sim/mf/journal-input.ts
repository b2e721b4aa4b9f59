// Validation of journal request bodies (POST/PUT /journals, and the counter side of journalize).
// Ids in a JSON body are compared exactly as stored; a URL-decoded id is invalid_request_body_value.

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
export function readSideRefs(store: MfStore, body: Json, prefix: string, value: number): StoredSide {
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
  const invoiceKind = body.invoice_kind ?? null;
  if (invoiceKind !== null && !(WRITABLE_INVOICE_KINDS as readonly unknown[]).includes(invoiceKind)) {
    throw invalidBody(`${prefix}invoice_kind must be one of: ${WRITABLE_INVOICE_KINDS.join(', ')}.`);
  }
  return {
    account_id: accountId,
    sub_account_id: subAccountId,
    tax_id: taxId,
    department_id: departmentId,
    trade_partner_code: partnerCode,
    invoice_kind: (invoiceKind as InvoiceKind | null) ?? 'INVOICE_KIND_NONE',
    value,
  };
}

function readSide(store: MfStore, raw: unknown, path: string): StoredSide {
  const body = requireObject(raw, path);
  if (body.value === undefined || body.value === null) throw missingKey(`${path}.value`);
  const value = body.value;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidBody(`${path}.value must be a non-negative integer (tax-inclusive yen).`);
  }
  return readSideRefs(store, body, `${path}.`, value);
}

function readBranch(store: MfStore, raw: unknown, path: string): StoredBranch {
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
  const debitor = readSide(store, body.debitor, `${path}.debitor`);
  const creditor = readSide(store, body.creditor, `${path}.creditor`);
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
export function readJournalBody(store: MfStore, body: unknown): JournalFields {
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
  const branches = rawBranches.map((branch, i) => readBranch(store, branch, `journal.branches[${i}]`));
  return {
    transaction_date: period.date,
    term_period: period.fiscal_year,
    journal_type: journalType as JournalType,
    branches,
    memo,
    tags,
  };
}
