/**
 * dryRun(): what the next postApproved() would do, written row by row to ドライラン, with a
 * dialog of counts and warnings for the person who asked. Changes nothing in MF or the 台帳.
 */

import { isArchived, stopsLookups, troubleMessage } from '../core/archive';
import { csvDryRunWarnings } from '../core/csv/warnings';
import { type DryRunPlan, planDryRun } from '../core/dry-run';
import { scriptJson } from '../core/html';
import { invoicePolicy } from '../core/invoice';
import type { KichoJournalsInMf } from '../core/lost-ledger';
import { mfBehaviourWarnings } from '../core/mf-behaviour';
import type { RuleFinding } from '../core/rules/diagnostics';
import { type DRY_RUN_HEADERS, SHEET } from '../core/schema';
import { selfTestWarnings } from '../core/self-test';
import { importWindow, SETTING_NEEDS } from '../core/settings';
import { archivedRows, readIndexForLookup } from '../gas/archive-sheet';
import { today } from '../gas/clock';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { readLedger } from '../gas/ledger-sheet';
import { underScriptLock } from '../gas/lock';
import { connectionMode, mfClient, officeRefusal } from '../gas/mf-connection';
import {
  lastImportWindow,
  lastLedgerRows,
  readInvoiceKinds,
  readMfBehaviour,
  readSelfTest,
  recordDryRun,
} from '../gas/run-state';
import { readMasters, readSettings } from '../gas/settings-sheet';
import { readSources } from '../gas/sources-sheet';
import { replaceDataRows } from '../gas/workbook';
import { mfLookup } from '../mf/lookup';
import { watchDoneRows } from '../services/done-rows';
import { kichoJournalsIn } from '../services/kicho-journals';
import { preflight, settingsFor } from '../services/preflight';
import { ruleFindings } from '../services/rule-sheet';
import { type RunContext, type RunResult, runEntry } from '../services/run';

/** A dry run does not wait long for a busy lock: it reads without it (and skips the count). */
const DRY_RUN_LOCK_WAIT_MS = 2_000;

export function computeDryRun(ctx: RunContext): {
  plan: DryRunPlan;
  settingsProblems: string[];
  rules: RuleFinding[];
} {
  const { settings, problems } = readSettings();
  // Under the lock when it is free, so the count of completed rows is not read half-way through a
  // run's write (it would look like rows had gone); the dry run itself changes nothing.
  const locked = underScriptLock(() => {
    const t = readLedger();
    return { table: t, gone: watchDoneRows(t) };
  }, DRY_RUN_LOCK_WAIT_MS);
  const table = locked ? locked.value.table : readLedger();
  const window = importWindow(settings, today());
  const masters = readMasters();
  // As posting reads it: a 送信待ち row whose key is archived is not sent; an untrustworthy index stops it.
  const { index, trouble } = readIndexForLookup();
  const plan = planDryRun(table, {
    masters,
    batchLimit: settings.batchLimit,
    who: ctx.who,
    now: new Date().toISOString(),
    archived: index.entries.size === 0 ? undefined : (key) => isArchived(index, key),
    lastRowCount: lastLedgerRows(),
    archivedRows: archivedRows(),
    lastWindow: lastImportWindow(),
    currentWindow: window.label,
    // With rows archived, MF's journals are theirs too: an empty 台帳 is judged by the count alone.
    taggedJournalsInMf:
      table.rows.length === 0 && archivedRows() === 0 ? taggedJournals(window.start, window.end) : null,
    invoice: invoicePolicy(settings, readInvoiceKinds()),
  });
  plan.warnings.push(...csvDryRunWarnings(table.rows, readSources(), masters));
  // The dry run shows what 登録 would do: with another office connected, it would send nothing.
  const otherOffice = connectionMode() === 'none' ? null : officeRefusal();
  if (otherOffice) plan.warnings.unshift(otherOffice);
  if (stopsLookups(trouble)) plan.warnings.unshift(`登録は止まります: ${troubleMessage(trouble)}`);
  plan.warnings.push(...selfTestWarnings(readSelfTest()));
  if (locked?.value.gone) plan.warnings.unshift(locked.value.gone);
  // An unreadable date is already among the 設定 problems shown; an inverted window is said here.
  if (window.problem && !settings.windowProblem) plan.warnings.push(window.problem);
  plan.warnings.push(...mfBehaviourWarnings(readMfBehaviour(), settings.graceMinutes));
  return {
    plan,
    settingsProblems: problems.map((p) => `${p.cell} ${p.message}`),
    rules: ruleFindings(table, masters),
  };
}

/**
 * The journals kicho counts as its own in the window: asked only when the 台帳 is empty, to tell a new
 * book from a lost one. Null when MF cannot be asked (not connected, unreachable).
 */
function taggedJournals(start: string, end: string): KichoJournalsInMf | null {
  try {
    return kichoJournalsIn(mfLookup(mfClient()), start, end);
  } catch (_e) {
    return null;
  }
}

function writePlan(plan: DryRunPlan, rules: readonly RuleFinding[]): void {
  const rows = plan.lines.map((l) => {
    const r = l.record;
    const record: Record<(typeof DRY_RUN_HEADERS)[number], unknown> = {
      区分: l.category,
      キー: r.キー,
      状態: r.状態,
      取引日: r.取引日,
      入出金: r.入出金,
      金額: r.金額,
      摘要: r.摘要,
      勘定科目: r.勘定科目,
      補助科目: r.補助科目,
      税区分: r.税区分,
      取引先: r.取引先,
      内容: l.note,
    };
    return record;
  });
  for (const f of rules) rows.push(ruleFindingRow(f));
  replaceDataRows(SHEET.dryRun, rows);
}

/** A rule diagnosis as a ドライラン row (区分 ルール), after the 台帳 rows. */
function ruleFindingRow(f: RuleFinding): Record<(typeof DRY_RUN_HEADERS)[number], unknown> {
  const record: Record<(typeof DRY_RUN_HEADERS)[number], unknown> = {
    区分: 'ルール',
    キー: `ルール ${f.rowNumber}行目`,
    状態: '',
    取引日: '',
    入出金: '',
    金額: '',
    摘要: f.keyword,
    勘定科目: f.account,
    補助科目: '',
    税区分: '',
    取引先: '',
    内容: f.message,
  };
  return record;
}

/** Rows shown in the dialog's preview; the sheet has them all. */
const PREVIEW_ROWS = 100;

function showDialog(plan: DryRunPlan, problems: string[], rules: readonly RuleFinding[]): void {
  const send = plan.lines.filter((l) => l.category === '送信予定');
  const template = htmlTemplate('dry-run');
  template.plan = scriptJson({
    counts: plan.counts,
    warnings: plan.warnings,
    problems,
    sendCount: send.length,
    preview: send.slice(0, PREVIEW_ROWS).map((l) => {
      const r = l.record;
      return { 取引日: r.取引日, 金額: r.金額, 摘要: r.摘要, 勘定科目: r.勘定科目, 税区分: r.税区分 };
    }),
    planned: plan.planned,
    token: plan.token,
    rules: rules.map((f) => ({ row: f.rowNumber, keyword: f.keyword, message: f.message })),
  });
  spreadsheetUi().showModalDialog(template.evaluate().setWidth(640).setHeight(600), 'ドライラン');
}

export function runDryRun(ctx: RunContext): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters, SHEET.sources);
  if (refused) return refused;
  const { refusal } = settingsFor(SETTING_NEEDS.dryRun);
  if (refusal) return refusal;
  const { plan, settingsProblems, rules } = computeDryRun(ctx);
  recordDryRun();
  writePlan(plan, rules);
  if (!ctx.fromTrigger) {
    try {
      showDialog(plan, settingsProblems, rules);
    } catch (_e) {
      // Run from the editor: no UI. The sheet has the plan.
    }
  }
  const c = plan.counts;
  const invoice = Object.entries(plan.invoiceCounts);
  const messages = [
    `送信予定 ${c.送信予定} 件、照合待ち ${c.照合待ち} 件、要確認 ${c.要確認} 件、失敗 ${c.失敗} 件。`,
    ...(invoice.length > 0
      ? [`インボイス区分: ${invoice.map(([label, n]) => `${label} ${n} 件`).join('、')}。`]
      : []),
    ...plan.warnings,
    ...settingsProblems,
    ...rules.map((f) => `ルール ${f.rowNumber}行目: ${f.message}`),
  ];
  return {
    count: c.送信予定,
    messages,
    counts: plan.counts,
    invoiceCounts: plan.invoiceCounts,
    warnings: plan.warnings,
    toSend: plan.toSend,
    ruleFindings: rules,
  };
}

export function dryRun(e?: unknown) {
  return runEntry('ドライラン', e, (ctx) => runDryRun(ctx), { show: false });
}
