/**
 * The decisions of a 台帳 settle write (DESIGN §4, §5; step 5 of the posting protocol, and every other
 * write of the 台帳): which cells go where, which rows are left to the people who typed in them, which
 * rows a person's sort moved so that they are put back by key, and which keys are given back. Sheets
 * has no conditional write, so the write is a short exchange — write, read, decide, write — and each
 * function here is one of its decisions, over what was read and what is wanted. Pure:
 * src/gas/ledger-sheet.ts makes the calls these name, in the order it lists them.
 */
import { keyProblem } from './key-check';
import { csvKey, mfKey } from './keys';
import {
  type ColumnWrite,
  cellText,
  columnWrites,
  indexByKey,
  keyCellText,
  type LedgerRecord,
  type LedgerRow,
  type LedgerTable,
  type PeopleWrite,
  peopleWrites,
  type RowChange,
  setField,
  splitByOwner,
} from './ledger';
import { isDebris, occurrenceKeys, rowsMoved, WriteRepair, withPatchedKeys } from './ledger-repair';
import { LEDGER_HEADERS, type LedgerHeader, PEOPLE_COLUMNS } from './schema';

/** A rectangle of the 台帳 to read (1-based; the arguments of Sheet.getRange). */
export interface GridBox {
  row: number;
  column: number;
  rows: number;
  columns: number;
}

/** Cells as a read returned them, with the sheet position of their top-left cell. */
export interface GridRead {
  grid: readonly (readonly unknown[])[];
  row: number;
  column: number;
}

/** Columns (1-based, inclusive) a set of written blocks covers. */
export interface ColumnSpan {
  left: number;
  right: number;
}

/** How many times a write is redone when people keep moving rows under it. */
export const REPAIR_ROUNDS = 3;

/** Rounds of write-and-check for key restores (a person sorting all the while). */
export const KEY_ROUNDS = 4;

export const SORTED_TOO_OFTEN =
  '書き込み中に台帳の行が何度も並べ替えられたため中断しました。並べ替えをやめてから、もう一度実行してください。';

/** The columns (1-based) the blocks cover, or null for none. */
export function blockColumns(
  blocks: readonly { column: number; cells: readonly (readonly unknown[])[] }[],
): ColumnSpan | null {
  if (blocks.length === 0) return null;
  return {
    left: Math.min(...blocks.map((b) => b.column)),
    right: Math.max(...blocks.map((b) => b.column + b.cells[0].length - 1)),
  };
}

// ---- Yielding to people ---------------------------------------------------------------------------

/** The people-owned columns whose cells differ between two reads of a row (a person typed meanwhile). */
export function peopleEdits(before: LedgerRecord, now: LedgerRecord): LedgerHeader[] {
  return [...PEOPLE_COLUMNS].filter(
    (h) => String(before[h as LedgerHeader]) !== String(now[h as LedgerHeader]),
  ) as LedgerHeader[];
}

/**
 * What happens to people-owned cells after the system cells went out: `check` — read them once more
 * (with the keys) and yield to any person who typed since the read, for the changes in `rows`: those
 * that write people-owned cells, and those `yieldRows` names (the claim: a row must not be sent on
 * what a person has just corrected); `none` — nothing to check and nothing to write. The build without
 * the yield (src/core/safety.ts) writes them blind.
 */
export type PeopleStep =
  | { kind: 'check'; rows: RowChange[] }
  | { kind: 'none' }
  | { kind: 'blind'; people: PeopleWrite[] };

export function peopleStep(
  table: LedgerTable,
  changes: readonly RowChange[],
  yieldRows: boolean | ((change: RowChange) => boolean) | undefined,
  yieldToPeople: boolean,
): PeopleStep {
  if (!yieldToPeople) return { kind: 'blind', people: peopleWrites(table, changes) };
  const peopleRows = new Set(splitByOwner(changes).people.map((c) => c.rowNumber));
  const rows = changes.filter(
    (c) => peopleRows.has(c.rowNumber) || (typeof yieldRows === 'function' ? yieldRows(c) : !!yieldRows),
  );
  return rows.length > 0 ? { kind: 'check', rows } : { kind: 'none' };
}

/**
 * The one read of the yield, as late as possible: the rectangle spanning the changed rows and the キー
 * and people-owned columns, widened to `reused` (blocks written on reused formats: this read is their
 * read-back too). Null without a キー column (the whole 台帳 is read instead).
 */
export function keysAndPeopleBox(
  table: LedgerTable,
  changes: readonly RowChange[],
  reused: ColumnSpan | null,
): GridBox | null {
  const keyCol = table.columns.get('キー');
  if (keyCol === undefined) return null;
  const cols = peopleColumns(table).map(([, c]) => c);
  const touched = changes.map((c) => c.rowNumber);
  const first = Math.min(...touched);
  const last = Math.max(...touched);
  const left = Math.min(keyCol, ...cols, ...(reused ? [reused.left - 1] : []));
  const right = Math.max(keyCol, ...cols, ...(reused ? [reused.right - 1] : []));
  return { row: first, column: left + 1, rows: last - first + 1, columns: right - left + 1 };
}

function peopleColumns(table: LedgerTable): (readonly [LedgerHeader, number])[] {
  return [...PEOPLE_COLUMNS]
    .map((h) => [h as LedgerHeader, table.columns.get(h)] as const)
    .filter((e): e is readonly [LedgerHeader, number] => e[1] !== undefined);
}

/**
 * `table` with the people-owned cells of the changed rows as `read` (of {@link keysAndPeopleBox}) saw
 * them, or null when a row there no longer holds the key it was read with (rows moved under the write:
 * the whole 台帳 is read and rows are found by key).
 */
export function withFreshPeople(
  table: LedgerTable,
  changes: readonly RowChange[],
  read: GridRead,
): LedgerTable | null {
  const keyCol = table.columns.get('キー') as number;
  const touched = changes.map((c) => c.rowNumber);
  const first = Math.min(...touched);
  const last = Math.max(...touched);
  // `column`: 0-based, as table.columns holds them.
  const cell = (row: number, column: number) => read.grid[row - first]?.[column + 1 - read.column];
  for (const r of withPatchedKeys(table, changes).rows) {
    if (r.rowNumber < first || r.rowNumber > last) continue;
    if (String(cell(r.rowNumber, keyCol) ?? '') !== r.record.キー) return null;
  }
  const cols = peopleColumns(table);
  const rows = table.rows.map((r) => {
    if (r.rowNumber < first || r.rowNumber > last) return r;
    const record = { ...r.record };
    for (const [h, c] of cols) setField(record, h, cellText(cell(r.rowNumber, c), h));
    return { rowNumber: r.rowNumber, record };
  });
  return { ...table, rows };
}

/**
 * Row number in `view` of each row of `before` a change touches: the same row when nothing moved,
 * else found by key (and occurrence, for a key on two rows) in the fresh read.
 */
export function rowMap(
  before: LedgerTable,
  changes: readonly RowChange[],
  view: LedgerTable,
  moved: boolean,
): Map<number, number> {
  const out = new Map<number, number>();
  if (!moved) {
    for (const c of changes) out.set(c.rowNumber, c.rowNumber);
    return out;
  }
  const beforeKeys = occurrenceKeys(withPatchedKeys(before, changes));
  const rowOf = new Map<string, number>();
  for (const [row, k] of occurrenceKeys(view)) rowOf.set(k, row);
  for (const c of changes) {
    const row = rowOf.get(beforeKeys.get(c.rowNumber) as string);
    if (row !== undefined) out.set(c.rowNumber, row);
  }
  return out;
}

/** Why a change was held back: a person typed into these people-owned cells since the run read them. */
export interface LeftToPeople {
  key: string;
  rowNumber: number;
  columns: LedgerHeader[];
}

/** What the yield decided. */
export interface YieldPlan {
  /** The changes that stand (row numbers as read). */
  applied: RowChange[];
  /** The changes held back, whole: the next run decides on the person's input (DESIGN §4). */
  withheld: RowChange[];
  /** For each held-back change, the cells the person typed in. */
  leftToPeople: LeftToPeople[];
  /** People-owned cells of the applied changes, at the rows that hold them now. */
  people: PeopleWrite[];
  /**
   * The system cells of held-back rows, written a moment before, put back as read (under the lock only
   * a person could have changed them since, and they are system-owned); null when none were held back
   * or rows moved (then the move-back puts every row right by key, a held-back row as it was read).
   */
  restore: ColumnWrite[] | null;
  /** Rows moved under the write: every touched row is put back by key (the whole 台帳 was read). */
  moveBack: boolean;
  /** The re-read came after every write and found each row holding its key: it was the read-back. */
  verified: boolean;
}

/**
 * The yield to people, once `view` (the 台帳 re-read after the system cells went out: the changed
 * rows' people-owned cells, or the whole 台帳 when rows `moved`) is known. A row whose people-owned
 * cells changed since `table` was read keeps what the person typed, and its whole change is held back.
 */
export function planYield(
  table: LedgerTable,
  changes: readonly RowChange[],
  checked: readonly RowChange[],
  view: LedgerTable,
  moved: boolean,
): YieldPlan {
  const viewRow = rowMap(table, changes, view, moved);
  const recordAt = new Map(view.rows.map((r) => [r.rowNumber, r.record]));
  const readAt = new Map(table.rows.map((r) => [r.rowNumber, r.record]));
  const edited = new Map<number, LedgerHeader[]>();
  for (const c of checked) {
    const now = recordAt.get(viewRow.get(c.rowNumber) ?? -1);
    const then = readAt.get(c.rowNumber);
    const columns = now && then ? peopleEdits(then, now) : [];
    if (columns.length > 0) edited.set(c.rowNumber, columns);
  }
  const withheld = changes.filter((c) => edited.has(c.rowNumber));
  const applied = changes.filter((c) => !edited.has(c.rowNumber));
  const toView = (cs: readonly RowChange[]) =>
    cs.flatMap((c) => {
      const row = viewRow.get(c.rowNumber);
      return row === undefined ? [] : [{ ...c, rowNumber: row }];
    });
  const people = peopleWrites(view, toView(applied));
  let restore: ColumnWrite[] | null = null;
  if (withheld.length > 0 && !moved) {
    const back = withheld.map((c) => {
      const then = readAt.get(c.rowNumber) as LedgerRecord;
      const patch: Partial<LedgerRecord> = {};
      for (const h of Object.keys(c.patch) as LedgerHeader[])
        if (!PEOPLE_COLUMNS.has(h)) setField(patch, h, then[h]);
      return { ...c, patch };
    });
    restore = columnWrites(view, toView(back));
  }
  return {
    applied,
    withheld,
    leftToPeople: withheld.map((c) => ({
      key: c.key,
      rowNumber: c.rowNumber,
      columns: edited.get(c.rowNumber) as LedgerHeader[],
    })),
    people,
    restore,
    moveBack: moved,
    verified: !moved && people.length === 0 && withheld.length === 0,
  };
}

// ---- Reading back, moving rows back ---------------------------------------------------------------

/** The rows a write of `changes` covers, and `table` cut to them (the first read-back reads only those). */
export function writtenSpan(
  table: LedgerTable,
  changes: readonly RowChange[],
): LedgerTable & { span: { first: number; last: number } } {
  const numbers = changes.map((c) => c.rowNumber);
  const span = { first: Math.min(...numbers), last: Math.max(...numbers) };
  return {
    ...table,
    rows: table.rows.filter((r) => r.rowNumber >= span.first && r.rowNumber <= span.last),
    span,
  };
}

/**
 * The キー column to read back over the rows a write touched (`span`) or, without one, every row
 * `table` was read from: a block write covers its span and nothing else, so rows that moved outside it
 * cannot have received our cells. Widened to `reused` (blocks written on reused formats are checked by
 * the same read). Null: nothing to read (no キー column, no rows).
 */
export function readBackBox(
  table: LedgerTable,
  span?: { first: number; last: number },
  reused?: ColumnSpan | null,
): GridBox | null {
  const col = table.columns.get('キー');
  const lastRead = table.rows.length ? table.rows[table.rows.length - 1].rowNumber : 1;
  const first = span ? span.first : 2;
  const last = span ? span.last : lastRead;
  if (col === undefined || last < 2 || last < first) return null;
  const left = Math.min(col + 1, reused?.left ?? col + 1);
  const right = Math.max(col + 1, reused?.right ?? col + 1);
  return { row: first, column: left, rows: last - first + 1, columns: right - left + 1 };
}

/**
 * Whether some row of `table` no longer holds its key where it was read (a person sorted, inserted or
 * deleted rows under the write), by the read of {@link readBackBox} (null: nothing was read).
 */
export function movedUnderWrite(table: LedgerTable, read: GridRead | null): boolean {
  if (!read) return rowsMoved(table, []);
  const col = (table.columns.get('キー') as number) + 1;
  const keys = read.grid.map((r) => keyCellText(r[col - read.column]));
  return rowsMoved(table, [...new Array<unknown>(read.row - 2).fill(undefined), ...keys]);
}

/** Whether the read-back loop goes on: rows moved again, and not too often (then it stops the run). */
export function moveBackAgain(round: number, moved: boolean): boolean {
  if (moved && round === REPAIR_ROUNDS) throw new Error(SORTED_TOO_OFTEN);
  return moved;
}

/**
 * Every block that went out by position, for the move-back should rows move under the write: the
 * repair (ledger-repair.ts) is made on the first move from the changes that stand.
 */
export class MoveBack {
  private readonly sent: [LedgerTable, ColumnWrite[]][] = [];
  private repair: WriteRepair | null = null;

  constructor(private readonly table: LedgerTable) {}

  /** Blocks written by position (before any move-back). */
  wrote(table: LedgerTable, writes: ColumnWrite[]): void {
    this.sent.push([table, writes]);
  }

  /**
   * The writes that put `now` (the whole 台帳, read after rows moved) right by key: system cells, then
   * people's when asked (`people`: null when not). `nowIso` dates rows made safe (ledger-repair.ts).
   */
  plan(
    now: LedgerTable,
    applied: readonly RowChange[],
    withPeople: boolean,
    nowIso: string,
  ): { blocks: ColumnWrite[]; people: PeopleWrite[] | null } {
    if (!this.repair) {
      this.repair = new WriteRepair(this.table, applied);
      for (const [t, w] of this.sent) this.repair.wrote(t, w);
    }
    const fixes = this.repair.repairs(now, nowIso);
    const blocks = columnWrites(now, fixes);
    this.repair.wrote(now, blocks);
    return { blocks, people: withPeople ? peopleWrites(now, splitByOwner(fixes).people) : null };
  }
}

/**
 * Rows deleted under a write leave what it wrote below the rows that moved up: cells of ours (状態,
 * 更新日時 …) on a row with no line in it. Their system cells are cleared (null: there are none), so no
 * keyless "row" is left behind.
 */
export function debrisWrites(now: LedgerTable): ColumnWrite[] | null {
  // No key and none of a line's own fields: only a write could have put cells there (a block bridging
  // through 明細ID writes it back too, so its 明細ID may be set).
  const debris = now.rows.filter((r) => isDebris(r.record));
  if (debris.length === 0) return null;
  // Every system cell of such a row: the block writes bridged some (初回検知 …) with what they read.
  const patch: Partial<LedgerRecord> = {};
  for (const h of LEDGER_HEADERS) if (!PEOPLE_COLUMNS.has(h)) patch[h] = '';
  return columnWrites(
    now,
    debris.map((r) => ({ key: '', rowNumber: r.rowNumber, patch })),
  );
}

// ---- The read-back of text written on reused formats ----------------------------------------------

/** A block of cells as written (quoted text: apostrophe first, the documented way). */
export interface WrittenBlock {
  row: number;
  column: number;
  cells: readonly (readonly unknown[])[];
}

const isQuotedText = (v: unknown) => typeof v === 'string' && v.startsWith("'");

/**
 * The blocks whose read-back (`read`) is not what was written: quoted text must read back as the text
 * without its apostrophe (a '@' cell keeps it in some Sheets). Only quoted text is checked (what a '@'
 * cell can change); a cell outside the read counts as not checked, never as fine.
 */
export function unlikeWritten<B extends WrittenBlock>(blocks: readonly B[], read: GridRead): B[] {
  return blocks.filter((b) =>
    b.cells.some((line, i) =>
      line.some((v, j) => {
        if (!isQuotedText(v)) return false;
        const got = read.grid[b.row + i - read.row]?.[b.column + j - read.column];
        return got === undefined || String(got) !== (v as string).slice(1);
      }),
    ),
  );
}

// ---- Restoring keys -------------------------------------------------------------------------------

/** A key to give back: the row holding `from` now should hold `to`. */
export interface KeyWanted {
  from: string;
  to: string;
}

/** The changes without their キー (written first, by the key the row has now), the empty ones dropped. */
export function withoutKeys(changes: readonly RowChange[]): RowChange[] {
  return changes
    .map((c) => {
      const { キー: _key, ...patch } = c.patch;
      return { ...c, patch };
    })
    .filter((c) => Object.keys(c.patch).length > 0);
}

/** The keys to give back: those of changes whose row was not left to a person. */
export function keysWanted(changes: readonly RowChange[], withheld: readonly RowChange[]): KeyWanted[] {
  const held = new Set(withheld.map((c) => c.rowNumber));
  return changes
    .filter((c) => typeof c.patch.キー === 'string' && !held.has(c.rowNumber))
    .map((c) => ({ from: c.key, to: String(c.patch.キー) }));
}

/** The key a row's own data gives it (an MF line by its 明細ID, a CSV line by its content), or null. */
export function ownKey(record: LedgerRecord, taken: ReadonlyMap<string, unknown>): string | null {
  const id = record.明細ID.trim();
  if (id !== '') return mfKey(id);
  const amount = Number(record.金額);
  if (!Number.isInteger(amount)) return null;
  // The first occurrence no other row holds (a twin keeps its own).
  for (let n = 1; n <= 1000; n++) {
    const k = csvKey(record.口座, record.取引日, amount, record.摘要, n);
    if (!taken.has(k)) return k;
  }
  return null;
}

/** One round of key restores, over `now` (the whole 台帳 read afresh). */
export interface KeyRound {
  /** One cell each: the key to write at each row (a block over the span would write moved rows). */
  writes: Map<number, string>;
  /** How many of the keys are back on rows they fit. */
  restored: number;
}

/**
 * The key writes of one round: a row a sort put under one of our writes holds a key that is not its
 * own, and gets its own back (from its 明細ID or content); each wanted key not yet on a row it fits
 * goes on the row holding the key it replaces, when it fits that row.
 */
export function keyRound(now: LedgerTable, wanted: readonly KeyWanted[]): KeyRound {
  const fits = (r: LedgerRecord) => keyProblem(r) === null;
  const byKey = indexByKey(now.rows);
  const writes = new Map<number, string>();
  for (const w of wanted) {
    for (const row of byKey.get(w.to) ?? []) {
      if (fits(row.record)) continue;
      const own = ownKey(row.record, byKey);
      if (own) writes.set(row.rowNumber, own);
    }
  }
  const back = (w: KeyWanted) => (byKey.get(w.to) ?? []).some((r: LedgerRow) => fits(r.record));
  const restored = wanted.filter(back).length;
  for (const w of wanted) {
    if (back(w)) continue;
    const row = (byKey.get(w.from) ?? []).find((r) => !writes.has(r.rowNumber));
    if (row && fits({ ...row.record, キー: w.to })) writes.set(row.rowNumber, w.to);
  }
  return { writes, restored };
}
