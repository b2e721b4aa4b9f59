/**
 * The dry run: exactly what the next postApproved() would do, computed with the same functions,
 * without changing anything (DESIGN §5), plus the warnings a person should see first.
 */
import { guardArchivedKeys } from './archive';
import { fingerprint } from './fingerprint';
import { DEFAULT_INVOICE_POLICY, type InvoicePolicy, invoiceForSend } from './invoice';
import { guardKeys } from './key-check';
import { applyChanges, type LedgerRecord, type LedgerTable, merge } from './ledger';
import { type KichoJournalsInMf, lostLedgerReason } from './lost-ledger';
import { type Masters, resolvePosting } from './masters';
import { applyOperations } from './operations';
import { guardDuplicateKeys, planClaim } from './posting';
import { COMPLETED_WITHOUT_ID, unknownStateReason } from './review';
import { sha256Hex } from './sha256';
import { isLedgerState } from './states';

export type DryRunCategory = '送信予定' | '照合待ち' | '要確認' | '失敗' | '操作' | '重複キー' | '編集済み';

export interface DryRunLine {
  category: DryRunCategory;
  record: LedgerRecord;
  note: string;
}

export interface DryRunContext {
  masters: Masters;
  batchLimit: number;
  who: string;
  now: string;
  /** Whether a key is archived (posting's guard, DESIGN §9.8). */
  archived?: (key: string) => boolean;
  /** 台帳 data rows plus archived rows the last run saw (0 when unknown). */
  lastRowCount: number;
  /** Rows in 台帳アーカイブ now (issue 18: moved, not lost). */
  archivedRows?: number;
  /** Import window of the last import, and the one in 設定 now (`start..end`, end '' = today). */
  lastWindow: string | null;
  currentWindow: string;
  /** The journals in MF kicho counts as its own, when the 台帳 is empty (null when not checked). */
  taggedJournalsInMf: KichoJournalsInMf | null;
  /** インボイス区分: 設定 and what MF was seen taking (default: hold 未判定, no 特例, nothing seen). */
  invoice?: InvoicePolicy;
}

export interface DryRunPlan {
  lines: DryRunLine[];
  counts: Record<DryRunCategory, number>;
  warnings: string[];
  /** Keys that would be sent, in order: a run that follows this plan sends exactly these. */
  toSend: string[];
  /** Keys the run would claim (toSend plus rows the pre-send check would stop). */
  planned: string[];
  /** Identifies the plan: the same 台帳 gives the same token (planToken), so 実行 can check it. */
  token: string;
  /** The rows to send by what their journal carries for インボイス区分 (適格, 非適格（70%控除）, 区分なし …). */
  invoiceCounts: Record<string, number>;
}

export interface PlanInputs {
  masters: Masters;
  batchLimit: number;
  who: string;
  now: string;
  /** Whether a key is archived (posting's guard, DESIGN §9.8). */
  archived?: (key: string) => boolean;
}

/** The steps postApproved's first claim takes, without writing anything. */
function planSteps(table: LedgerTable, ctx: PlanInputs) {
  const operations = applyOperations(table.rows, ctx.masters, ctx.who, ctx.now);
  const afterOps = applyChanges(table, operations);
  const keyGuards = merge([
    ...guardKeys(afterOps.rows, ctx.now),
    ...guardArchivedKeys(afterOps.rows, ctx.now, ctx.archived),
  ]);
  const guards = merge([...guardDuplicateKeys(afterOps.rows, ctx.now), ...keyGuards]);
  const after = applyChanges(afterOps, guards);
  const { claimed } = planClaim(after.rows, ctx.batchLimit, ctx.now);
  const op = (rowNumber: number) => table.rows.find((r) => r.rowNumber === rowNumber)?.record;
  const token = sha256Hex(
    JSON.stringify({
      send: claimed.map((c) => [c.key, fingerprint(c.record), c.record.状態]),
      operations: operations.map((o) => [o.key, op(o.rowNumber)?.操作 ?? '', op(o.rowNumber)?.状態 ?? '']),
      guards: guards.map((g) => g.key),
    }),
  );
  return { operations, guards, keyGuards, after, claimed, token };
}

/**
 * What a dry run of this 台帳 would call its plan. Timestamps and who is asking do not count: only
 * which rows would be claimed with what content, which 操作 would apply, and which keys are guarded.
 */
export function planToken(table: LedgerTable, ctx: PlanInputs): string {
  return planSteps(table, ctx).token;
}

/** Several approved rows with the same date, amount, account and description suggest a fixed test value. */
function identicalPayloadWarnings(records: readonly LedgerRecord[]): string[] {
  const groups = new Map<string, number>();
  for (const r of records) {
    const k = [r.取引日, r.金額, r.勘定科目, r.摘要].join('\u0000');
    groups.set(k, (groups.get(k) ?? 0) + 1);
  }
  const out: string[] = [];
  for (const [k, n] of groups) {
    if (n < 2) continue;
    const [date, amount, account, description] = k.split('\u0000');
    out.push(
      `同じ内容の送信予定が ${n} 件あります（${date}、${amount}円、${account}、「${description}」）。本当に別々の明細か確認してください。`,
    );
  }
  return out;
}

export function planDryRun(table: LedgerTable, ctx: DryRunContext): DryRunPlan {
  const { operations, guards, keyGuards, after, claimed, token } = planSteps(table, ctx);
  const badKey = new Set(keyGuards.map((g) => g.rowNumber));
  const lines: DryRunLine[] = [];
  const toSend: string[] = [];
  const invoiceCounts: Record<string, number> = {};
  const countInvoice = (label: string) => {
    invoiceCounts[label] = (invoiceCounts[label] ?? 0) + 1;
  };
  let undecidedSent = 0;
  for (const c of claimed) {
    const resolved = resolvePosting(ctx.masters, {
      勘定科目: c.record.勘定科目,
      補助科目: c.record.補助科目,
      税区分: c.record.税区分,
      取引先: c.record.取引先,
    });
    // The same decision the sender makes (services/mf-sender.ts): what the journal carries, or why not sent.
    const invoice = invoiceForSend(c.record, ctx.masters, ctx.invoice ?? DEFAULT_INVOICE_POLICY);
    if (resolved.ok && invoice.kind === 'hold') {
      countInvoice('未判定・止める');
      lines.push({
        category: '要確認',
        record: c.record,
        note: `送信前の確認で止まります: ${invoice.problem}`,
      });
    } else if (resolved.ok && invoice.kind === 'refused') {
      countInvoice('MFが受け付けない区分');
      lines.push({ category: '失敗', record: c.record, note: invoice.problem });
    } else if (resolved.ok) {
      toSend.push(c.key);
      const label =
        invoice.kind === 'send'
          ? invoice.label
          : invoice.kind === 'omit-undecided'
            ? '未判定（区分なしで登録）'
            : '区分なし';
      countInvoice(label);
      if (invoice.kind === 'omit-undecided') undecidedSent++;
      const how =
        invoice.kind === 'send'
          ? `（インボイス: ${invoice.label}）`
          : invoice.kind === 'omit-undecided'
            ? `（${invoice.note}）`
            : '';
      lines.push({ category: '送信予定', record: c.record, note: `MFに仕訳を登録します${how}。` });
    } else {
      lines.push({
        category: '要確認',
        record: c.record,
        note: `送信前の確認で止まります: ${resolved.problems.join(' ')}`,
      });
    }
  }
  for (const op of operations) {
    const row = after.rows.find((r) => r.rowNumber === op.rowNumber);
    if (row) lines.push({ category: '操作', record: row.record, note: String(op.patch.メモ ?? '') });
  }
  for (const g of guards) {
    const row = after.rows.find((r) => r.rowNumber === g.rowNumber);
    if (row)
      lines.push({
        category: badKey.has(g.rowNumber) ? '要確認' : '重複キー',
        record: row.record,
        note: String(g.patch.メモ ?? ''),
      });
  }
  const claimedKeys = new Set(claimed.map((c) => c.key));
  for (const row of after.rows) {
    const r = row.record;
    const state = r.状態;
    if (badKey.has(row.rowNumber)) continue;
    if (!isLedgerState(state)) {
      lines.push({ category: '要確認', record: r, note: unknownStateReason(state) });
    } else if (state === '完了' && r.MF仕訳ID.trim() === '') {
      lines.push({ category: '照合待ち', record: r, note: COMPLETED_WITHOUT_ID });
    } else if (state === '送信中' || state === '不明') {
      lines.push({ category: '照合待ち', record: r, note: '送信結果をMFで確認するまで再送しません。' });
    } else if ((state === '要確認' || state === '未判定') && !claimedKeys.has(r.キー)) {
      lines.push({ category: '要確認', record: r, note: r.メモ || '確認が必要です。' });
    } else if (state === '失敗') {
      lines.push({ category: '失敗', record: r, note: r.メモ });
    } else if (state === '完了' && r.指紋 !== '' && fingerprint(r) !== r.指紋) {
      lines.push({
        category: '編集済み',
        record: r,
        note: '登録後に内容が編集されています。MFの仕訳と見比べてください。',
      });
    }
  }
  const counts = {
    送信予定: 0,
    照合待ち: 0,
    要確認: 0,
    失敗: 0,
    操作: 0,
    重複キー: 0,
    編集済み: 0,
  } as Record<DryRunCategory, number>;
  for (const l of lines) counts[l.category] += 1;

  const warnings: string[] = [];
  // The last count is 台帳 + archive: the 台帳 itself should hold it minus what is archived now.
  const rowCount = table.rows.length;
  const lost = lostLedgerReason(rowCount, ctx.lastRowCount - (ctx.archivedRows ?? 0), ctx.taggedJournalsInMf);
  if (lost) warnings.push(lost);
  if (ctx.lastWindow !== null && ctx.lastWindow !== ctx.currentWindow) {
    warnings.push(
      `取込期間が前回（${ctx.lastWindow}）から変わっています（今 ${ctx.currentWindow}）。意図した変更か確認してください。`,
    );
  }
  warnings.push(
    ...identicalPayloadWarnings(claimed.filter((c) => toSend.includes(c.key)).map((c) => c.record)),
  );
  if (counts.編集済み > 0) warnings.push(`登録後に編集された行が ${counts.編集済み} 件あります。`);
  const held = invoiceCounts['未判定・止める'] ?? 0;
  if (held > 0)
    warnings.push(
      `インボイス区分が未判定の仕入れが ${held} 件あります。登録せずに要確認にします（インボイス欄で 適格 か 非適格 を選んでから「承認」してください）。`,
    );
  if (undecidedSent > 0)
    warnings.push(
      `インボイス区分が未判定の仕入れ ${undecidedSent} 件を、区分なしで登録します（設定「インボイス未判定の扱い」が「送信」のため）。MF では「適格」として記録されます。`,
    );
  return { lines, counts, warnings, toSend, planned: claimed.map((c) => c.key), token, invoiceCounts };
}
