/**
 * Granted OAuth scopes per user (granular consent) and which service calls need which scope.
 *
 * Since 2025 Google's consent screen lets a person untick single permissions; the script then runs
 * with the rest, and a call that needs a missing scope throws
 * `You do not have permission to call <Class.method>. Required permissions: <scope>` (alternatives as
 * `(a || b)`), as public reports quote it (README "Switches": grants). A user the world does not list
 * has granted every scope of the manifest.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GAS_MESSAGES, GasError } from './errors';
import type { ExecutionState } from './execution-state';

export const SCOPE = {
  spreadsheetsCurrent: 'https://www.googleapis.com/auth/spreadsheets.currentonly',
  spreadsheets: 'https://www.googleapis.com/auth/spreadsheets',
  containerUi: 'https://www.googleapis.com/auth/script.container.ui',
  externalRequest: 'https://www.googleapis.com/auth/script.external_request',
  scriptApp: 'https://www.googleapis.com/auth/script.scriptapp',
  email: 'https://www.googleapis.com/auth/userinfo.email',
} as const;

interface Need {
  /** Any one of these scopes is enough. */
  anyOf: string[];
  /** How Apps Script names the call in its message. */
  name: string;
}

/** Which scope a world service call needs (null: none). Properties, cache, lock, utilities, HTML and logs need none. */
export function scopeNeed(service: string, method: string): Need | null {
  switch (service) {
    case 'sheets':
      // Real code meets the error at its first call, getActiveSpreadsheet(), which the guest answers locally.
      return {
        anyOf: [SCOPE.spreadsheetsCurrent, SCOPE.spreadsheets],
        name: 'SpreadsheetApp.getActiveSpreadsheet',
      };
    case 'ui':
      return { anyOf: [SCOPE.containerUi], name: method === 'get' ? 'SpreadsheetApp.getUi' : `Ui.${method}` };
    case 'fetch':
      return method === 'getRequest'
        ? null
        : { anyOf: [SCOPE.externalRequest], name: `UrlFetchApp.${method}` };
    case 'script':
      if (method === 'createTrigger') return { anyOf: [SCOPE.scriptApp], name: 'ScriptApp.newTrigger' };
      if (method === 'projectTriggers')
        return { anyOf: [SCOPE.scriptApp], name: 'ScriptApp.getProjectTriggers' };
      if (method === 'deleteTrigger') return { anyOf: [SCOPE.scriptApp], name: 'ScriptApp.deleteTrigger' };
      return null;
    default:
      return null;
  }
}

/** `a` or `(a || b)`, as Apps Script writes the required permissions. */
export function requiredText(anyOf: readonly string[]): string {
  return anyOf.length === 1 ? anyOf[0] : `(${anyOf.join(' || ')})`;
}

/** The manifest's oauthScopes (appsscript.json beside the bundle), or every scope above when there is none. */
export function manifestScopes(bundleDir: string): string[] {
  try {
    const manifest = JSON.parse(readFileSync(path.join(bundleDir, 'appsscript.json'), 'utf8')) as {
      oauthScopes?: unknown;
    };
    if (Array.isArray(manifest.oauthScopes)) return manifest.oauthScopes.map(String);
  } catch {
    // No manifest next to the bundle (a test's own bundle dir): assume the common set.
  }
  return [SCOPE.spreadsheetsCurrent, SCOPE.containerUi, SCOPE.externalRequest, SCOPE.scriptApp, SCOPE.email];
}

export class Grants {
  private readonly byUser = new Map<string, Set<string>>();

  constructor(
    readonly manifest: readonly string[],
    initial: Record<string, readonly string[]> = {},
  ) {
    for (const [user, scopes] of Object.entries(initial)) this.set(user, scopes);
  }

  /** What `user` ticked on the consent screen (the manifest's scopes outside this list stay unticked). */
  set(user: string, scopes: readonly string[]): void {
    this.byUser.set(user, new Set(scopes));
  }

  /** The person ticks everything (the authorization prompt accepted in full). */
  grantAll(user: string): void {
    this.byUser.set(user, new Set(this.manifest));
  }

  /** Adds scopes to what the user granted. */
  grant(user: string, scopes: readonly string[]): void {
    const had = this.byUser.get(user);
    if (!had) return; // already has every scope
    for (const s of scopes) had.add(s);
  }

  granted(user: string): string[] {
    return [...(this.byUser.get(user) ?? this.manifest)];
  }

  has(user: string, scope: string): boolean {
    const set = this.byUser.get(user);
    return set ? set.has(scope) : this.manifest.includes(scope);
  }

  /** Of `scopes` (default: the manifest's), the ones the user has not granted. */
  missing(user: string, scopes: readonly string[] = this.manifest): string[] {
    return scopes.filter((s) => !this.has(user, s));
  }
}

/**
 * Throws Apps Script's permission error when the call needs a scope the user has not granted. Simple
 * triggers run without authorization; their own limits are checked by each service.
 */
export function checkScope(grants: Grants, exec: ExecutionState, service: string, method: string): void {
  if (exec.kind === 'simple') return;
  const need = scopeNeed(service, method);
  if (!need) return;
  if (need.anyOf.some((s) => grants.has(exec.user, s))) return;
  throw new GasError(GAS_MESSAGES.noPermission(need.name, requiredText(need.anyOf)));
}
