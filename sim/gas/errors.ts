/**
 * An exception the emulated platform throws, with Apps Script's own message. The guest sees it
 * as `Exception: <message>` (name 'Exception'), as real Apps Script code does.
 */
export class GasError extends Error {
  override name = 'Exception';
}

/** Exact messages of the platform (reference/gas-platform.md); tests and code match on these. */
export const GAS_MESSAGES = {
  maxExecutionTime: 'Exceeded maximum execution time',
  getUiFromTrigger: 'Cannot call SpreadsheetApp.getUi() from this context.',
  lockTimeout: 'Lock timeout: another process was holding the lock for too long.',
  lockTooMany: 'There are too many LockService operations against the same script.',
  rangeNotFound: 'Range not found',
  outsideSheet: 'The coordinates of the range are outside the dimensions of the sheet.',
  rowsMismatch: (data: number, range: number) =>
    `The number of rows in the data does not match the number of rows in the range. The data has ${data} but the range has ${range}.`,
  columnsMismatch: (data: number, range: number) =>
    `The number of columns in the data does not match the number of columns in the range. The data has ${data} but the range has ${range}.`,
  cellTooLong: 'Your input contains more than the maximum of 50000 characters in a single cell.',
  protectedCell:
    'You are trying to edit a protected cell or object. Please contact the spreadsheet owner to remove protection if you need to edit.',
  sheetExists: (name: string) => `A sheet with the name "${name}" already exists. Please enter another name.`,
  tooManyTriggers:
    'This script has too many triggers. Triggers must be deleted from the script before more can be added.',
  noPermission: (method: string, scope: string) =>
    `You do not have permission to call ${method}. Required permissions: ${scope}`,
  /** The daily UrlFetch calls are spent (reference/gas-platform.md §3.3): nothing is sent. */
  urlfetchQuota: 'Service invoked too many times for one day: urlfetch.',
  /** UrlFetch bandwidth throttle (§3.3): nothing is sent. */
  bandwidth: (url: string) => `Bandwidth quota exceeded: ${url}. Try reducing the rate of data transfer.`,
  /** The daily trigger runtime is spent (§4.2, §6). */
  computerTime: 'Service using too much computer time for one day.',
  /** ScriptApp.requireScopes / requireAllScopes with consent missing: the execution ends (README "Switches"). */
  authorizationRequired: 'Authorization is required to perform that action.',
  propertyValueTooLarge: 'Argument too large: value',
  propertyQuota: 'You have exceeded the property storage quota. Please remove some properties and try again.',
} as const;
