/**
 * Errors the MF client throws. `message` is Japanese and safe to show on a sheet or in ログ: it never
 * carries a token, an API key or a client secret (DESIGN §7, §9.5). MF's own English text, when there is
 * one, is kept apart in `detail` so callers can record it without parsing the message.
 */
export class MfApiError extends Error {
  /** HTTP status, or null when no HTTP answer arrived (timeout, network failure). */
  readonly status: number | null;
  /** MF's error code (`invalid_query_parameter_value`, …) or our own (`timeout`, `network`, `http_502`). */
  readonly code: string;
  /** MF's error message as sent, when there was one. */
  readonly detail: string | null;

  constructor(message: string, opts: { status: number | null; code: string; detail?: string | null }) {
    super(message);
    this.name = 'MfApiError';
    this.status = opts.status;
    this.code = opts.code;
    this.detail = opts.detail ?? null;
  }
}

/**
 * Authentication could not be obtained or was refused (API-key exchange failed, OAuth access lost, 401
 * after a refresh). A subclass so that `instanceof MfApiError` still catches every MF failure.
 */
export class MfAuthError extends MfApiError {
  /** A 401 that came back for a token fetched just before (so the credential itself was accepted). */
  readonly freshToken: boolean;

  constructor(
    message: string,
    opts: { status: number | null; code: string; detail?: string | null; freshToken?: boolean },
  ) {
    super(message, opts);
    this.name = 'MfAuthError';
    this.freshToken = opts.freshToken === true;
  }
}

/**
 * API-key mode: MF would not open the office named by MF_OFFICE_CODE (a wrong 事業者コード, or an office the
 * key may not use). An auth failure, so a run stops before anything is claimed or sent; `message` names
 * the code and where to find the right one.
 */
export class MfOfficeCodeError extends MfAuthError {
  readonly officeCode: string;

  constructor(message: string, officeCode: string, opts: { status: number | null; code: string }) {
    super(message, opts);
    this.name = 'MfOfficeCodeError';
    this.officeCode = officeCode;
  }
}

/**
 * The connected MF office is not the office this 台帳 belongs to (DESIGN §5 one-office guard). Thrown
 * before any request for the wrong office is sent; `message` names both offices.
 */
export class MfOfficeMismatchError extends MfApiError {
  constructor(message: string) {
    super(message, { status: null, code: 'office_mismatch' });
    this.name = 'MfOfficeMismatchError';
  }
}
