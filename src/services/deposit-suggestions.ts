/**
 * 判定's deposit step (app/classify-pending.ts): 入金 rows matched against the open invoices the last
 * 売掛金チェック wrote on the sheet 売掛金 (app/receivables.ts).
 */
import { CLASSIFY_MSG } from '../core/classify';
import { depositSuggestions } from '../core/deposit-match';
import type { LedgerRow, RowChange } from '../core/ledger';
import type { Masters } from '../core/masters';
import { openReceivablesFromValues } from '../core/receivables-sheet';
import { SHEET } from '../core/schema';
import type { Settings } from '../core/settings';
import { normalizeText } from '../core/text';
import { ensureSheet } from '../gas/workbook';

/**
 * 判定's deposit step: 入金 rows no rule decided in this run (要確認 for want of a rule, or left 未判定
 * for the AI) are matched against the open invoices of the last 売掛金チェック (one sheet read, no MF call).
 */
export function suggestDeposits(
  rowsAfter: readonly LedgerRow[],
  decisions: readonly RowChange[],
  masters: Masters,
  settings: Settings,
  now: string,
): RowChange[] {
  const decided = new Set(decisions.map((d) => d.key));
  const unmatched = new Set(
    rowsAfter
      .filter(
        (r) =>
          r.record.状態 === '未判定' ||
          (decided.has(r.record.キー) &&
            r.record.状態 === '要確認' &&
            r.record.判定元 === '' &&
            r.record.メモ === CLASSIFY_MSG.noRule),
      )
      .map((r) => r.record.キー),
  );
  // A rule may already say 売掛金 (e.g. フリコミ → 売掛金) without knowing who paid or for what.
  const account = normalizeText(settings.receivableAccount);
  const toEnrich = new Set(
    rowsAfter
      .filter(
        (r) =>
          decided.has(r.record.キー) &&
          r.record.状態 === '要確認' &&
          r.record.判定元.startsWith('ルール') &&
          normalizeText(r.record.勘定科目) === account &&
          r.record.取引先.trim() === '',
      )
      .map((r) => r.record.キー),
  );
  if (unmatched.size === 0 && toEnrich.size === 0) return [];
  const open = openReceivablesFromValues(ensureSheet(SHEET.receivables).sheet.getDataRange().getValues());
  if (open.length === 0) return [];
  return depositSuggestions({
    rows: rowsAfter,
    unmatchedKeys: unmatched,
    enrichKeys: toEnrich,
    open,
    partners: masters.partners,
    receivableAccount: settings.receivableAccount,
    feeTolerance: settings.feeTolerance,
    now,
  });
}
