/**
 * 台帳 writes go by row number, and nothing keeps people out of a sheet: a person who sorts, inserts
 * or deletes rows between a run's read and its write moves rows under the write, which then lands on
 * other lines (a 完了 row back to 送信待ち, another line's MF仕訳ID). The writer therefore checks the
 * キー column after flushing and, when rows moved, rewrites every touched row by key. Pure.
 */
import { columnWrites, type LedgerRecord, type LedgerTable, type RowChange } from './ledger';
import type { LedgerHeader } from './schema';

/** True when some row read in `table` no longer holds its key at its row number. */
export function rowsMoved(table: LedgerTable, keysNow: readonly unknown[], firstDataRow = 2): boolean {
  return table.rows.some((r) => String(keysNow[r.rowNumber - firstDataRow] ?? '') !== String(r.record.キー));
}

/** Occurrence-aware key: a duplicated key's first row is `k#0`, its second `k#1` (the guard marks both). */
function occurrenceKeys(table: LedgerTable): Map<number, string> {
  const seen = new Map<string, number>();
  const out = new Map<number, string>();
  for (const r of table.rows) {
    const k = String(r.record.キー);
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    out.set(r.rowNumber, `${k}#${n}`);
  }
  return out;
}

/**
 * What to write now so that every row holds what the interrupted write meant: over the columns that
 * write touched, each key gets its value as read before plus its patch. Rows already right are left
 * alone, so a later sort that moved correctly written rows costs nothing.
 */
export function repairChanges(
  before: LedgerTable,
  changes: readonly RowChange[],
  now: LedgerTable,
): RowChange[] {
  const writes = columnWrites(before, changes);
  if (writes.length === 0) return [];
  const headerAt = new Map<number, LedgerHeader>();
  for (const [h, col] of before.columns) headerAt.set(col + 1, h as LedgerHeader);
  const touched: LedgerHeader[] = [];
  for (const w of writes) {
    for (let c = w.column; c < w.column + w.values[0].length; c++) {
      const h = headerAt.get(c);
      if (h) touched.push(h);
    }
  }
  const patchByRow = new Map<number, Partial<LedgerRecord>>();
  for (const c of changes) patchByRow.set(c.rowNumber, { ...patchByRow.get(c.rowNumber), ...c.patch });
  const beforeKeys = occurrenceKeys(before);
  const intended = new Map<string, Partial<LedgerRecord>>();
  for (const r of before.rows) {
    const patch = patchByRow.get(r.rowNumber) ?? {};
    const want: Partial<LedgerRecord> = {};
    for (const h of touched) want[h] = h in patch ? patch[h] : r.record[h];
    intended.set(beforeKeys.get(r.rowNumber) as string, want);
  }
  const nowKeys = occurrenceKeys(now);
  const repairs: RowChange[] = [];
  for (const r of now.rows) {
    const want = intended.get(nowKeys.get(r.rowNumber) as string);
    if (!want) continue; // a row added since the read: the interrupted write never meant it
    const wrong = touched.some((h) => String(r.record[h]) !== String(want[h]));
    if (wrong) repairs.push({ key: String(r.record.キー), rowNumber: r.rowNumber, patch: want });
  }
  return repairs;
}
