/**
 * Every entry point checks first that the account running it granted all of kicho's permissions
 * (Google's consent screen lets a person untick some). When one is missing nothing else runs: the
 * person is told in Japanese which permission, what it is for and how to grant it, instead of an
 * English exception from the middle of the work.
 */
import { missingPermissionMessage, PERMISSIONS } from '../core/permissions';
import { checkPermissions, promptForPermissions } from '../gas/authorization';
import { spreadsheetUi } from '../gas/dialog';
import type { RunContext, RunSummary } from './run-context';
import { appendRunLog } from './run-log';

const SHEETS_SCOPE = PERMISSIONS[0].scope;
const UI_SCOPE = PERMISSIONS[1].scope;
const TITLE = 'Google の権限が足りません';

/**
 * null when every permission is granted. Otherwise the run's summary (ログ written when the sheet
 * permission is there); a menu run then ends with Google's consent prompt. A run that can write no ログ
 * throws the Japanese message, so a trigger's failure e-mail from Google carries it.
 */
export function refuseWithoutPermissions(action: string, ctx: RunContext, show: boolean): RunSummary | null {
  const { missing, url } = checkPermissions();
  if (missing.length === 0) return null;
  const message = missingPermissionMessage({
    action,
    missing,
    fromTrigger: ctx.fromTrigger,
    who: ctx.who,
    url,
  });
  const canLog = !missing.includes(SHEETS_SCOPE);
  if (canLog) appendRunLog({ action, fromTrigger: ctx.fromTrigger, ok: false, count: 0, message });
  if (!ctx.fromTrigger) {
    if (!missing.includes(UI_SCOPE)) {
      try {
        const ui = spreadsheetUi();
        ui.alert(TITLE, message, ui.ButtonSet.OK);
      } catch (_e) {
        // Run from the script editor: no UI; Google's prompt below still appears.
      }
    }
    // Dialogs (show: false) get the summary back; a menu click gets Google's prompt, which ends the run.
    if (show) promptForPermissions(missing);
  }
  if (!canLog) throw new Error(message);
  return { ok: false, action, count: 0, messages: [message], missingPermissions: missing };
}

/** For menu items and dialog targets that do not go through runEntry: throws the Japanese message. */
export function requirePermissions(action: string, fromMenu: boolean): void {
  const { missing, url } = checkPermissions();
  if (missing.length === 0) return;
  const message = missingPermissionMessage({ action, missing, fromTrigger: false, who: '', url });
  if (fromMenu && !missing.includes(UI_SCOPE)) {
    const ui = spreadsheetUi();
    ui.alert(TITLE, message, ui.ButtonSet.OK);
    promptForPermissions(missing);
  }
  throw new Error(message);
}

/** Wraps a menu item or a google.script.run target so it checks the permissions first. */
export function guarded<A extends unknown[], R>(action: string, fromMenu: boolean, fn: (...args: A) => R) {
  return (...args: A): R => {
    requirePermissions(action, fromMenu);
    return fn(...args);
  };
}
