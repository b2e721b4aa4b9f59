/**
 * 台帳 writes go by row number, and nothing keeps people out of a sheet: a person who sorts, inserts
 * or deletes rows between a run's read and its write moves rows under the write, which then lands on
 * other lines (a 完了 row back to 送信待ち, another line's MF仕訳ID). The writer therefore checks the
 * キー column after flushing and, when rows moved, rewrites every touched row by key. Pure.
 */
import {
  columnWrites,
  type LedgerRecord,
  type LedgerTable,
  patchesByRow,
  type RowChange,
  setField,
  splitByOwner,
} from './ledger';
import type { LedgerHeader } from './schema';

/** True when some row read in `table` no longer holds its key at its row number. */
export function rowsMoved(table: LedgerTable, keysNow: readonly unknown[], firstDataRow = 2): boolean {
  return table.rows.some((r) => String(keysNow[r.rowNumber - firstDataRow] ?? '') !== r.record.キー);
}

/** `table` as the write means it to be keyed: a change may set キー itself (a key put back by intake). */
export function withPatchedKeys(table: LedgerTable, changes: readonly RowChange[]): LedgerTable {
  const keyAt = new Map<number, string | number>();
  for (const c of changes) if (c.patch.キー !== undefined) keyAt.set(c.rowNumber, c.patch.キー);
  if (keyAt.size === 0) return table;
  return {
    ...table,
    rows: table.rows.map((r) =>
      keyAt.has(r.rowNumber)
        ? { rowNumber: r.rowNumber, record: { ...r.record, キー: keyAt.get(r.rowNumber) as string } }
        : r,
    ),
  };
}

/** Occurrence-aware key: a duplicated key's first row is `k#0`, its second `k#1` (the guard marks both). */
export function occurrenceKeys(table: LedgerTable): Map<number, string> {
  const seen = new Map<string, number>();
  const out = new Map<number, string>();
  for (const r of table.rows) {
    const k = r.record.キー;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    out.set(r.rowNumber, `${k}#${n}`);
  }
  return out;
}

/**
 * What to write now so that every row holds what the interrupted write meant: over the system columns
 * that write touched, each key gets its value as read before plus its patch; the people-owned cells it
 * meant to change get their patch. People-owned cells it did not mean to change are never written. Rows
 * already right are left alone, so a later sort that moved correctly written rows costs nothing.
 */
export function repairChanges(
  before: LedgerTable,
  changes: readonly RowChange[],
  now: LedgerTable,
): RowChange[] {
  const writes = columnWrites(before, changes);
  const { people } = splitByOwner(changes);
  if (writes.length === 0 && people.length === 0) return [];
  const headerAt = new Map<number, LedgerHeader>();
  for (const [h, col] of before.columns) headerAt.set(col + 1, h as LedgerHeader);
  const touched: LedgerHeader[] = [];
  for (const w of writes) {
    for (let c = w.column; c < w.column + w.values[0].length; c++) {
      const h = headerAt.get(c);
      if (h) touched.push(h);
    }
  }
  const patchByRow = patchesByRow(splitByOwner(changes).system);
  const peopleByRow = patchesByRow(people);
  const beforeKeys = occurrenceKeys(withPatchedKeys(before, changes));
  const intended = new Map<string, Partial<LedgerRecord>>();
  for (const r of before.rows) {
    const patch = patchByRow.get(r.rowNumber) ?? {};
    const want: Partial<LedgerRecord> = {};
    for (const h of touched) setField(want, h, h in patch ? patch[h] : r.record[h]);
    Object.assign(want, peopleByRow.get(r.rowNumber));
    if (Object.keys(want).length > 0) intended.set(beforeKeys.get(r.rowNumber) as string, want);
  }
  const nowKeys = occurrenceKeys(now);
  const repairs: RowChange[] = [];
  for (const r of now.rows) {
    const want = intended.get(nowKeys.get(r.rowNumber) as string);
    if (!want) continue; // a row added since the read: the interrupted write never meant it
    const fields = Object.keys(want) as LedgerHeader[];
    const wrong = fields.some((h) => String(r.record[h]) !== String(want[h]));
    if (wrong) repairs.push({ key: r.record.キー, rowNumber: r.rowNumber, patch: want });
  }
  return repairs;
}
