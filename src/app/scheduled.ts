/**
 * runScheduled(e): the time-driven handler. Reconcile first (always), then — when 自動実行 is オン —
 * import, classify and post, all inside this execution's time budget; what is left waits for the
 * next run. Once a day also the 要確認 full check and the check that 完了 rows' journals are still in MF.
 */
import { STOP_CLAIMING_AT_MS } from '../core/budget';
import { CHECK_START_BEFORE_MS } from '../core/journal-check';
import type { LedgerTable } from '../core/ledger';
import { PLANNING_KIND, scheduledBudget } from '../core/quota';
import { SHEET } from '../core/schema';
import { SETTING_NEEDS } from '../core/settings';
import { minutesLeftToday } from '../gas/clock';
import { fetchCount } from '../gas/http';
import { connectionMode, officeRefusal } from '../gas/mf-connection';
import { readUsage, recordRun } from '../gas/usage';
import { journalCheckDue, runJournalCheck } from '../services/journal-check';
import { scheduledRunMismatch } from '../services/oauth-owner';
import { preflight, settingsFor } from '../services/preflight';
import { fullReviewDue, refreshReview } from '../services/review-sheet';
import { adoptRuleCandidates, refreshRuleDiagnosis } from '../services/rule-sheet';
import { type RunContext, type RunResult, runEntry } from '../services/run';
import { runClassify } from './classify-pending';
import { runImport } from './import-transactions';
import { runPost } from './post-approved';
import { runReconcile } from './reconcile';

/** Import and classification read whole sheets and page through MF: leave them the first 3 minutes. */
const INTAKE_BEFORE_MS = 3 * 60_000;

export function runScheduledSteps(ctx: RunContext): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings);
  if (refused) return refused;
  const messages: string[] = [];
  const elapsed = () => Date.now() - ctx.startedAt;
  // A step that stopped for a reason a person must fix (a missing header, a bad setting, MF
  // authentication) makes the whole run 失敗 in ログ (DESIGN §9.7: no silent stop); another run
  // holding the lock does not.
  let failed = false;
  const step = (name: string, fn: () => RunResult): RunResult | null => {
    try {
      const r = fn();
      // One reason that stops several steps (the archive's index, a setting) is said once.
      messages.push(...r.messages.filter((m) => !messages.includes(m)));
      if (r.ok === false && !r.busy) failed = true;
      return r;
    } catch (e) {
      messages.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
  };
  // OAuth tokens are per user: the trigger owner may not be the account that connected MF.
  const mismatch = ctx.fromTrigger ? scheduledRunMismatch() : null;
  if (mismatch) return { ok: false, count: 0, messages: [mismatch] };
  // The daily quotas: shrink or skip the work before Google stops the run halfway (core/quota.ts).
  const usage = ctx.fromTrigger ? readUsage() : null;
  const budget = usage ? scheduledBudget(usage, PLANNING_KIND) : { mode: 'full' as const, message: '' };
  if (budget.mode === 'skip') {
    if (usage) recordRun(usage, Date.now() - ctx.startedAt, fetchCount());
    return { count: 0, messages: [budget.message], skipped: true };
  }
  if (budget.message) messages.push(budget.message);
  // After the checks that need no MF call. One 台帳, one office (DESIGN §5): with another office
  // connected the trigger does nothing at all.
  const otherOffice = connectionMode() === 'none' ? null : officeRefusal();
  if (otherOffice) return { ok: false, count: 0, messages: [otherOffice] };
  const reconciled = step('照合', () => runReconcile(ctx));
  const { settings, refusal } = settingsFor(SETTING_NEEDS.scheduled);
  if (refusal) {
    messages.push(...refusal.messages);
    if (usage) recordRun(usage, Date.now() - ctx.startedAt, fetchCount());
    return { ok: false, count: 0, messages, reconciled: reconciled?.count ?? 0, posted: 0, review: 0 };
  }
  // Spread over the day: this run posts only what leaves today's later runs their reconcile.
  const slice = usage
    ? scheduledBudget(usage, PLANNING_KIND, {
        minutesLeft: minutesLeftToday(),
        intervalMinutes: settings.reconcileIntervalMinutes,
      })
    : null;
  const postLimit = slice?.postLimit ?? null;
  if (slice && budget.mode === 'full' && settings.autoRun) {
    if (slice.mode !== 'full' || (postLimit !== null && postLimit < settings.batchLimit))
      messages.push(slice.message);
  }
  let posted = 0;
  // 本番前チェック's NG stopped the import or the posting: the ログ line says so in red.
  let blocked = false;
  if (budget.mode === 'reconcile-only' || slice?.mode === 'reconcile-only') {
    // Rows whose outcome is unknown are still looked up; new work waits for a quieter day.
  } else if (settings.autoRun) {
    if (elapsed() < INTAKE_BEFORE_MS) blocked = step('取込', () => runImport(ctx))?.blocked === true;
    if (elapsed() < INTAKE_BEFORE_MS) step('判定', () => runClassify(ctx));
    if (elapsed() < STOP_CLAIMING_AT_MS) {
      const post = step('登録', () =>
        runPost(ctx, undefined, undefined, { batchLimit: postLimit ?? undefined }),
      );
      posted = post?.count ?? 0;
      blocked ||= post?.blocked === true;
    }
  } else {
    // classifyPending adopts ticked ルール候補 when 自動実行 is on; otherwise do it here.
    step('ルール候補', () => ({ count: 0, messages: adoptRuleCandidates() }));
    messages.push('自動実行はオフです（照合のみ行いました）。');
  }
  // Narrow unless the day's full check is due (review-sheet.ts): not 22 columns of every row each run.
  // The full check's whole read also brings the rules' 台帳 overlap counts up to date.
  // Once a day, whether each 完了 row's journal is still in MF (journal-check.ts): it reads the whole 台帳,
  // so the full 要確認 check comes with it. Not on a day short of quota: it waits for a quieter one.
  const checking =
    budget.mode === 'full' &&
    slice?.mode !== 'reconcile-only' &&
    elapsed() < CHECK_START_BEFORE_MS &&
    journalCheckDue();
  const full = refreshReview(settings.graceMinutes, fullReviewDue() || checking);
  let review = full.count;
  if (checking) {
    const checked = step('仕訳の確認', () =>
      runJournalCheck({ startedAt: ctx.startedAt, graceMinutes: settings.graceMinutes, table: full.table }),
    );
    if (typeof checked?.review === 'number') review = checked.review;
  }
  if (full.table)
    step('ルール診断', () => ({ count: 0, messages: refreshRuleDiagnosis(full.table as LedgerTable) }));
  if (review > 0) messages.push(`要確認シートに ${review} 件あります。`);
  if (usage) recordRun(usage, Date.now() - ctx.startedAt, fetchCount());
  return {
    // A blocked import or post is a failed step too (its result is ok: false).
    ok: !failed && !blocked,
    count: posted,
    messages,
    reconciled: reconciled?.count ?? 0,
    posted,
    review,
  };
}

export function runScheduled(e?: unknown) {
  return runEntry('定期実行', e, (ctx) => runScheduledSteps(ctx));
}
