/**
 * selfTest() — 本番前チェック (menu 記帳 > 点検 > 本番前チェック): runs every item (self-test-items.ts), writes one
 * row per item to 自己診断, keeps the outcome in KICHO_SELF_TEST (posting refuses while an NG that makes
 * exactly-once unsafe stands), and in a menu run shows the results in a dialog. Items that do something
 * real wait for the person's tick in that dialog, which runs the check again with them
 * (selfTestConfirm).
 */
import { scriptJson } from '../core/html';
import { SHEET } from '../core/schema';
import {
  type CheckItem,
  type CheckReport,
  describeSelfTest,
  runChecks,
  selfTestRecord,
  tokyoTime,
  waitsForPerson,
} from '../core/self-test';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { observedMfClient, type SentRequest } from '../gas/mf-connection';
import { recordSelfTest } from '../gas/run-state';
import { createScratchSheet, deleteScratchSheet } from '../gas/scratch-sheet';
import { isTriggerEvent } from '../gas/session';
import { replaceDataRows } from '../gas/workbook';
import type { MfClient } from '../mf/client';
import { type RunContext, type RunResult, runEntry } from '../services/run';
import { type SelfTestContext, SHEETS_AND_SCRIPT_ITEMS } from '../services/self-test-items';
import { MF_ITEMS } from '../services/self-test-mf';
import { runPost } from './post-approved';

const ACTION = '本番前チェック';

/** Every item, in the order 自己診断 lists them: Google's side first, then MF. */
export const SELF_TEST_ITEMS: readonly CheckItem<SelfTestContext>[] = [
  ...SHEETS_AND_SCRIPT_ITEMS,
  ...MF_ITEMS,
];

export interface SelfTestSummary extends RunResult {
  reports: CheckReport[];
  passed: boolean;
}

export function runSelfTest(ctx: RunContext, confirmed: ReadonlySet<string>): SelfTestSummary {
  let scratch: GoogleAppsScript.Spreadsheet.Sheet | null = null;
  let client: MfClient | null = null;
  const mfLog: SentRequest[] = [];
  const sctx: SelfTestContext = {
    who: ctx.who,
    scratch: () => {
      scratch ??= createScratchSheet();
      return scratch;
    },
    observation: null,
    run: ctx,
    post: (mf, plan) => runPost(ctx, mf, plan, { selfTest: true }),
    mfClient: () => {
      client ??= observedMfClient((sent) => mfLog.push(sent));
      return client;
    },
    mfLog,
  };
  let reports: CheckReport[];
  try {
    reports = runChecks(SELF_TEST_ITEMS, sctx, confirmed, () => new Date().toISOString());
  } finally {
    if (scratch) deleteScratchSheet(scratch);
  }
  const at = new Date().toISOString();
  replaceDataRows(
    SHEET.selfTest,
    reports.map((r) => ({
      項目: `${r.group}: ${r.title}`,
      結果: waitsForPerson(r) ? '注意' : r.result,
      詳細: r.question
        ? `${r.detail} ${r.optional ? 'もう一度行うときは' : '確認すること'}: ${r.question}`
        : r.detail,
      確認日時: tokyoTime(r.at),
    })),
  );
  const record = selfTestRecord(reports, at, ctx.who);
  recordSelfTest(record);
  const findings = reports
    .filter((r) => r.result !== 'OK')
    .map((r) => `${r.result} ${r.group}: ${r.title} — ${r.detail}`);
  return {
    ok: record.passed,
    count: reports.length,
    messages: [describeSelfTest(reports), ...findings],
    reports,
    passed: record.passed,
    blocking: record.blocking.map((b) => b.title),
  };
}

function showDialog(summary: SelfTestSummary): void {
  const template = htmlTemplate('self-test');
  template.result = scriptJson(dialogResult(summary));
  spreadsheetUi().showModalDialog(template.evaluate().setWidth(680).setHeight(600), ACTION);
}

/** What the dialog shows (the same shape selfTestConfirm returns). */
function dialogResult(summary: SelfTestSummary) {
  return {
    ok: summary.ok,
    passed: summary.passed,
    headline: summary.messages[0] ?? '',
    reports: summary.reports.map((r) => ({
      id: r.id,
      group: r.group,
      title: r.title,
      result: r.result,
      detail: r.detail,
      blocksPosting: r.blocksPosting === true,
      at: tokyoTime(r.at),
      question: r.question ?? null,
      confirmId: r.confirmId ?? r.id,
      optional: r.optional === true,
    })),
  };
}

export function selfTest(e?: unknown) {
  const summary = runEntry(ACTION, e, (ctx) => runSelfTest(ctx, new Set()), { show: false });
  if (!summary.reports) return summary;
  try {
    if (!isTriggerEvent(e)) showDialog(summary as unknown as SelfTestSummary);
  } catch (_e) {
    // Run from the editor or a trigger: no UI. 自己診断 and ログ have the results.
  }
  return summary;
}

/** google.script.run from the dialog: the whole check again, with the items the person ticked. */
export function selfTestConfirm(ids: unknown) {
  const confirmed = new Set(Array.isArray(ids) ? ids.map(String) : []);
  const summary = runEntry(ACTION, undefined, (ctx) => runSelfTest(ctx, confirmed), { show: false });
  if (!summary.reports)
    return { ok: false, passed: false, headline: summary.messages.join(' '), reports: [] };
  return dialogResult(summary as unknown as SelfTestSummary);
}
