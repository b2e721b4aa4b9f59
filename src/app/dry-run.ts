/**
 * dryRun(): what the next postApproved() would do, written row by row to ドライラン, with a
 * dialog of counts and warnings for the person who asked. Changes nothing in MF or the 台帳.
 */
import { type DryRunPlan, planDryRun } from '../core/dry-run';
import { escapeHtml } from '../core/html';
import type { RuleFinding } from '../core/rule-diagnostics';
import { type DRY_RUN_HEADERS, SHEET } from '../core/schema';
import { today } from '../gas/clock';
import { readLedger } from '../gas/ledger-sheet';
import { mfClient } from '../gas/mf-connection';
import { lastImportWindow, lastLedgerRows } from '../gas/run-state';
import { readMasters, readSettings } from '../gas/settings-sheet';
import { replaceDataRows } from '../gas/workbook';
import { importWindow } from './import-transactions';
import { ruleFindings } from './rule-sheet';
import { type RunContext, type RunResult, runEntry } from './run';

export function computeDryRun(ctx: RunContext): {
  plan: DryRunPlan;
  settingsProblems: string[];
  rules: RuleFinding[];
} {
  const { settings, problems } = readSettings();
  const table = readLedger();
  const window = importWindow(settings, today());
  const masters = readMasters();
  const plan = planDryRun(table, {
    masters,
    batchLimit: settings.batchLimit,
    who: ctx.who,
    now: new Date().toISOString(),
    lastRowCount: lastLedgerRows(),
    lastWindow: lastImportWindow(),
    currentWindow: window.label,
    taggedJournalsInMf: table.rows.length === 0 ? taggedJournals(window.start, window.end) : null,
  });
  return {
    plan,
    settingsProblems: problems.map((p) => `${p.cell} ${p.message}`),
    rules: ruleFindings(table, masters),
  };
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

function rulesHtml(rules: readonly RuleFinding[]): string {
  if (rules.length === 0) return '<h3>ルールの診断</h3><p>気になる点はありません。</p>';
  const items = rules
    .map((f) => `<li>ルール ${f.rowNumber}行目『${escapeHtml(f.keyword)}』: ${escapeHtml(f.message)}</li>`)
    .join('');
  return `<h3>ルールの診断（${rules.length} 件）</h3><ul class="rules">${items}</ul>`;
}

function dialogHtml(plan: DryRunPlan, rules: readonly RuleFinding[]): string {
  const counts = Object.entries(plan.counts)
    .map(([k, n]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${n} 件</td></tr>`)
    .join('');
  const warnings =
    plan.warnings.length === 0
      ? '<p>注意点はありません。</p>'
      : `<ul>${plan.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`;
  return `<!doctype html><html lang="ja"><head><meta charset="utf-8"><style>
body{font-family:sans-serif;font-size:14px;margin:12px}table{border-collapse:collapse}th,td{padding:4px 12px;text-align:left;border-bottom:1px solid #ddd}
li{margin:4px 0;color:#a61b1b}ul.rules li{color:#7f6000}</style></head><body>
<h2>ドライラン（まだ何も登録していません）</h2><table>${counts}</table><h3>注意点</h3>${warnings}${rulesHtml(rules)}
<p>行ごとの内容はシート「ドライラン」にあります。</p></body></html>`;
}

export function runDryRun(ctx: RunContext): RunResult {
  const { plan, settingsProblems, rules } = computeDryRun(ctx);
  writePlan(plan, rules);
  if (!ctx.fromTrigger) {
    try {
      const html = HtmlService.createHtmlOutput(dialogHtml(plan, rules)).setWidth(520).setHeight(420);
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
    ...rules.map((f) => `ルール ${f.rowNumber}行目: ${f.message}`),
  ];
  return {
    count: c.送信予定,
    messages,
    counts: plan.counts,
    warnings: plan.warnings,
    toSend: plan.toSend,
    ruleFindings: rules,
  };
}

export function dryRun(e?: unknown) {
  return runEntry('ドライラン', e, (ctx) => runDryRun(ctx), { show: false });
}
