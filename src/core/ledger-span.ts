/**
 * The rules of the 台帳's narrow reads (issue 18; src/gas/ledger-scan.ts makes the reads): which rows a
 * run may act on and so reads whole, which scanned rows are 台帳 rows at all, and whether rows moved
 * between a scan and a later read (a person sorting, inserting or deleting rows). Pure.
 */
import type { LedgerRecord, LedgerRow, RowChange } from './ledger';
import type { LedgerHeader } from './schema';

/** The columns the posting loop reads for every row. */
export const SCANNED: readonly LedgerHeader[] = ['キー', '状態', '操作', 'MF仕訳ID'];

/** States of rows the posting loop claims, settles or resends. */
const ACTIVE: ReadonlySet<string> = new Set(['送信待ち', '送信中', '不明']);

/** A scanned row is a row when it has a key or a 状態 (the posting scan's rule). */
export function isScannedRow(record: LedgerRecord): boolean {
  return !(record.キー.trim() === '' && record.状態.trim() === '');
}

/**
 * The span of rows (first..last; last < first for none) the posting loop may act on, read whole: rows
 * 送信待ち / 送信中 / 不明, rows with an 操作, rows whose key is on another row too or is empty.
 */
export function postingSpan(rows: readonly LedgerRow[]): { first: number; last: number } {
  const keys = new Map<string, number>();
  for (const r of rows) {
    const k = r.record.キー;
    if (k.trim() !== '') keys.set(k, (keys.get(k) ?? 0) + 1);
  }
  let first = 0;
  let last = -1;
  for (const { rowNumber, record } of rows) {
    const key = record.キー;
    const active =
      ACTIVE.has(record.状態) || record.操作.trim() !== '' || (keys.get(key) ?? 0) > 1 || key.trim() === '';
    if (active) {
      if (last < first) first = rowNumber;
      last = rowNumber;
    }
  }
  return { first, last };
}

/** Whether every row of the span (first..last) still holds the key it held at the scan. */
export function spanStillHolds(
  scanned: readonly LedgerRow[],
  span: readonly LedgerRow[],
  first: number,
  last: number,
): boolean {
  const before = scanned.filter((r) => r.rowNumber >= first && r.rowNumber <= last);
  const now = new Map(span.map((r) => [r.rowNumber, r.record.キー]));
  return before.every((r) => now.get(r.rowNumber) === r.record.キー) && span.length >= before.length;
}

/**
 * Whether rows first..last read whole (`got`) show rows moved since the scan: a row there no longer
 * holds the key the scan read, or a row the scan did not see (blank then) has a key now.
 */
export function movedSinceScan(
  scanned: readonly LedgerRow[],
  got: readonly LedgerRow[],
  first: number,
  last: number,
): boolean {
  const keyAt = new Map(got.map((r) => [r.rowNumber, r.record.キー]));
  for (const r of scanned) {
    if (r.rowNumber < first || r.rowNumber > last) continue;
    if (keyAt.get(r.rowNumber) !== r.record.キー) return true;
  }
  const seen = new Set(scanned.map((r) => r.rowNumber));
  return got.some((r) => !seen.has(r.rowNumber) && r.record.キー.trim() !== '');
}

/** The changes whose row still holds their key in `whole` (the others are found again next run). */
export function stillKeyed(changes: readonly RowChange[], whole: readonly LedgerRow[]): RowChange[] {
  const keyAt = new Map(whole.map((r) => [r.rowNumber, r.record.キー]));
  return changes.filter((c) => keyAt.get(c.rowNumber) === c.key);
}

/** The cells that make a row a 台帳 row for parseLedger. */
const IDENTITY: ReadonlySet<LedgerHeader> = new Set(['キー', '状態', '明細ID']);

/**
 * Whether a row of a column scan over `headers` is a row: one of キー, 状態 and 明細ID among them is
 * set (as parseLedger counts rows), or, without those columns, any of them.
 */
export function columnScanRow(headers: readonly LedgerHeader[]): (record: LedgerRecord) => boolean {
  const identity = headers.some((h) => IDENTITY.has(h)) ? headers.filter((h) => IDENTITY.has(h)) : headers;
  return (record) => !identity.every((h) => String(record[h]).trim() === '');
}
