// Error bodies and messages. Codes and the quoted messages come from mf-api.md §8 and MF's OpenAPI
// document [D]; messages marked [I] are our own explanations. What goes on the wire is the document's text
// (`wireMessage`): the document lists every message an error may carry, so an explanation of our own only
// travels in the `x-fake-mf-detail` header, for tests of the fake. A text the document does not list goes
// on the wire only as a named difference (differences.ts).

import type { ErrorBody, HttpResponse } from './types';

export const Messages = {
  /** MF's reported refusal of an invoice_kind (difference invoice-kind-refusal-text) [O]. */
  invoiceKindRefused: 'インボイスは不正な値です',
  noAuthorization: 'No authorization header.',
  tokenInvalid: 'Access token supplied is not active or it is invalid.',
  insufficientPermissions:
    'The office being accessed does not have sufficient permissions to execute this operation.',
  tooManyRequests: 'Operations per second is over the account limit.',
  internalError: 'The server encountered an internal error. Please retry the request.',
  idNotFound: 'The given id does not exist for this office.',
  eitherDate: 'Please specify either start_date or end_date.',
  outsidePeriod: 'Given date is outside the accounting period.',
  creditorAndDebitor: 'Please specify creditor and debitor.',
  memoTooLong: 'Please specify memo of 200 characters or less.',
  remarkTooLong: 'Please specify remark of 200 characters or less.', // [I]
  tagTooLong: 'Please specify tag of 20 characters or less.', // [I]
  accountInactive: 'The specified account is inactive.',
  taxUnavailable: 'The specified tax is not available.', // [I]
  branchUnbalanced: 'The debit and credit amounts of each branch must be equal.', // [I]
  branchCount: 'Please specify between 1 and 300 branches.', // [I]
  movedTerm: 'Journal cannot be moved to a different term.',
  pageTooLarge: 'The page parameter must not exceed the total_pages',
  transactionsPerPage: 'per_page must be between 10 and 500',
  journalsPerPage: 'per_page must be between 1 and 10000', // [I]
  /** The document's own text for the per_page limit of GET /journals [C: its maximum is 10000]. */
  journalsPerPage100: 'The per_page parameter must be within 1 and 100 (default is 10)',
  sideRequired: 'side is required when value_min or value_max is provided',
  dateSpan: 'The period between start_date and end_date must be 366 days or less.', // [I]
  dateOrder: 'start_date must be on or before end_date.', // [I]
  transactionIdsTooMany: 'transaction_ids must be 50 or fewer.', // [I]
  alreadyJournalized: 'The specified transaction has already been journalized.', // [I]
  transactionExcluded: 'The specified transaction is excluded from journalizing.', // [I]
  notManual: 'Transactions can only be created in a manual connected account.', // [I]
  unsupportedMediaType: 'The Content-Type of the request is not supported.',
  invalidJson: 'The request body is not valid JSON.', // [I]
  officeCodeRequired: 'office_code is required when using an API key.', // [I]
  officeCodeMismatch: 'The given office_code is not accessible with this API key.', // [I]
  noOffice: "The specified office isn't registered to Cloud Accounting.",
  noAccountingPeriod: "The specified office doesn't have any accounting period.",
  notFound: 'The requested path does not exist.', // [I]
  methodNotAllowed: 'The method is not allowed for this path.', // [I]
} as const;

/**
 * Thrown by handlers; the router turns it into an `{errors: [...]}` response. `message` is the fake's own
 * explanation; `verbatim` names the difference (differences.ts) under which it goes on the wire as is.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly verbatim?: string,
  ) {
    super(message);
  }
}

/** The document's Error400 messages, one per code (its enum pairs codes and texts freely). */
const GENERIC_400: Record<string, string> = {
  invalid_http_verb: 'The HTTP verb specified was not recognized by the server.',
  invalid_resource_name: 'The specified resource name contains invalid characters.',
  invalid_uri: 'The requested URI does not represent any resource on the server.',
  missing_required_header: 'A required HTTP header was not specified.',
  unsupported_header: 'One of the HTTP headers specified in the request is not supported.',
  invalid_input: 'One of the requests inputs is not valid. Target',
  invalid_query_parameter_value:
    'An invalid value was specified for one of the query parameters in the request URI. Target',
  missing_required_query_parameter: 'A required parameter was not specified for this request. Target',
  unsupported_query_parameter:
    'One of the query parameters specified in the request URI is not supported. Target',
  redundant_query_parameter: 'The following parameters cannot be provided simultaneously. Target',
  invalid_request_body_value: 'The specified value for one of the request body keys is not valid. Target',
  missing_required_request_body_key:
    'The specified value for one of the request body keys is required. Target',
  invalid_request_path_parameter:
    'An invalid value was specified for one of the path parameters in the request URI. Target',
  invalid_request_body_parameter: 'The specified value for one of the request body keys is not valid.',
};

/** Messages of the document's Error400 enum, plus the page and per_page texts. */
const ERROR_400_TEXTS: ReadonlySet<string> = new Set([
  ...Object.values(GENERIC_400),
  'The page parameter must be larger than 0 (default is 1)',
  Messages.pageTooLarge,
  Messages.journalsPerPage100,
  'The specified value for one of the request body keys must be between 1 and 255 characters. Target',
]);

/** Messages of the document's JournalError enum (GET/POST /journals and /journals/{id} also answer these). */
const JOURNAL_ERROR_CODES: ReadonlySet<string> = new Set([
  'invalid_query_parameter_value',
  'missing_required_query_parameter',
  'missing_required_request_body_key',
  'invalid_request_body_value',
]);
const JOURNAL_ERROR_TEXTS: ReadonlySet<string> = new Set([
  "Accounting period doesn't exist for the fiscal year.",
  'Start date is after end date.',
  'Given date is not matching any accounting periods.',
  Messages.outsidePeriod,
  'The parameters cannot be provided simultaneously.',
  Messages.eitherDate,
  Messages.creditorAndDebitor,
  Messages.memoTooLong,
  Messages.idNotFound,
  Messages.movedTerm,
  Messages.accountInactive,
]);

/** The document's TrialBalanceError codes and texts (GET /reports/trial_balance_bs). */
const TRIAL_BALANCE_CODES: ReadonlySet<string> = new Set([
  'invalid_query_parameter_value',
  'missing_required_query_parameter',
  'invalid_query_parameter_combination',
]);
const TRIAL_BALANCE_TEXTS: ReadonlySet<string> = new Set([
  'The given months are not matching with any accounting periods.',
  'The combination of date parameters combined with month and fiscal year parameters is invalid.',
]);

/**
 * Which error schema an endpoint answers 400 with: /journals adds JournalError to Error400, the trial
 * balance TrialBalanceError.
 */
export type ErrorFamily = 'journals' | 'trial_balance' | 'other';

/** The text the document allows for this error, keeping ours when the document lists it. */
export function wireMessage(error: ApiError, family: ErrorFamily): string {
  if (error.verbatim !== undefined) return error.message;
  if (error.status !== 400) return error.message;
  if (
    family === 'journals' &&
    JOURNAL_ERROR_CODES.has(error.code) &&
    JOURNAL_ERROR_TEXTS.has(error.message)
  ) {
    return error.message;
  }
  if (
    family === 'trial_balance' &&
    TRIAL_BALANCE_CODES.has(error.code) &&
    TRIAL_BALANCE_TEXTS.has(error.message)
  ) {
    return error.message;
  }
  if (ERROR_400_TEXTS.has(error.message)) return error.message;
  if (family === 'journals' && JOURNAL_ERROR_CODES.has(error.code)) {
    // The closest JournalError text for the journal-specific explanations of ours.
    if (error.message === Messages.dateOrder) return 'Start date is after end date.';
  }
  return GENERIC_400[error.code] ?? GENERIC_400.invalid_input;
}

/** A 400; `verbatim` names the difference under which `message` goes on the wire unchanged. */
export function badRequest(code: string, message: string, verbatim?: string): ApiError {
  return new ApiError(400, code, message, {}, verbatim);
}

export const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' } as const;

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpResponse {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): HttpResponse {
  const body: ErrorBody = { errors: [{ code, message }] };
  return jsonResponse(status, body, headers);
}

/** The wire answer for an error: the document's text, and ours in `x-fake-mf-detail` when they differ. */
export function apiErrorResponse(error: ApiError, family: ErrorFamily = 'other'): HttpResponse {
  const message = wireMessage(error, family);
  const detail: Record<string, string> =
    message === error.message ? {} : { 'x-fake-mf-detail': asciiHeader(error.message) };
  return errorResponse(error.status, error.code, message, { ...error.headers, ...detail });
}

/** Header values must be Latin-1; our explanations are English, but ids or names could slip in. */
function asciiHeader(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}
