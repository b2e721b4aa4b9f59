/**
 * Rewrites the 要確認 sheet from the 台帳 (one clear, one write); 行 links to the 台帳 row.
 *
 * Two ways to find the rows (issue 18). The full check reads every row whole: it is the only one that
 * sees a 完了 row edited after posting (指紋 against nine columns of every row), a 完了 row whose
 * MF仕訳ID or key was changed, a row whose キー and 状態 were both cleared. It runs from the menu
 * 「要確認を開く」 and at the end of a scheduled run once every {@link FULL_REVIEW_EVERY_MS} (or after
 * any run that read the whole 台帳 anyway: 照合, the AI's write-back). Every
 * other refresh reads キー and 状態 of every row and then, whole, the rows that can be listed from those
 * alone (every state but 完了 and 除外) and the rows the 要確認 sheet lists now (by key): a row once
 * found edited stays listed, re-checked from its own cells, until it is put right. So an edited row
 * reaches 要確認 within a day (at once with the menu), and the refresh reads two columns, not 22.
 * Nothing here changes a 台帳 row: no row is sent again because of it.
 */

import type { LedgerRow, LedgerTable } from '../core/ledger';
import { type ReviewItem, reviewItems } from '../core/review';
import { SHEET, SHEET_SPECS } from '../core/schema';
import { OwnFormula } from '../gas/cells';
import { type ColumnScan, type NarrowLedger, narrowLedger } from '../gas/ledger-scan';
import { ledgerSheet, readLedger } from '../gas/ledger-sheet';
import { scriptProperties } from '../gas/properties';
import { activeBook, appendRecords, replaceDataRows, systemSheet } from '../gas/workbook';
import { archiveIndexNotice } from './archive-index';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** How often a scheduled or triggered refresh does the full check. */
export const FULL_REVIEW_EVERY_MS = 24 * 3_600_000;
const FULL_AT = 'KICHO_REVIEW_FULL_AT';

/** Whether the full check is due (never done, or done more than a day ago). */
export function fullReviewDue(nowMs = Date.now()): boolean {
  const at = Number(scriptProperties().getProperty(FULL_AT) ?? '');
  return !Number.isFinite(at) || at <= 0 || nowMs - at >= FULL_REVIEW_EVERY_MS || nowMs < at;
}

function noteFullReview(nowMs: number): void {
  scriptProperties().setProperty(FULL_AT, String(nowMs));
}

/** States whose rows are listed for their 状態 alone (or may be); 完了 and 除外 are listed only by the full check. */
const SETTLED = new Set(['完了', '除外']);

/** The keys the 要確認 sheet lists now (one read; none when the sheet is missing). */
export function listedReviewKeys(): Set<string> {
  const sheet = activeBook().getSheetByName(SHEET.review);
  if (!sheet) return new Set();
  const values = sheet.getDataRange().getValues();
  const col = (values[0] ?? []).findIndex((h) => String(h).trim() === 'キー');
  if (col < 0) return new Set();
  return new Set(
    values
      .slice(1)
      .map((r) => String(r[col] ?? '').trim())
      .filter((k) => k !== ''),
  );
}

/** Rows of the scan a narrow refresh reads whole: every state but 完了/除外, and the rows listed now. */
export function reviewRowsOf(scan: ColumnScan, listed: ReadonlySet<string>): number[] {
  return scan.rows
    .filter((r) => !SETTLED.has(r.record.状態) || listed.has(r.record.キー.trim()))
    .map((r) => r.rowNumber);
}

/** The 台帳 as a narrow refresh needs it, when no run has read it for its own work. */
export function reviewLedger(sheet: Sheet = ledgerSheet()): NarrowLedger {
  const listed = listedReviewKeys();
  return narrowLedger(
    sheet,
    ['キー', '状態'],
    () => [],
    (scan) => reviewRowsOf(scan, listed),
  );
}

function reviewRecord(i: ReviewItem, ledgerId: number): Record<string, unknown> {
  return {
    キー: i.record.キー,
    状態: i.record.状態,
    取引日: i.record.取引日,
    金額: i.record.金額,
    摘要: i.record.摘要,
    理由: i.reason,
    対応: i.action,
    行: OwnFormula.ledgerRow(ledgerId, i.rowNumber),
  };
}

function write(table: LedgerTable, graceMinutes: number): number {
  const items = reviewItems(table, Date.now(), graceMinutes * 60_000);
  const ledgerId = ledgerSheet().getSheetId();
  // A sheet-level problem first: the archive's key index gone or unreadable stops import and posting.
  const notice = archiveIndexNotice();
  const notices = notice
    ? [
        {
          キー: '',
          状態: '',
          取引日: '',
          金額: '',
          摘要: notice.sheet,
          理由: notice.reason,
          対応: notice.action,
          行: '',
        },
      ]
    : [];
  replaceDataRows(SHEET.review, [...notices, ...items.map((i) => reviewRecord(i, ledgerId))]);
  return items.length + notices.length;
}

/**
 * Adds rows to the 要確認 sheet now, without a refresh (the web app, under the lock, for an id sent again
 * with other content): a 完了 row is listed at once rather than at the next full check, and stays listed —
 * each refresh re-reads the rows the sheet lists — until a person puts it right.
 */
export function listOnReview(rows: readonly LedgerRow[], graceMinutes: number): void {
  if (rows.length === 0) return;
  const listed = listedReviewKeys();
  const items = reviewItems(
    { columns: new Map(), width: 0, rows: [...rows] },
    Date.now(),
    graceMinutes * 60_000,
  );
  const fresh = items.filter((i) => !listed.has(i.record.キー.trim()));
  if (fresh.length === 0) return;
  const ledgerId = ledgerSheet().getSheetId();
  const sheet = systemSheet(
    SHEET.review,
    SHEET_SPECS.find((spec) => spec.name === SHEET.review)?.headers ?? [],
  );
  appendRecords(
    sheet,
    fresh.map((i) => reviewRecord(i, ledgerId)),
  );
}

/**
 * The refresh from a table: the full check when every row of it was read whole (then noted, so the
 * scheduled runs do it again a day later), else from the rows `whole` says were read whole.
 */
export function refreshReviewSheet(
  table: LedgerTable,
  graceMinutes: number,
  whole?: ReadonlySet<number>,
): number {
  if (!table.partial && !whole) {
    const count = write(table, graceMinutes);
    noteFullReview(Date.now());
    return count;
  }
  const span = table.partial;
  const rows = table.rows.filter((r) =>
    whole ? whole.has(r.rowNumber) : !!span && r.rowNumber >= span.first && r.rowNumber <= span.last,
  );
  return write({ ...table, rows }, graceMinutes);
}

/**
 * A refresh on its own (the end of a scheduled run, the menu): the full check when `full`, else the
 * narrow one. `table` is the whole 台帳 when it was read whole (for the other once-a-day work).
 */
export function refreshReview(
  graceMinutes: number,
  full: boolean,
): { count: number; table: LedgerTable | null } {
  const sheet = ledgerSheet();
  if (full) {
    const table = readLedger(sheet);
    return { count: refreshReviewSheet(table, graceMinutes), table };
  }
  const narrow = reviewLedger(sheet);
  if (narrow.scan === null)
    return { count: refreshReviewSheet(narrow.table, graceMinutes), table: narrow.table };
  return { count: refreshReviewSheet(narrow.table, graceMinutes, narrow.whole), table: null };
}
