/**
 * classifyPending(): pending 操作 first, then the ルール sheet on 未判定 rows (DESIGN §1 判定).
 */
import { classifyRows } from '../core/classify';
import { applyOperations } from '../core/operations';
import { applyChanges, merge } from '../core/protocol';
import { parseRules } from '../core/rules';
import { readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { readMasters, readRuleValues, readSettings } from '../gas/settings-sheet';
import { refreshReviewSheet } from './review-sheet';
import { adoptRuleCandidates, keepRulesCurrent } from './rule-sheet';
import { type RunContext, type RunResult, runEntry } from './run';

export function runClassify(ctx: RunContext): RunResult {
  const adopted = adoptRuleCandidates();
  const { rules, problems } = parseRules(readRuleValues());
  const masters = readMasters();
  const messages = problems.map((p) => p.message);
  const done = underScriptLock(() => {
    const now = new Date().toISOString();
    const table = readLedger();
    const ops = applyOperations(table.rows, masters, ctx.who, now);
    const after = applyChanges(table, ops);
    const decisions = classifyRows(after.rows, rules, masters, now);
    const changes = merge([...ops, ...decisions]);
    writeLedgerChanges(table, changes);
    refreshReviewSheet(applyChanges(table, changes), readSettings().settings.graceMinutes);
    return { ops, decisions, table, changes };
  });
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE] };
  const { ops, decisions } = done.value;
  const operations = ops.length;
  const decided = decisions.length;
  const approved = decisions.filter((d) => d.patch.状態 === '送信待ち').length;
  const review = decisions.filter((d) => d.patch.状態 === '要確認').length;
  messages.unshift(
    `${decided} 件を判定しました（送信待ち ${approved} 件、要確認 ${review} 件）。` +
      (operations > 0 ? ` 操作 ${operations} 件を反映しました。` : ''),
  );
  const { table, changes } = done.value;
  messages.push(...adopted, ...keepRulesCurrent(ctx.who, table, changes, ops, rules, masters));
  return { count: decided, messages, decided, approved, review, operations };
}

export function classifyPending(e?: unknown) {
  return runEntry('判定', e, (ctx) => runClassify(ctx));
}
