/**
 * backupLedger(): a daily copy of the 台帳 (a hidden sheet 「台帳バックアップ yyyy-MM-dd」), keeping the
 * newest バックアップ世代数 copies. Sheet.copyTo copies on Google's side, so a 100,000-row 台帳 costs
 * one call, not a read and a write of 2 million cells. A spreadsheet holds at most 10 million cells:
 * older copies make room first, and a copy that still does not fit is skipped with a message.
 */
import { BACKUP_PREFIX } from '../core/ledger-shape';
import { SHEET } from '../core/schema';
import { SETTING_NEEDS } from '../core/settings';
import { nowInZone } from '../gas/clock';
import { ledgerSheet } from '../gas/ledger-sheet';
import { underScriptLock } from '../gas/lock';
import { activeBook } from '../gas/workbook';
import { preflight, settingsFor } from '../services/preflight';
import { type RunContext, type RunResult, runEntry } from '../services/run';
import { runArchive } from './archive';

export { BACKUP_PREFIX };

/** Google's limit is 10,000,000 cells per spreadsheet; keep a margin for people's own sheets. */
const CELL_BUDGET = 9_000_000;

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

const cells = (s: Sheet) => s.getMaxRows() * s.getMaxColumns();

function tokyoDate(): string {
  return nowInZone('Asia/Tokyo', 'yyyy-MM-dd');
}

export function runBackup(): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings);
  if (refused) return refused;
  const { settings, refusal } = settingsFor(SETTING_NEEDS.backup);
  if (refusal) return refusal;
  const keep = settings.backupGenerations;
  if (keep === 0)
    return { count: 0, messages: ['バックアップ世代数が 0 のため、バックアップしませんでした。'] };
  const name = `${BACKUP_PREFIX}${tokyoDate()}`;
  const done = underScriptLock(() => {
    const book = activeBook();
    const ledger = ledgerSheet();
    if (book.getSheetByName(name)) return { made: false, dropped: 0, skipped: '' };
    // Oldest first: the date in the name sorts.
    const backups = book
      .getSheets()
      .filter((s) => s.getName().startsWith(BACKUP_PREFIX))
      .sort((a, b) => (a.getName() < b.getName() ? -1 : 1));
    let total = book.getSheets().reduce((n, s) => n + cells(s), 0);
    let dropped = 0;
    // Room for the new copy: beyond the generations kept, or beyond the cell budget.
    while (backups.length > 0 && (backups.length >= keep || total + cells(ledger) > CELL_BUDGET)) {
      const oldest = backups.shift() as Sheet;
      total -= cells(oldest);
      book.deleteSheet(oldest);
      dropped++;
    }
    if (total + cells(ledger) > CELL_BUDGET) {
      return {
        made: false,
        dropped,
        skipped: `台帳が大きく、スプレッドシートのセル数の上限（1,000万）に収まらないため、バックアップしませんでした（台帳 ${cells(ledger).toLocaleString()} セル）。台帳の空の行・列を削除すると収まることがあります。`,
      };
    }
    const copy = ledger.copyTo(book).setName(name);
    copy.hideSheet();
    copy.protect().setDescription('kicho: 台帳のバックアップ').setWarningOnly(true);
    return { made: true, dropped, skipped: '' };
  });
  if (!done)
    return { ok: false, count: 0, messages: ['別の処理が実行中のため、バックアップは次の機会にします。'] };
  const { made, dropped, skipped } = done.value;
  if (skipped) return { ok: false, count: 0, messages: [skipped] };
  const messages = [
    made
      ? `台帳を「${name}」にコピーしました（非表示のシート）。`
      : `今日のバックアップ「${name}」はもうあります。`,
  ];
  if (dropped > 0) messages.push(`古いバックアップを ${dropped} 件削除しました（${keep} 世代を保存）。`);
  return { count: made ? 1 : 0, messages };
}

/**
 * The nightly slot: the backup, then — from the trigger, when アーカイブまでの月数 is set — 古い行をアーカイブ,
 * so the day's backup still holds the rows that move. A menu backup only backs up.
 */
export function runNightly(ctx: RunContext): RunResult {
  const backup = runBackup();
  if (!ctx.fromTrigger) return backup;
  const archive = runArchive(ctx);
  if (archive.off) return backup;
  return {
    ok: backup.ok !== false && archive.ok !== false,
    count: backup.count,
    messages: [...backup.messages, ...archive.messages.map((m) => `アーカイブ: ${m}`)],
    archived: archive.archived ?? 0,
  };
}

export function backupLedger(e?: unknown) {
  return runEntry('台帳のバックアップ', e, (ctx) => runNightly(ctx));
}
