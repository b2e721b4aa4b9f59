/**
 * Every entry point runs through here: it notes when the execution started (Apps Script has no API
 * for that), whether a trigger or a person started it, turns failures into plain Japanese, writes
 * one ログ line, and shows the result to a person — never from a trigger (getUi would throw).
 */
import { MSG } from '../core/messages';
import { redactSecrets } from '../core/redact';
import { spreadsheetUi } from '../gas/dialog';
import { knownSecrets } from '../gas/properties';
import { currentUserEmail, isTriggerEvent } from '../gas/session';
import { refuseWithoutPermissions } from './permission-gate';
import type { RunBody, RunContext, RunSummary } from './run-context';
import { appendRunLog } from './run-log';

export type { RunBody, RunContext, RunResult, RunSummary } from './run-context';

export function runEntry(
  action: string,
  event: unknown,
  body: RunBody,
  options: { show?: boolean } = {},
): RunSummary {
  const ctx: RunContext = {
    startedAt: Date.now(),
    fromTrigger: isTriggerEvent(event),
    who: currentUserEmail(),
  };
  const refused = refuseWithoutPermissions(action, ctx, options.show !== false);
  if (refused) return refused;
  let summary: RunSummary;
  try {
    const result = body(ctx);
    summary = { ...result, count: result.count, messages: result.messages, ok: result.ok ?? true, action };
  } catch (e) {
    const message = redactSecrets(e instanceof Error ? e.message : String(e), secretsOrNone());
    summary = { ok: false, action, count: 0, messages: [`${action}に失敗しました: ${message}`] };
  }
  appendRunLog({
    action,
    fromTrigger: ctx.fromTrigger,
    ok: summary.ok,
    count: summary.count,
    message: summary.messages.join(' '),
  });
  if (!ctx.fromTrigger && options.show !== false) showResult(summary);
  return summary;
}

/** The secrets to redact from an error, or none when Properties cannot be read (a simple trigger). */
function secretsOrNone(): string[] {
  try {
    return knownSecrets();
  } catch (_e) {
    return [];
  }
}

/** A short result dialog for the person who clicked the menu. */
function showResult(summary: RunSummary): void {
  try {
    const ui = spreadsheetUi();
    ui.alert(
      `${summary.action}（${summary.ok ? MSG.runOk : MSG.runFailed}）`,
      summary.messages.join('\n'),
      ui.ButtonSet.OK,
    );
  } catch (_e) {
    // Run from the script editor: there is no UI to show; ログ has the result.
  }
}
