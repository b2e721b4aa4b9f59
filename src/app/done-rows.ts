/**
 * Completed rows that disappear (DESIGN §5 guards, issue 14): people delete rows — 7 of 33 完了 rows is
 * far above the lost-ledger guard's "under half", yet each is a journal the 台帳 no longer knows. A
 * script property keeps how many 完了 rows (with an MF仕訳ID) each kind of line has; it rises with every
 * row kicho completes and never falls by itself, so a run that reads fewer says so — in its summary
 * and ログ, and in the dry run — with the way back, until 台帳を復元 (or the CSV imported again) has
 * brought them back. Read and written under the script lock, next to the 台帳 reads and writes.
 */
import { isCsvKey } from '../core/keys';
import type { LedgerRecord, LedgerTable, RowChange } from '../core/ledger';

const DONE_ROWS = 'KICHO_DONE_ROWS';

export interface DoneCounts {
  mf: number;
  csv: number;
}

function kind(key: string): keyof DoneCounts {
  return isCsvKey(key) ? 'csv' : 'mf';
}

function done(record: LedgerRecord): boolean {
  return record.状態 === '完了' && String(record.MF仕訳ID).trim() !== '';
}

export function doneCounts(table: LedgerTable): DoneCounts {
  const c: DoneCounts = { mf: 0, csv: 0 };
  for (const r of table.rows) if (done(r.record)) c[kind(String(r.record.キー))] += 1;
  return c;
}

/** The mark: completed rows counted so far, by kind (null before the first count). */
export function lastDoneRows(): DoneCounts | null {
  try {
    const v = JSON.parse(PropertiesService.getScriptProperties().getProperty(DONE_ROWS) ?? 'null');
    return v && typeof v.mf === 'number' && typeof v.csv === 'number' ? { mf: v.mf, csv: v.csv } : null;
  } catch (_e) {
    return null;
  }
}

function store(c: DoneCounts): void {
  PropertiesService.getScriptProperties().setProperty(DONE_ROWS, JSON.stringify(c));
}

/** The message for completed rows gone since the mark, or null. */
export function goneMessage(last: DoneCounts | null, now: DoneCounts): string | null {
  if (!last) return null;
  const mf = Math.max(0, last.mf - now.mf);
  const csv = Math.max(0, last.csv - now.csv);
  if (mf + csv === 0) return null;
  const ways: string[] = [];
  if (mf > 0) ways.push(`MFの明細の行（${mf} 行）はメニュー「記帳 > 台帳を復元」で`);
  if (csv > 0)
    ways.push(`CSVの行（${csv} 行）は同じCSVをもう一度取り込むと（MFの仕訳のタグで照合して「完了」として）`);
  return `「完了」の行が ${mf + csv} 行なくなっています（前に数えたとき ${last.mf + last.csv} 行、今 ${now.mf + now.csv} 行）。行が削除されたか、状態が書き換えられた可能性があります。${ways.join('、')}戻せます。MFの仕訳はそのまま残っています。`;
}

/**
 * On a full read under the lock: the message when completed rows went missing since the mark; the mark
 * rises to what is there (never falls).
 */
export function watchDoneRows(table: LedgerTable): string | null {
  const last = lastDoneRows();
  const now = doneCounts(table);
  const message = goneMessage(last, now);
  const next = last ? { mf: Math.max(last.mf, now.mf), csv: Math.max(last.csv, now.csv) } : now;
  if (!last || next.mf !== last.mf || next.csv !== last.csv) store(next);
  return message;
}

/** After a write under the lock: the rows it completed raise the mark. */
export function noteCompleted(changes: readonly RowChange[]): void {
  const add: DoneCounts = { mf: 0, csv: 0 };
  for (const c of changes) {
    if (c.patch.状態 !== '完了' || String(c.patch.MF仕訳ID ?? '').trim() === '') continue;
    add[kind(c.key)] += 1;
  }
  if (add.mf + add.csv === 0) return;
  const last = lastDoneRows() ?? { mf: 0, csv: 0 };
  store({ mf: last.mf + add.mf, csv: last.csv + add.csv });
}

/** Rows appended as 完了 (a CSV line MF already has) raise the mark too. */
export function noteAppended(records: readonly LedgerRecord[]): void {
  noteCompleted(
    records.map((r) => ({
      key: String(r.キー),
      rowNumber: 0,
      patch: { 状態: r.状態, MF仕訳ID: r.MF仕訳ID },
    })),
  );
}

/** 台帳を復元 (a person's explicit act): the mark becomes what the 台帳 now holds. */
export function resetDoneRows(counts: DoneCounts): void {
  store(counts);
}
