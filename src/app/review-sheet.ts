/** Rewrites the 要確認 sheet from the 台帳 (one clear, one write); 行 links to the 台帳 row. */
import type { LedgerTable } from '../core/ledger';
import { reviewItems } from '../core/review';
import { SHEET } from '../core/schema';
import { OwnFormula } from '../gas/cells';
import { ledgerSheet, readLedger } from '../gas/ledger-sheet';
import { readSettings } from '../gas/settings-sheet';
import { toast } from '../gas/toast';
import { ensureSheet, replaceDataRows } from '../gas/workbook';
import { preflight } from './preflight';

export function refreshReviewSheet(table: LedgerTable, graceMinutes: number): number {
  const items = reviewItems(table, Date.now(), graceMinutes * 60_000);
  const ledgerId = ledgerSheet().getSheetId();
  replaceDataRows(
    SHEET.review,
    items.map((i) => ({
      キー: i.record.キー,
      状態: i.record.状態,
      取引日: i.record.取引日,
      金額: i.record.金額,
      摘要: i.record.摘要,
      理由: i.reason,
      対応: i.action,
      行: OwnFormula.ledgerRow(ledgerId, i.rowNumber),
    })),
  );
  return items.length;
}

/** Menu 「要確認を開く」: brings the 要確認 sheet up to date and shows it. */
export function openReview(): void {
  const refused = preflight(SHEET.ledger);
  if (refused) {
    SpreadsheetApp.getUi().alert(
      '要確認を開く（失敗）',
      refused.messages.join('\n'),
      SpreadsheetApp.getUi().ButtonSet.OK,
    );
    return;
  }
  const count = refreshReviewSheet(readLedger(), readSettings().settings.graceMinutes);
  const { sheet } = ensureSheet(SHEET.review);
  sheet.activate();
  toast(
    false,
    count === 0
      ? '確認が必要な行はありません。'
      : `確認が必要な行が ${count} 件あります。「行」のリンクで台帳に移れます。`,
  );
}
