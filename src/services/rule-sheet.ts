/**
 * Rule upkeep around classification: adopt ticked ルール候補 (before rules are read), learn
 * candidates from this run's approvals, and rewrite the ルール 診断 column (once per run).
 * Read-modify-writes of ルール候補 and ルール appends happen under the script lock.
 */
import {
  applyChanges,
  type LedgerRecord,
  type LedgerRow,
  type LedgerTable,
  type RowChange,
} from '../core/ledger';
import type { Masters } from '../core/masters';
import { parseRules, type Rule, type RuleLine } from '../core/rules';
import {
  anyTicked,
  approvedRows,
  CANDIDATE_MSG,
  learnCandidates,
  parseCandidates,
  planAdoption,
} from '../core/rules/candidates';
import { diagnoseRuleSheet, type RuleFinding } from '../core/rules/diagnostics';
import { sha256Hex } from '../core/sha256';
import { readLedger } from '../gas/ledger-sheet';
import { underScriptLock } from '../gas/lock';
import { scriptProperties } from '../gas/properties';
import {
  candidatesSheet,
  formatCandidateSheet,
  rulesSheet,
  sheetValues,
  writeCandidateRows,
  writeDiagnosisColumn,
} from '../gas/rule-sheets';
import { readMasters } from '../gas/settings-sheet';
import { appendRecords } from '../gas/workbook';

export const RULE_SHEET_MSG = {
  busy: 'ほかの実行が進行中のため、ルール候補の処理は次の実行で行います。',
  findings: (n: number): string =>
    `ルールの診断: ${n} 件のルールに確認してほしい点があります（シート「ルール」の「診断」列）。`,
} as const;

/**
 * Appends every ticked ルール候補 to ルール and marks it 採用済み. Without a ticked candidate this is
 * one read of ルール候補 and nothing else.
 */
export function adoptRuleCandidates(): string[] {
  const done = underScriptLock(() => {
    const sheet = candidatesSheet();
    const table = parseCandidates(sheetValues(sheet));
    if (!anyTicked(table)) return [];
    const rules = rulesSheet();
    const adoption = planAdoption(table, sheetValues(rules), new Date().toISOString());
    appendRecords(rules, adoption.newRules);
    writeCandidateRows(sheet, adoption.table.columns, adoption.table.rows);
    return adoption.messages;
  });
  return done ? done.value : [RULE_SHEET_MSG.busy];
}

/**
 * Suggests rules from the rows `ops` approved. `before` is the 台帳 the operations were applied to;
 * `rules` the parsed ルール when the caller has them. No approval: no Sheets call.
 */
export function learnFromApprovals(
  who: string,
  before: readonly LedgerRow[],
  ops: readonly RowChange[],
  rules?: readonly Rule[],
  history?: () => LedgerTable,
): string[] {
  const approved = approvedRows(before, ops);
  if (approved.length === 0) return [];
  const ruleList = rules ?? parseRules(sheetValues(rulesSheet())).rules;
  // 該当行数 counts lines of the whole 台帳: a narrow read gives them from its history columns.
  const ledger = (
    history ? history() : applyChanges({ columns: new Map(), width: 0, rows: [...before] }, ops)
  ).rows.map((r) => r.record);
  const done = underScriptLock(() => {
    const sheet = candidatesSheet();
    const learnt = learnCandidates({
      table: parseCandidates(sheetValues(sheet)),
      approved,
      rules: ruleList,
      ledger,
      who,
      now: new Date().toISOString(),
    });
    if (learnt.added + learnt.updated > 0) writeCandidateRows(sheet, learnt.table.columns, learnt.table.rows);
    return learnt;
  });
  if (!done) return [RULE_SHEET_MSG.busy];
  const { added, updated } = done.value;
  return added + updated > 0 ? [CANDIDATE_MSG.learnt(added, updated)] : [];
}

export function ruleLines(records: readonly LedgerRecord[]): RuleLine[] {
  return records.map((r) => ({
    description: r.摘要,
    direction: r.入出金,
    amount: typeof r.金額 === 'number' ? r.金額 : Number.NaN,
    account: r.口座,
  }));
}

/** The findings for the ルール sheet as it is now (no write): for the dry run. */
export function ruleFindings(table: LedgerTable, masters: Masters = readMasters()): RuleFinding[] {
  return diagnoseRuleSheet(sheetValues(rulesSheet()), masters, ruleLines(table.rows.map((r) => r.record)))
    .findings;
}

/**
 * Rewrites the 診断 column from the ルール sheet as read now (one read, one write). Not under the
 * lock: the column is ours alone and a concurrent run would write the same verdicts.
 */
export function refreshRuleDiagnosis(
  table: LedgerTable | (() => LedgerTable),
  masters: Masters = readMasters(),
  onlyIfChanged = false,
): string[] {
  const sheet = rulesSheet();
  const values = sheetValues(sheet);
  const props = scriptProperties();
  const stamp = diagnosisStamp(values, masters);
  const last = (props.getProperty(DIAGNOSED) ?? '').split(' ');
  const say = (n: number) => (n > 0 ? [RULE_SHEET_MSG.findings(n)] : []);
  if (onlyIfChanged && last[0] === stamp) return say(Number(last[1]) || 0);
  const lines = typeof table === 'function' ? table() : table;
  const diagnosis = diagnoseRuleSheet(values, masters, ruleLines(lines.rows.map((r) => r.record)));
  writeDiagnosisColumn(sheet, values[0] ?? [], diagnosis.cells);
  props.setProperty(DIAGNOSED, `${stamp} ${diagnosis.findings.length}`);
  return say(diagnosis.findings.length);
}

/** The last diagnosis: a stamp of the rules and masters it saw, and its number of findings. */
const DIAGNOSED = 'KICHO_RULES_DIAGNOSED';

/** What the 診断 column depends on besides the 台帳: the ルール cells (not 診断 itself) and the masters' fetch. */
function diagnosisStamp(values: readonly (readonly unknown[])[], masters: Masters): string {
  const skip = (values[0] ?? []).findIndex((h) => String(h).trim() === '診断');
  const cells = values.map((r) => r.filter((_, i) => i !== skip).map((v) => String(v)));
  return `${sha256Hex(JSON.stringify(cells)).slice(0, 32)}:${masters.fetchedAt}`;
}

/** After classification: learn from this run's approvals, then refresh 診断 on the 台帳 as it is now. */
export function keepRulesCurrent(
  who: string,
  before: LedgerTable,
  changes: readonly RowChange[],
  ops: readonly RowChange[],
  rules: readonly Rule[],
  masters: Masters,
  history?: () => LedgerTable,
): string[] {
  // A narrow read (issue 18): the overlap counts need every row's line, read only when the rules or the
  // masters changed since the last diagnosis (else 診断 stays, its counts at most a day behind the 台帳).
  if (history) {
    let lines: LedgerTable | null = null;
    const once = () => {
      lines ??= history();
      return lines;
    };
    return [
      ...learnFromApprovals(who, before.rows, ops, rules, once),
      ...refreshRuleDiagnosis(once, masters, true),
    ];
  }
  return [
    ...learnFromApprovals(who, before.rows, ops, rules),
    ...refreshRuleDiagnosis(applyChanges(before, changes), masters),
  ];
}

/** setup(): 採用 checkboxes, ticked candidates adopted, 診断 brought up to date. */
export function setupRuleSheets(): string[] {
  formatCandidateSheet(candidatesSheet());
  return [...adoptRuleCandidates(), ...refreshRuleDiagnosis(readLedger())];
}
