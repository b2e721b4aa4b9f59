/**
 * Menu 「要確認を開く」: the full 要確認 check, and with MF connected the check that 完了 rows' journals are
 * still in MF (journal-check.ts), then the sheet. No ログ line.
 */
import { JOURNAL_CHECK_MSG } from '../core/journal-check';
import { SHEET } from '../core/schema';
import { spreadsheetUi } from '../gas/dialog';
import { connectionMode } from '../gas/mf-connection';
import { readSettings } from '../gas/settings-sheet';
import { toast } from '../gas/toast';
import { ensureSheet } from '../gas/workbook';
import { runJournalCheck } from '../services/journal-check';
import { preflight } from '../services/preflight';
import { refreshReview } from '../services/review-sheet';

/** Menu 「要確認を開く」: brings the 要確認 sheet up to date with the full check and shows it. */
export function openReview(): void {
  const refused = preflight(SHEET.ledger);
  if (refused) {
    spreadsheetUi().alert('要確認を開く（失敗）', refused.messages.join('\n'), spreadsheetUi().ButtonSet.OK);
    return;
  }
  const startedAt = Date.now();
  const grace = readSettings().settings.graceMinutes;
  const full = refreshReview(grace, true);
  let count = full.count;
  // Also whether each 完了 row's journal is still in MF (journal-check.ts), when MF is connected.
  let checked = '';
  if (connectionMode() !== 'none') {
    try {
      const r = runJournalCheck({ startedAt, graceMinutes: grace, table: full.table });
      if (typeof r.review === 'number') count = r.review;
      checked = r.messages.join(' ');
    } catch (e) {
      checked = JOURNAL_CHECK_MSG.failed(e instanceof Error ? e.message : String(e));
    }
  }
  const { sheet } = ensureSheet(SHEET.review);
  sheet.activate();
  toast(
    false,
    `${
      count === 0
        ? '確認が必要な行はありません。'
        : `確認が必要な行が ${count} 件あります。「行」のリンクで台帳に移れます。`
    }${checked === '' ? '' : ` ${checked}`}`,
  );
}
