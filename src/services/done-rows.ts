/**
 * Sent rows that disappear (issue 14): people delete rows — 7 of 33 完了 rows is far above the
 * lost-ledger guard's "under half", yet each is a journal the 台帳 no longer knows; a 不明 or 送信中 row
 * deleted may be one too. A script property keeps how many rows of each kind of line are sent (完了
 * with an MF仕訳ID, 不明, 送信中). Every 台帳 write under the lock moves the mark by what it changed
 * (a claim adds a row, a send that went back to 送信待ち takes it off), so it falls only with kicho's
 * own transitions: a run that reads fewer sent rows than the mark says so — in its summary and ログ,
 * and in the dry run — with the way back, until 台帳を復元 (or the CSV imported again) has brought
 * them back.
 */

import type { DoneCounts } from '../core/archive-ports';
import { isEvtKey } from '../core/events';
import { isCsvKey } from '../core/keys';
import type { LedgerRecord, LedgerTable, RowChange } from '../core/ledger';
import { archivedCounts } from '../gas/archive-sheet';
import { scriptProperties } from '../gas/properties';

const DONE_ROWS = 'KICHO_DONE_ROWS';

export type { DoneCounts };

/** CSV lines and events from other automations (evt:) come back the same way: sent again, found by tag. */
function kind(key: string): keyof DoneCounts {
  return isCsvKey(key) || isEvtKey(key) ? 'csv' : 'mf';
}

/** A row whose line may have a journal in MF. */
function sent(record: Pick<LedgerRecord, '状態' | 'MF仕訳ID'>): boolean {
  const state = String(record.状態);
  return (
    state === '送信中' || state === '不明' || (state === '完了' && String(record.MF仕訳ID).trim() !== '')
  );
}

export function doneCounts(table: LedgerTable): DoneCounts {
  const c: DoneCounts = { mf: 0, csv: 0 };
  for (const r of table.rows) if (sent(r.record)) c[kind(r.record.キー)] += 1;
  return c;
}

/**
 * Sent rows of the 台帳 plus those moved to 台帳アーカイブ (issue 18): an archived 完了 row is not a row
 * gone. The archive's counts come from the index's mirror in script properties (no Sheets call).
 */
export function doneCountsWithArchive(table: LedgerTable): DoneCounts {
  const live = doneCounts(table);
  const a = archivedCounts();
  return { mf: live.mf + a.mf, csv: live.csv + a.csv };
}

/**
 * After an archive run dropped archive copies of rows the 台帳 also held (an earlier run stopped between
 * its copy and its removal): while they were in both places they counted twice, and a watch may have
 * raised the mark by them. The mark comes down by them, never below what is there now.
 */
export function settleDoubleCounted(now: DoneCounts, doubled: DoneCounts): void {
  if (doubled.mf === 0 && doubled.csv === 0) return;
  const last = lastDoneRows();
  if (!last) return;
  const next = {
    mf: Math.max(now.mf, Math.min(last.mf, last.mf - doubled.mf)),
    csv: Math.max(now.csv, Math.min(last.csv, last.csv - doubled.csv)),
  };
  if (next.mf !== last.mf || next.csv !== last.csv) store(next);
}

/** The mark: sent rows counted so far, by kind (null before the first count). */
export function lastDoneRows(): DoneCounts | null {
  try {
    const v = JSON.parse(scriptProperties().getProperty(DONE_ROWS) ?? 'null');
    return v && typeof v.mf === 'number' && typeof v.csv === 'number' ? { mf: v.mf, csv: v.csv } : null;
  } catch (_e) {
    return null;
  }
}

function store(c: DoneCounts): void {
  scriptProperties().setProperty(
    DONE_ROWS,
    JSON.stringify({ mf: Math.max(0, c.mf), csv: Math.max(0, c.csv) }),
  );
}

const TAGGED_GONE = 'KICHO_TAGGED_GONE';

/**
 * Whether a sent CSV or event row ever went missing from the 台帳 (simulation seed 950018). A resent
 * event is found in MF by its tag among the journals of its own date — but a person may have changed
 * the row's 取引日 before it was posted (an event's key does not hold its date; a CSV key does, and a
 * CSV row with another date is never sent), and its journal is dated where the person put it. From
 * then on the tag is looked for in the whole accounting period (mf/lookup.ts `journalsByTag`, wide). Kept
 * once set: 台帳を復元 lowers the mark but cannot bring these rows back, and an event may come back any day.
 */
export function taggedRowsWentMissing(): boolean {
  return scriptProperties().getProperty(TAGGED_GONE) !== null;
}

/** Records that sent CSV or event rows are gone (`last` the mark, `now` what the 台帳 holds). */
export function noteTaggedGone(last: DoneCounts | null, now: DoneCounts): void {
  if (!last || last.csv <= now.csv) return;
  const props = scriptProperties();
  if (props.getProperty(TAGGED_GONE) === null) props.setProperty(TAGGED_GONE, new Date().toISOString());
}

/** The message for sent rows gone since the mark, or null. */
export function goneMessage(last: DoneCounts | null, now: DoneCounts): string | null {
  if (!last) return null;
  const mf = Math.max(0, last.mf - now.mf);
  const csv = Math.max(0, last.csv - now.csv);
  if (mf + csv === 0) return null;
  const ways: string[] = [];
  if (mf > 0) ways.push(`MFの明細の行（${mf} 行）はメニュー「記帳 > 台帳 > 台帳を復元」で`);
  if (csv > 0)
    ways.push(
      `CSVの行・送信元から届いたイベントの行（${csv} 行）は同じCSVをもう一度取り込むか、送信元から同じイベントを送り直すと（MFの仕訳のタグで照合して「完了」として）`,
    );
  return `MFに送った行（完了・不明・送信中）が ${mf + csv} 行なくなっています（前に数えたとき ${last.mf + last.csv} 行、今 ${now.mf + now.csv} 行）。行が削除されたか、状態が書き換えられた可能性があります。${ways.join('、')}戻せます。MFの仕訳はそのまま残っています。`;
}

/**
 * On a full read under the lock: the message when sent rows went missing since the mark; a count above
 * the mark (the first count, a person's own 完了 …) raises it.
 */
export function watchDoneRows(table: LedgerTable): string | null {
  const last = lastDoneRows();
  const now = doneCountsWithArchive(table);
  const message = goneMessage(last, now);
  noteTaggedGone(last, now);
  const next = last ? { mf: Math.max(last.mf, now.mf), csv: Math.max(last.csv, now.csv) } : now;
  if (!last || next.mf !== last.mf || next.csv !== last.csv) store(next);
  return message;
}

/**
 * How a write moves the mark: a claim puts a row among the sent ones (up), a send that came back unsent
 * (settle to 送信待ち / 要確認 / 失敗, reconcile finding nothing) takes it off (down), and so does a 完了 row
 * whose journal is gone from MF (重複を削除 made it 除外, or the journal check sent it to 要確認). Only these move the
 * mark: every other way a row becomes sent (reconcile finding a journal for a row a person changed,
 * intake, 台帳を復元) may be a row the mark still counts, and a count above the mark raises it at the
 * next watch.
 */
export function sentMoves(
  table: LedgerTable,
  changes: readonly RowChange[],
): { up: DoneCounts; down: DoneCounts } {
  const before = new Map(table.rows.map((r) => [r.rowNumber, r.record]));
  const up: DoneCounts = { mf: 0, csv: 0 };
  const down: DoneCounts = { mf: 0, csv: 0 };
  for (const c of changes) {
    const was = before.get(c.rowNumber);
    const to = c.patch.状態;
    if (!was || typeof to !== 'string') continue;
    const from = was.状態;
    if (to === '送信中' && !sent(was)) up[kind(was.キー)] += 1;
    else if ((from === '送信中' || from === '不明') && UNSENT.has(to)) down[kind(was.キー)] += 1;
    // A 完了 row whose journal kicho deleted (重複を削除 → 除外) or found gone from MF (→ 要確認).
    else if (from === '完了' && sent(was) && UNSENT.has(to)) down[kind(was.キー)] += 1;
  }
  return { up, down };
}

function move(by: DoneCounts, sign: 1 | -1): void {
  if (by.mf === 0 && by.csv === 0) return;
  const last = lastDoneRows() ?? { mf: 0, csv: 0 };
  store({ mf: last.mf + sign * by.mf, csv: last.csv + sign * by.csv });
}

/**
 * A 台帳 write under the lock with the mark kept in step. The mark rises before the write and falls
 * after it: a run killed in between leaves the mark too high (a false "rows gone", cleared by 台帳を復元)
 * rather than too low (a deleted row the count would hide).
 */
export function withSentMark<T extends { withheld: readonly RowChange[] }>(
  table: LedgerTable,
  changes: readonly RowChange[],
  write: () => T,
): T {
  const planned = sentMoves(table, changes);
  move(planned.up, 1);
  const written = write();
  const held = new Set(written.withheld.map((c) => c.rowNumber));
  const notWritten = sentMoves(
    table,
    changes.filter((c) => held.has(c.rowNumber)),
  );
  move(notWritten.up, -1);
  const done = sentMoves(
    table,
    changes.filter((c) => !held.has(c.rowNumber)),
  );
  move(done.down, -1);
  return written;
}

/** After a write under the lock that has no claims in it (reconcile, intake): rows sent back lower the mark. */
export function noteCompleted(table: LedgerTable, changes: readonly RowChange[]): void {
  const { up, down } = sentMoves(table, changes);
  move(up, 1);
  move(down, -1);
}

const UNSENT = new Set(['送信待ち', '要確認', '失敗', '除外']);

/** 台帳を復元 (a person's explicit act): the mark becomes what the 台帳 now holds. */
export function resetDoneRows(counts: DoneCounts): void {
  store(counts);
}
