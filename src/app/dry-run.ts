/**
 * dryRun(): what the next postApproved() would do, written row by row to ドライラン, with a
 * dialog of counts and warnings for the person who asked. Changes nothing in MF or the 台帳.
 */
import { csvDryRunWarnings } from '../core/csv/warnings';
import { type DryRunPlan, planDryRun } from '../core/dry-run';
import { escapeHtml } from '../core/html';
import { type DRY_RUN_HEADERS, SHEET } from '../core/schema';
import { today } from '../gas/clock';
import { readLedger } from '../gas/ledger-sheet';
import { mfClient } from '../gas/mf-connection';
import { lastImportWindow, lastLedgerRows } from '../gas/run-state';
import { readMasters, readSettings } from '../gas/settings-sheet';
import { readSources } from '../gas/sources-sheet';
import { replaceDataRows } from '../gas/workbook';
import { importWindow } from './import-transactions';
import { type RunContext, type RunResult, runEntry } from './run';

export function computeDryRun(ctx: RunContext): { plan: DryRunPlan; settingsProblems: string[] } {
  const { settings, problems } = readSettings();
  const table = readLedger();
  const window = importWindow(settings, today());
  const plan = planDryRun(table, {
    masters: readMasters(),
    batchLimit: settings.batchLimit,
    who: ctx.who,
    now: new Date().toISOString(),
    lastRowCount: lastLedgerRows(),
    lastWindow: lastImportWindow(),
    currentWindow: window.label,
    taggedJournalsInMf: table.rows.length === 0 ? taggedJournals(window.start, window.end) : null,
  });
  plan.warnings.push(...csvDryRunWarnings(table.rows, readSources(), readMasters()));
  return { plan, settingsProblems: problems.map((p) => `${p.cell} ${p.message}`) };
}

/**
 * How many MF journals in the window carry a kicho tag: asked only when the 台帳 is empty, to tell a
 * new book from a lost one. Null when MF cannot be asked (not connected, unreachable).
 */
function taggedJournals(start: string, end: string): number | null {
  try {
    return mfClient()
      .journalsBetween(start, end)
      .filter((j) => j.tags.some((t) => /^kc-[0-9a-f]{16}$/.test(t))).length;
  } catch (_e) {
    return null;
  }
}

function writePlan(plan: DryRunPlan): void {
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
  replaceDataRows(SHEET.dryRun, rows);
}

function dialogHtml(plan: DryRunPlan): string {
  const counts = Object.entries(plan.counts)
    .map(([k, n]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${n} 件</td></tr>`)
    .join('');
  const warnings =
    plan.warnings.length === 0
      ? '<p>注意点はありません。</p>'
      : `<ul>${plan.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`;
  return `<!doctype html><html lang="ja"><head><meta charset="utf-8"><style>
body{font-family:sans-serif;font-size:14px;margin:12px}table{border-collapse:collapse}th,td{padding:4px 12px;text-align:left;border-bottom:1px solid #ddd}
li{margin:4px 0;color:#a61b1b}</style></head><body>
<h2>ドライラン（まだ何も登録していません）</h2><table>${counts}</table><h3>注意点</h3>${warnings}
<p>行ごとの内容はシート「ドライラン」にあります。</p></body></html>`;
}

export function runDryRun(ctx: RunContext): RunResult {
  const { plan, settingsProblems } = computeDryRun(ctx);
  writePlan(plan);
  if (!ctx.fromTrigger) {
    try {
      const html = HtmlService.createHtmlOutput(dialogHtml(plan)).setWidth(520).setHeight(420);
      SpreadsheetApp.getUi().showModalDialog(html, 'ドライラン');
    } catch (_e) {
      // Run from the editor: no UI. The sheet has the plan.
    }
  }
  const c = plan.counts;
  const messages = [
    `送信予定 ${c.送信予定} 件、照合待ち ${c.照合待ち} 件、要確認 ${c.要確認} 件、失敗 ${c.失敗} 件。`,
    ...plan.warnings,
    ...settingsProblems,
  ];
  return { count: c.送信予定, messages, counts: plan.counts, warnings: plan.warnings, toSend: plan.toSend };
}

export function dryRun(e?: unknown) {
  return runEntry('ドライラン', e, (ctx) => runDryRun(ctx), { show: false });
}
