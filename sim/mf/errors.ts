// Error bodies and messages. Codes and the quoted messages come from mf-api.md §8 [D]; messages marked
// [I] are our own wording for cases MF documents only by code. Tests and clients refer to them by name.

import type { ErrorBody, HttpResponse } from './types';

export const Messages = {
  noAuthorization: 'No authorization header.',
  tokenInvalid: 'Access token is not active or invalid.', // [I]
  insufficientPermissions: 'Insufficient permissions to access this resource.', // [I]
  tooManyRequests: 'Operations per second is over the account limit.',
  internalError: 'Internal server error.', // [I]
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
  movedTerm: 'Journal cannot be moved to a different term',
  pageTooLarge: 'The page parameter must not exceed the total_pages',
  transactionsPerPage: 'per_page must be between 10 and 500',
  journalsPerPage: 'per_page must be between 1 and 10000', // [I]
  sideRequired: 'side is required when value_min or value_max is provided',
  dateSpan: 'The period between start_date and end_date must be 366 days or less.', // [I]
  dateOrder: 'start_date must be on or before end_date.', // [I]
  transactionIdsTooMany: 'transaction_ids must be 50 or fewer.', // [I]
  alreadyJournalized: 'The specified transaction has already been journalized.', // [I]
  transactionExcluded: 'The specified transaction is excluded from journalizing.', // [I]
  notManual: 'Transactions can only be created in a manual connected account.', // [I]
  unsupportedMediaType: 'Content-Type must be application/json.', // [I]
  invalidJson: 'The request body is not valid JSON.', // [I]
  officeCodeRequired: 'office_code is required when using an API key.', // [I]
  officeCodeMismatch: 'The given office_code is not accessible with this API key.', // [I]
  noOffice: 'No office found.', // [I]
  noAccountingPeriod: 'No accounting period found.', // [I]
  notFound: 'The requested path does not exist.', // [I]
  methodNotAllowed: 'The method is not allowed for this path.', // [I]
} as const;

/** Thrown by handlers; the router turns it into an `{errors: [...]}` response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function badRequest(code: string, message: string): ApiError {
  return new ApiError(400, code, message);
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

export function apiErrorResponse(error: ApiError): HttpResponse {
  return errorResponse(error.status, error.code, error.message, error.headers);
}
