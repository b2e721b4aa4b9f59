/**
 * Which of kicho's permissions the account running this execution has granted (granular consent:
 * a person may untick some on Google's screen), and asking Google to show its consent prompt.
 */
import { ALL_SCOPES } from '../core/permissions';

/** @types/google-apps-script lacks the scope-list overload and getAuthorizedScopes(). */
interface AuthorizationInfoFull {
  getAuthorizationStatus(): unknown;
  getAuthorizationUrl(): string | null;
  getAuthorizedScopes(): string[] | null;
}

export interface PermissionCheck {
  missing: string[];
  url: string | null;
}

/** The manifest scopes the current account has not granted (empty when all are). One service call. */
export function checkPermissions(): PermissionCheck {
  const getInfo = ScriptApp.getAuthorizationInfo as unknown as (
    mode: GoogleAppsScript.Script.AuthMode,
    scopes: string[],
  ) => AuthorizationInfoFull;
  const info = getInfo(ScriptApp.AuthMode.FULL, [...ALL_SCOPES]);
  if (info.getAuthorizationStatus() !== ScriptApp.AuthorizationStatus.REQUIRED)
    return { missing: [], url: null };
  const granted = new Set(info.getAuthorizedScopes() ?? []);
  return { missing: ALL_SCOPES.filter((s) => !granted.has(s)), url: info.getAuthorizationUrl() };
}

/**
 * Ends this execution with Google's consent prompt for the missing scopes (a person is looking: menu
 * runs only). Returns only if nothing is missing.
 */
export function promptForPermissions(missing: readonly string[]): void {
  ScriptApp.requireScopes(ScriptApp.AuthMode.FULL, [...missing]);
}
