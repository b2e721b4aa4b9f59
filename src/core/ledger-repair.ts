/**
 * 台帳 writes go by row number, and nothing keeps people out of a sheet: a person who sorts, inserts
 * or deletes rows between a run's read and its write moves rows under the write, which then lands on
 * other lines (a 完了 row back to 送信待ち, another line's MF仕訳ID). The writer therefore checks the
 * キー column after flushing and, when rows moved, rewrites every touched row by key. Pure.
 */
import { isMfKey, transactionIdOf } from './keys';
import {
  type ColumnWrite,
  cellText,
  columnWrites,
  type LedgerRecord,
  type LedgerRow,
  type LedgerTable,
  patchesByRow,
  type RowChange,
  setField,
  splitByOwner,
} from './ledger';
import { type LedgerHeader, PEOPLE_COLUMNS } from './schema';

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
 * What a sort under a write cost a row the write never read whole: a row outside a narrow read's span
 * (only キー・状態・操作・MF仕訳ID were read, and maybe long ago), or one added since the read (another
 * execution's append between two lock sections). A block landing on it wrote another row's values over
 * cells whose own values were never read, so they cannot be put back. What is known is made safe
 * instead: its 明細ID follows from its key, a 状態 or MF仕訳ID that may be another line's is cleared (a
 * 状態 outside §4 — reconcile looks the line up in MF: its journal found, 完了; none, a person decides
 * on 要確認), the other cells that may be another line's are emptied, and メモ says what happened.
 */
export const OVERWRITTEN_MEMO =
  '書き込みの最中に台帳が並べ替えられ、この行のセルの一部に別の行の値が入りました（元の値は読めていません）。照合でMFの仕訳を確かめ、仕訳があれば「完了」、なければ「要確認」にします。前に「除外」にしていた行なら、もう一度「除外」を選んでください。';

/** Line data only a write that changes it covers: a hit there leaves the row to a person. */
const LINE_DATA: ReadonlySet<LedgerHeader> = new Set(['取引日', '入出金', '金額', '摘要', '口座']);

/** The patch that makes a row safe whose `hit` cells may hold another row's values. */
export function overwrittenPatch(
  record: LedgerRecord,
  hit: ReadonlySet<LedgerHeader>,
  now: string,
): Partial<LedgerRecord> {
  const patch: Partial<LedgerRecord> = {};
  for (const h of hit) {
    if (h === '状態' || LINE_DATA.has(h)) patch.状態 = '';
    else if (h === '明細ID') patch.明細ID = isMfKey(record.キー) ? transactionIdOf(record.キー) : '';
    else if (h === '試行回数') patch.試行回数 = 0;
    else if (h !== '更新日時' && h !== 'メモ' && h !== 'キー' && !PEOPLE_COLUMNS.has(h))
      setField(patch, h, '');
  }
  if (hit.size > 0) {
    patch.更新日時 = now;
    patch.メモ = OVERWRITTEN_MEMO;
  }
  return patch;
}

/** A row with no key and none of a line's own fields: cells a write left below rows deleted under it. */
export function isDebris(record: LedgerRecord): boolean {
  return (['キー', '取引日', '金額', '摘要', '口座'] as const).every((h) => String(record[h]).trim() === '');
}

/** A row whose values are known, and what the write meant to change in it. */
interface Known {
  base: LedgerRecord;
  system: Partial<LedgerRecord>;
  people: Partial<LedgerRecord>;
}

/** A block that went out by position, with the header of each of its columns. */
interface Sent {
  write: ColumnWrite;
  headers: (LedgerHeader | undefined)[];
}

/**
 * One write's repair over its rounds (a person may sort again while it repairs). It knows what every
 * row it read whole should hold — as read plus the write's patch — over every column a block covered,
 * and which blocks went out by position since the last whole read. Against the whole 台帳 read after
 * rows moved it gives the changes that put known rows right (found by key) and make safe the rows it
 * never read that a block landed on (`overwrittenPatch`); from then on those rows are known as they are.
 */
export class WriteRepair {
  private readonly known = new Map<string, Known>();
  private readonly touched = new Set<LedgerHeader>();
  private sent: Sent[] = [];
  /** Every key any table of this write held (a sort only moves rows: it never makes a key). */
  private readonly seenKeys = new Set<string>();
  /** Row number → the occurrence key the blocks sent since the last read were meant for there. */
  private expectedAt = new Map<number, string>();

  constructor(before: LedgerTable, changes: readonly RowChange[]) {
    const whole = (n: number) => !before.partial || (n >= before.partial.first && n <= before.partial.last);
    const { system, people } = splitByOwner(changes);
    const systemByRow = patchesByRow(system);
    const peopleByRow = patchesByRow(people);
    const keys = occurrenceKeys(withPatchedKeys(before, changes));
    for (const r of before.rows) this.seenKeys.add(r.record.キー);
    for (const r of before.rows) {
      // A row read in part holds empty text for the columns not read: never written back as "read".
      if (!whole(r.rowNumber)) continue;
      this.known.set(keys.get(r.rowNumber) as string, {
        base: r.record,
        system: systemByRow.get(r.rowNumber) ?? {},
        people: peopleByRow.get(r.rowNumber) ?? {},
      });
    }
  }

  /** Blocks written by position, laid out by `table`'s columns. */
  wrote(table: LedgerTable, writes: readonly ColumnWrite[]): void {
    const headerAt = new Map<number, LedgerHeader>();
    for (const [h, col] of table.columns) headerAt.set(col + 1, h as LedgerHeader);
    const keys = occurrenceKeys(table);
    for (const r of table.rows) {
      this.seenKeys.add(r.record.キー);
      if (writes.some((w) => r.rowNumber >= w.firstRow && r.rowNumber < w.firstRow + w.values.length))
        this.expectedAt.set(r.rowNumber, keys.get(r.rowNumber) as string);
    }
    for (const write of writes) {
      const headers = write.values[0]?.map((_, j) => headerAt.get(write.column + j)) ?? [];
      for (const h of headers) if (h) this.touched.add(h);
      this.sent.push({ write, headers });
    }
  }

  /** Headers of a row's cells that hold exactly what a block sent since the last read put at its position. */
  private hits(row: LedgerRow): Set<LedgerHeader> {
    const hit = new Set<LedgerHeader>();
    for (const { write, headers } of this.sent) {
      const values = write.values[row.rowNumber - write.firstRow];
      if (!values) continue;
      const same = headers.every(
        (h, j) => h === undefined || String(cellText(values[j], h)) === String(row.record[h]),
      );
      if (same) for (const h of headers) if (h) hit.add(h);
    }
    return hit;
  }

  /**
   * The known row a person re-keyed in place under the write (simulation seed 981564, a one-character slip
   * typed on a 送信中 row's キー during the claim write): its key is new — no table of this write held it,
   * and a sort only moves rows — the key the blocks meant for its position is on no row now, and the line
   * cells no block covered still read as that row's. It is that row: it keeps what was meant for it (the
   * person's キー stays; the key check stops the row and 取込 / 照合 give its key back from its 明細ID),
   * rather than being made safe as a stranger's row, which derived its 明細ID from the mistyped key and left
   * the line's journal on no row.
   */
  private rekeyed(r: LedgerRow, nowKeys: ReadonlySet<string>): Known | null {
    if (this.seenKeys.has(r.record.キー)) return null;
    const meant = this.expectedAt.get(r.rowNumber);
    if (meant === undefined || nowKeys.has(meant)) return null;
    const known = this.known.get(meant);
    if (!known) return null;
    const line = [...LINE_DATA].filter((h) => !this.touched.has(h));
    if (line.length < LINE_DATA.size || String(known.base.取引日).trim() === '') return null;
    return line.every((h) => String(r.record[h]) === String(known.base[h])) ? known : null;
  }

  /** The changes that make `now` (the whole 台帳, read after rows moved) hold what is meant. */
  repairs(now: LedgerTable, nowIso: string): RowChange[] {
    const nowKeys = occurrenceKeys(now);
    const present = new Set(nowKeys.values());
    const out: RowChange[] = [];
    for (const r of now.rows) {
      const k = nowKeys.get(r.rowNumber) as string;
      let known = this.known.get(k);
      const rekeyed = known ? null : this.rekeyed(r, present);
      if (rekeyed) {
        known = rekeyed;
        this.known.set(k, rekeyed);
      }
      let want: Partial<LedgerRecord>;
      if (known) {
        want = {};
        for (const h of this.touched) setField(want, h, h in known.system ? known.system[h] : known.base[h]);
        Object.assign(want, known.people);
        // The person's key stands: kicho never writes over a キー a person typed.
        if (rekeyed) delete want.キー;
      } else if (isDebris(r.record)) {
        // No line in it: only a write put cells there (rows deleted under it); the writer clears them.
        want = {};
        this.known.set(k, { base: r.record, system: {}, people: {} });
      } else {
        want = overwrittenPatch(r.record, this.hits(r), nowIso);
        this.known.set(k, { base: { ...r.record, ...want }, system: {}, people: {} });
      }
      const fields = Object.keys(want) as LedgerHeader[];
      if (fields.some((h) => String(r.record[h]) !== String(want[h])))
        out.push({ key: r.record.キー, rowNumber: r.rowNumber, patch: want });
    }
    this.sent = [];
    this.expectedAt = new Map();
    for (const r of now.rows) this.seenKeys.add(r.record.キー);
    return out;
  }
}

/**
 * What to write now so that every row holds what the interrupted write meant (one round of
 * {@link WriteRepair}, for a table read whole): over the system columns that write touched, each key
 * gets its value as read before plus its patch; the people-owned cells it meant to change get their
 * patch. People-owned cells it did not mean to change are never written. Rows already right are left
 * alone, so a later sort that moved correctly written rows costs nothing.
 */
export function repairChanges(
  before: LedgerTable,
  changes: readonly RowChange[],
  now: LedgerTable,
  nowIso = '',
): RowChange[] {
  const repair = new WriteRepair(before, changes);
  repair.wrote(before, columnWrites(before, changes));
  return repair.repairs(now, nowIso);
}
