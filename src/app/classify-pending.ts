/**
 * classifyPending(): pending 操作 first, then the ルール sheet on 未判定 rows (DESIGN §1 判定).
 */
import { type AiJudgingPorts, judgeWithAi } from '../core/ai/judging';
import { classifyRows, type InvoiceJudging } from '../core/classify';
import { parseInvoiceDefaults } from '../core/invoice-judge';
import { applyChanges, type LedgerTable, merge, type RowChange } from '../core/ledger';
import type { NtaRegistry } from '../core/nta';
import { applyOperations } from '../core/operations';
import { parseRules } from '../core/rules';
import { SHEET } from '../core/schema';
import { SETTING_NEEDS } from '../core/settings';
import { type NarrowLedger, narrowLedger, scanColumns } from '../gas/ledger-scan';
import { ledgerSheet, readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { BUSY_MESSAGE } from '../gas/lock';
import { readInvoicePartnerValues, readMasters, readRuleValues } from '../gas/settings-sheet';
import { aiConfig, aiJudgingPorts } from '../services/ai-judge';
import { suggestDeposits } from '../services/deposit-suggestions';
import { ntaLookup } from '../services/nta-lookup';
import { preflight, settingsFor } from '../services/preflight';
import { listedReviewKeys, refreshReviewSheet, reviewRowsOf } from '../services/review-sheet';
import { adoptRuleCandidates, keepRulesCurrent } from '../services/rule-sheet';
import { type RunContext, type RunResult, runEntry } from '../services/run';

/** What classification reads of every row: the rows to decide (状態) and to act on (操作), by key. */
const CLASSIFY_COLUMNS = ['キー', '状態', '操作'] as const;

/**
 * The 台帳 for one classification (issue 18): キー・状態・操作 of every row; whole, the span of rows it
 * may change (未判定, or with an 操作: rules, deposits and AI claims decide only 未判定 rows) and the rows
 * the narrow 要確認 refresh lists (review-sheet.ts).
 */
function classifyLedger(sheet: GoogleAppsScript.Spreadsheet.Sheet): NarrowLedger {
  const listed = listedReviewKeys();
  return narrowLedger(
    sheet,
    CLASSIFY_COLUMNS,
    (scan) =>
      scan.rows
        .filter((r) => r.record.状態.trim() === '未判定' || r.record.操作.trim() !== '')
        .map((r) => r.rowNumber),
    (scan) => reviewRowsOf(scan, listed),
  );
}

/** What classification's locked write did (the AI step's first section, core/ai/judging.ts). */
interface ClassifyWrite {
  ops: RowChange[];
  decisions: RowChange[];
  table: LedgerTable;
  changes: RowChange[];
  withheld: number;
  narrow: boolean;
}

/** The lines of every row (摘要・入出金・金額・口座) for the rules' overlap counts and learning. */
function lineHistory(sheet: GoogleAppsScript.Spreadsheet.Sheet): LedgerTable {
  // The four columns are adjacent (one read); a row with none of them is no line.
  const scan = scanColumns(sheet, ['入出金', '金額', '摘要', '口座']);
  return scan ? { columns: scan.columns, width: scan.header.length, rows: scan.rows } : readLedger(sheet);
}

export function runClassify(ctx: RunContext): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.rules, SHEET.masters);
  if (refused) return refused;
  const first = settingsFor(SETTING_NEEDS.classify);
  if (first.refusal) return first.refusal;
  const { settings, notes, refusal } =
    first.settings.aiProvider === 'オフ'
      ? first
      : settingsFor([...SETTING_NEEDS.classify, ...SETTING_NEEDS.classifyAi]);
  if (refusal) return refusal;
  const adopted = adoptRuleCandidates();
  const { rules, problems } = parseRules(readRuleValues());
  const masters = readMasters();
  const ai = aiConfig(settings);
  // インボイス区分 (issue 27): the 区分 people keep per 取引先, the 特例 and whether 未判定 waits.
  const kept = parseInvoiceDefaults(readInvoicePartnerValues());
  const invoice: InvoiceJudging = {
    masters,
    defaults: kept.defaults,
    special: settings.specialRule,
    smallAmount: settings.smallAmountRule,
    holdUndecided: settings.holdUndecidedInvoice,
  };
  const messages = [...problems.map((p) => p.message), ...kept.problems, ...ai.messages, ...notes];
  const sheet = ledgerSheet();
  // 登録番号の照会 (設定, オフ by default): the NTA is asked before the lock, for the numbers the 未判定 rows
  // need (the same judgement with a registry that only notes the numbers); a row whose number was not asked
  // (it arrived meanwhile, or the run's cap) waits for the next 判定.
  const nta = ntaLookup(settings.ntaLookup);
  if (nta) {
    const asked = new Set<string>();
    const noting: NtaRegistry = {
      verdict: (number) => {
        asked.add(number);
        return { kind: 'pending' };
      },
    };
    const pre = classifyLedger(sheet).table.rows.filter((r) => r.record.状態.trim() === '未判定');
    classifyRows(pre, rules, masters, new Date().toISOString(), {
      keepUnmatched: ai.config !== null,
      invoice: { ...invoice, registry: noting },
    });
    nta.prefetch(asked);
    nta.lazy = false;
    invoice.registry = nta;
  }
  // One exactly-once run (core/ai/judging.ts): this locked write is its first section, with the AI claim in it.
  const section: { done: ClassifyWrite | null } = { done: null };
  const classify: AiJudgingPorts['classify'] = (claimAi) => {
    const now = new Date().toISOString();
    // Narrow (issue 18): the whole 台帳 only when a header is missing or rows keep moving under the reads.
    const read = classifyLedger(sheet);
    const { table } = read;
    const ops = applyOperations(table.rows, masters, ctx.who, now);
    const after = applyChanges(table, ops);
    // With AI on, rows no rule matched stay 未判定 and are claimed for the AI step below.
    const waiting = new Set<string>();
    const ruled = classifyRows(after.rows, rules, masters, now, {
      keepUnmatched: ai.config !== null,
      invoice,
      waiting,
    });
    // Deposits no rule decided may settle an open 売掛金 (売掛金チェック); they then skip the AI.
    const deposits = suggestDeposits(applyChanges(after, ruled).rows, ruled, masters, settings, now);
    const decisions = merge([...ruled, ...deposits]);
    const open = applyChanges(after, decisions).rows.filter((r) => !waiting.has(r.record.キー));
    const planned = merge([...ops, ...decisions, ...claimAi(open, now)]);
    // A row a person typed into while this ran keeps their input; it is decided again next time.
    const { withheld } = writeLedgerChanges(table, planned, sheet);
    const held = new Set(withheld.map((c) => c.rowNumber));
    const written = (cs: readonly RowChange[]) => cs.filter((c) => !held.has(c.rowNumber));
    const changes = written(planned);
    refreshReviewSheet(
      applyChanges(table, changes),
      settings.graceMinutes,
      read.scan ? read.whole : undefined,
    );
    section.done = {
      ops: written(ops),
      decisions: written(decisions),
      table,
      changes,
      withheld: withheld.length,
      narrow: read.scan !== null,
    };
    // The lock is released next: the AI requests run outside it, looking numbers up as they go.
    if (nta) nta.lazy = true;
    return { withheld };
  };
  const aiRun = judgeWithAi(aiJudgingPorts(ctx, settings, classify), {
    config: ai.config,
    settings,
    masters,
    invoice,
    startedAt: ctx.startedAt,
  });
  const wrote = section.done;
  if (!wrote)
    return { ok: false, count: 0, messages: [BUSY_MESSAGE, ...(nta?.messages() ?? [])], busy: true };
  const { ops, decisions, withheld } = wrote;
  if (withheld > 0)
    messages.push(
      `判定中に人が入力した ${withheld} 行は、入力を残して判定を書き込みませんでした（次の判定で入力を使います）。`,
    );
  const operations = ops.length;
  const decided = decisions.length;
  const approved = decisions.filter((d) => d.patch.状態 === '送信待ち').length;
  const review = decisions.filter((d) => d.patch.状態 === '要確認').length;
  messages.unshift(
    `${decided} 件を判定しました（送信待ち ${approved} 件、要確認 ${review} 件）。` +
      (operations > 0 ? ` 操作 ${operations} 件を反映しました。` : ''),
  );
  const judged = aiRun.judged;
  const { table, changes, narrow } = wrote;
  messages.push(
    ...adopted,
    ...keepRulesCurrent(
      ctx.who,
      table,
      changes,
      ops,
      rules,
      masters,
      narrow ? () => lineHistory(sheet) : undefined,
    ),
  );
  messages.push(...aiRun.claimMessages, ...(judged?.messages ?? []), ...(nta?.messages() ?? []));
  return {
    count: decided + (judged?.answered ?? 0),
    messages,
    decided,
    approved,
    review,
    operations,
    ai: judged ? { ...judged, messages: undefined } : null,
  };
}

export function classifyPending(e?: unknown) {
  return runEntry('判定', e, (ctx) => runClassify(ctx));
}
