/**
 * The 操作 column: what people ask for (承認 / 除外 / 再試行), applied at the start of every run,
 * then cleared. A request that does not fit the row's state is refused with a メモ, never forced.
 */

import { journalWentMissing } from './journal-check';
import type { LedgerRow, RowChange } from './ledger';
import { type Masters, resolvePosting } from './masters';
import { isLedgerState, type LedgerState, transition } from './states';

const ALLOWED: Record<string, readonly LedgerState[]> = {
  承認: ['未判定', '要確認'],
  除外: ['未判定', '要確認', '送信待ち', '失敗'],
  再試行: ['失敗'],
};

function refusal(op: string, state: string): string {
  if (!(op in ALLOWED)) return `操作「${op}」はわかりません。承認・除外・再試行 から選んでください。`;
  if (state === '送信中' || state === '不明') {
    return `状態が「${state}」のため「${op}」はできません。MFへの送信結果を確認中です。照合が終わるまでお待ちください。`;
  }
  if (state === '完了') return `状態が「完了」のため「${op}」はできません。MFで仕訳を直してください。`;
  if (state === '除外') return `状態が「除外」のため「${op}」はできません。`;
  if (op === '再試行') return `「再試行」は状態が「失敗」の行だけに使えます（今は「${state}」）。`;
  return `状態が「${state}」のため「${op}」はできません。`;
}

/**
 * Applies every pending 操作. `who` and `now` are noted in メモ so people can see what happened.
 * Approving needs names that resolve in マスタ; otherwise the row stays 要確認 and says why.
 */
export function applyOperations(
  rows: readonly LedgerRow[],
  masters: Masters,
  who: string,
  now: string,
): RowChange[] {
  const changes: RowChange[] = [];
  for (const row of rows) {
    const op = row.record.操作.trim();
    if (op === '') continue;
    const state = row.record.状態;
    const key = row.record.キー;
    const base = { 操作: '', 更新日時: now };
    // 再試行 also sends again a row whose journal was found gone from MF (journal-check.ts): "register it
    // again" is what a person means by either word there.
    const allowed =
      (isLedgerState(state) && (ALLOWED[op] ?? []).includes(state)) ||
      (op === '再試行' && journalWentMissing(row.record));
    if (!allowed) {
      changes.push({ key, rowNumber: row.rowNumber, patch: { ...base, メモ: refusal(op, state) } });
      continue;
    }
    if (op === '除外') {
      changes.push({
        key,
        rowNumber: row.rowNumber,
        patch: { ...base, 状態: transition(state, '除外', '操作 除外'), メモ: `除外: ${who} ${now}` },
      });
      continue;
    }
    const resolved = resolvePosting(masters, {
      勘定科目: row.record.勘定科目,
      補助科目: row.record.補助科目,
      税区分: row.record.税区分,
      取引先: row.record.取引先,
    });
    if (!resolved.ok) {
      const stay = state === '失敗' ? '失敗' : '要確認';
      changes.push({
        key,
        rowNumber: row.rowNumber,
        patch: {
          ...base,
          状態: transition(state, stay, `操作 ${op} (names not in マスタ)`),
          メモ: `${op}できません: ${resolved.problems.join(' ')}`,
        },
      });
      continue;
    }
    const decidedBy = row.record.判定元.trim() === '' ? { 判定元: '手動' } : {};
    changes.push({
      key,
      rowNumber: row.rowNumber,
      patch: {
        ...base,
        ...decidedBy,
        状態: transition(state, '送信待ち', `操作 ${op}`),
        メモ: `${op}: ${who} ${now}`,
      },
    });
  }
  return changes;
}
