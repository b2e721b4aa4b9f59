/**
 * The 台帳 as data: rows keyed by header name (people may reorder columns), parsed from one
 * getValues and turned back into per-column writes. Pure: no Apps Script here.
 */
import { withoutStrayApostrophe } from './cell-text';
import { headerIndex } from './headers';
import { LEDGER_HEADERS, type LedgerHeader, PEOPLE_COLUMNS } from './schema';
import { isLedgerState, type LedgerState } from './states';

/** 金額 and 試行回数: a number when the cell parses, else the text a person left (shown and refused, never sent). */
export type NumberHeader = '金額' | '試行回数';

/** What a person left in 状態 that is no state (a typo, a word of their own): kept as text, never acted on. */
export type StrayState = string & { readonly __strayState: true };

/** 状態 as read: a state, a cleared cell, or stray text (key-check and 要確認 list the last two). */
export type StateCell = LedgerState | '' | StrayState;

/**
 * One 台帳 row parsed once: text columns are text, the number columns numbers (or the stray text), 状態 a
 * {@link StateCell}. Code compares and copies these without converting them again.
 */
export type LedgerRecord = { [H in Exclude<LedgerHeader, NumberHeader | '状態'>]: string } & {
  [H in NumberHeader]: number | string;
} & { 状態: StateCell };

/** 状態 text as a {@link StateCell}; white space alone is a cleared cell. */
export function stateCell(text: string): StateCell {
  if (isLedgerState(text)) return text;
  return text.trim() === '' ? '' : (text as StrayState);
}

/**
 * Sets one field whatever its header, for the loops over headers (values from a record or from cellText);
 * 状態 text becomes a {@link StateCell}. The one place a header-indexed write is typed loosely.
 */
export function setField(
  target: Partial<LedgerRecord>,
  h: LedgerHeader,
  value: string | number | undefined,
): void {
  (target as Partial<Record<LedgerHeader, string | number>>)[h] =
    h === '状態' && value !== undefined ? stateCell(String(value)) : value;
}

export interface LedgerRow {
  /** 1-based sheet row number at the time of reading. */
  rowNumber: number;
  record: LedgerRecord;
}

export interface LedgerTable {
  /** Column index (0-based) of each header present. */
  columns: Map<string, number>;
  width: number;
  rows: LedgerRow[];
  /**
   * Set when only rows first..last were read whole (the posting scan, gas/ledger-scan.ts): the other
   * rows hold only キー, 状態, 操作 and MF仕訳ID. Absent: every row is whole.
   */
  partial?: { first: number; last: number };
}

const NUMBER_COLUMNS: ReadonlySet<LedgerHeader> = new Set(['金額', '試行回数']);

/**
 * Columns kicho owns whose values never begin with an apostrophe: a leading one is an earlier
 * version's writing in an '@' cell (cell-text.ts), not part of the value. 摘要, 口座, 判定根拠 and メモ
 * hold outside or free text and are read as they are.
 */
export const APOSTROPHE_TOLERANT: ReadonlySet<LedgerHeader> = new Set([
  'キー',
  '状態',
  '取引日',
  '入出金',
  '判定元',
  'MF仕訳ID',
  '初回検知',
  '更新日時',
  '完了日時',
  '明細ID',
  '指紋',
]);

/** Dates typed by a person come back as Date objects; the ledger keeps yyyy-MM-dd text. */
export function cellText(value: unknown, header: LedgerHeader): string | number {
  if (value === null || value === undefined) return '';
  if (NUMBER_COLUMNS.has(header)) {
    if (value === '') return header === '試行回数' ? 0 : '';
    const n = typeof value === 'number' ? value : Number(String(value).replace(/[,¥\s]/g, ''));
    return Number.isFinite(n) ? n : String(value);
  }
  if (Object.prototype.toString.call(value) === '[object Date]') {
    const d = value as Date;
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }
  return APOSTROPHE_TOLERANT.has(header) ? withoutStrayApostrophe(String(value)) : String(value);
}

/** A キー cell as the 台帳 reader sees it (the write check reads the column on its own). */
export function keyCellText(value: unknown): string {
  return String(cellText(value, 'キー'));
}

/** Parses the header row and data rows (values as getValues returns them). */
export function parseLedger(values: readonly (readonly unknown[])[]): LedgerTable {
  const header = values[0] ?? [];
  const columns = headerIndex(header);
  const rows: LedgerRow[] = [];
  for (let i = 1; i < values.length; i++) {
    const line = values[i];
    const raw = {} as Record<LedgerHeader, string | number>;
    for (const h of LEDGER_HEADERS) {
      const col = columns.get(h);
      raw[h] = cellText(col === undefined ? '' : line[col], h);
    }
    const record = { ...raw, 状態: stateCell(String(raw.状態)) } as LedgerRecord;
    // A row without a key is not a ledger line (blank rows, notes people typed below the table) —
    // unless it has a 状態 or a 明細ID: then it is a line whose key a person cleared, and it must be
    // seen (listed on 要確認, never sent, never imported a second time).
    if (record.キー.trim() === '' && record.状態.trim() === '' && record.明細ID.trim() === '') continue;
    rows.push({ rowNumber: i + 1, record });
  }
  return { columns, width: header.length, rows };
}

/** Rows by key; a key on several rows maps to all of them (the duplicate-key guard needs them). */
export function indexByKey(rows: readonly LedgerRow[]): Map<string, LedgerRow[]> {
  const index = new Map<string, LedgerRow[]>();
  for (const row of rows) {
    const key = row.record.キー;
    const list = index.get(key);
    if (list) list.push(row);
    else index.set(key, [row]);
  }
  return index;
}

/** A change to some columns of the row holding `key`. */
export interface RowChange {
  key: string;
  /** Row number where the change was decided; settle re-locates by key before writing. */
  rowNumber: number;
  patch: Partial<LedgerRecord>;
}

/** The patches of `changes` merged per row (a later change to a field wins). */
export function patchesByRow(changes: readonly RowChange[]): Map<number, Partial<LedgerRecord>> {
  const byRow = new Map<number, Partial<LedgerRecord>>();
  for (const c of changes) byRow.set(c.rowNumber, { ...byRow.get(c.rowNumber), ...c.patch });
  return byRow;
}

/** Several changes to one row become one (keyed like the first of them). */
export function merge(changes: readonly RowChange[]): RowChange[] {
  const first = new Map<number, RowChange>();
  for (const c of changes) if (!first.has(c.rowNumber)) first.set(c.rowNumber, c);
  return [...patchesByRow(changes)].map(([rowNumber, patch]) => ({
    ...(first.get(rowNumber) as RowChange),
    patch,
  }));
}

/** The table as it will be after `changes` (for planning later steps in the same phase). */
export function applyChanges(table: LedgerTable, changes: readonly RowChange[]): LedgerTable {
  if (changes.length === 0) return table;
  const byRow = patchesByRow(changes);
  return {
    ...table,
    rows: table.rows.map((r) => {
      const patch = byRow.get(r.rowNumber);
      return patch ? { rowNumber: r.rowNumber, record: { ...r.record, ...patch } } : r;
    }),
  };
}

/**
 * A block of cells to write: columns `column`..`column + width - 1`, rows from `firstRow`. Unchanged
 * cells inside it are written back with the value just read (under the lock); only system-owned
 * columns are ever written that way.
 */
export interface ColumnWrite {
  column: number;
  firstRow: number;
  values: (string | number)[][];
}

function isPeople(h: string): boolean {
  return PEOPLE_COLUMNS.has(h);
}

/** The changes with only their system-owned fields, and with only their people-owned fields. */
export function splitByOwner(changes: readonly RowChange[]): { system: RowChange[]; people: RowChange[] } {
  const system: RowChange[] = [];
  const people: RowChange[] = [];
  for (const c of changes) {
    const sys: Partial<LedgerRecord> = {};
    const ppl: Partial<LedgerRecord> = {};
    for (const [h, v] of Object.entries(c.patch) as [LedgerHeader, string | number][]) {
      setField(isPeople(h) ? ppl : sys, h, v);
    }
    if (Object.keys(sys).length > 0) system.push({ ...c, patch: sys });
    if (Object.keys(ppl).length > 0) people.push({ ...c, patch: ppl });
  }
  return { system, people };
}

function headersByColumn(table: LedgerTable): Map<number, LedgerHeader> {
  const headerAt = new Map<number, LedgerHeader>();
  for (const h of LEDGER_HEADERS) {
    const col = table.columns.get(h);
    if (col !== undefined) headerAt.set(col, h);
  }
  return headerAt;
}

/**
 * The writes for the system-owned fields of `changes`: the span of changed rows, in blocks of adjacent
 * columns. A block may bridge a gap only through system-owned columns (written back as read), never
 * through a column people edit. People-owned fields are left to peopleWrites, which never writes a
 * cell it does not mean to change. Calls depend on the columns touched, not on the number of rows.
 */
export function columnWrites(table: LedgerTable, changes: readonly RowChange[]): ColumnWrite[] {
  const byRow = patchesByRow(splitByOwner(changes).system);
  if (byRow.size === 0) return [];
  const rowByNumber = new Map(table.rows.map((r) => [r.rowNumber, r]));
  const headerAt = headersByColumn(table);
  const changedCols = new Set<number>();
  for (const patch of byRow.values()) {
    for (const h of Object.keys(patch) as LedgerHeader[]) {
      const col = table.columns.get(h);
      if (col !== undefined) changedCols.add(col);
    }
  }
  const first = Math.min(...byRow.keys());
  const last = Math.max(...byRow.keys());
  // Cells written back "as read" must have been read: never a block over rows read in part.
  if (table.partial && (first < table.partial.first || last > table.partial.last))
    throw new Error(`rows ${first}–${last} were not read whole`);
  const bridgeable = (col: number) => {
    const h = headerAt.get(col);
    return h !== undefined && !isPeople(h);
  };
  const blocks: [number, number][] = [];
  for (const col of [...changedCols].sort((a, b) => a - b)) {
    const open = blocks[blocks.length - 1];
    let joinable = !!open;
    for (let c = open ? open[1] + 1 : col; joinable && c < col; c++) joinable = bridgeable(c);
    if (open && joinable) open[1] = col;
    else blocks.push([col, col]);
  }
  return blocks.map(([from, to]) => {
    const values: (string | number)[][] = [];
    for (let n = first; n <= last; n++) {
      const patch = byRow.get(n);
      const row: (string | number)[] = [];
      for (let c = from; c <= to; c++) {
        const h = headerAt.get(c) as LedgerHeader;
        row.push(patch && h in patch ? (patch[h] as string | number) : (rowByNumber.get(n)?.record[h] ?? ''));
      }
      values.push(row);
    }
    return { column: from + 1, firstRow: first, values };
  });
}

/**
 * People-owned cells to write, one column at a time, touching only the cells a change means: either
 * runs of adjacent rows (one setValues each) or, when the rows are scattered, one range list per value
 * (one call each: 操作 consumed on 300 scattered rows is one call). Whichever needs fewer calls.
 */
export type PeopleWrite =
  | { kind: 'run'; column: number; firstRow: number; values: (string | number)[] }
  | { kind: 'list'; column: number; rows: number[]; value: string | number };

export function peopleWrites(table: LedgerTable, changes: readonly RowChange[]): PeopleWrite[] {
  const cells = new Map<number, Map<number, string | number>>();
  for (const c of splitByOwner(changes).people) {
    for (const [h, v] of Object.entries(c.patch) as [LedgerHeader, string | number][]) {
      const col = table.columns.get(h);
      if (col === undefined) continue;
      const column = cells.get(col + 1) ?? new Map<number, string | number>();
      column.set(c.rowNumber, v);
      cells.set(col + 1, column);
    }
  }
  const out: PeopleWrite[] = [];
  for (const [column, byRow] of [...cells].sort((a, b) => a[0] - b[0])) {
    const rows = [...byRow.keys()].sort((a, b) => a - b);
    const runs: PeopleWrite[] = [];
    for (const r of rows) {
      const open = runs[runs.length - 1];
      if (open && open.kind === 'run' && open.firstRow + open.values.length === r)
        open.values.push(byRow.get(r) as string | number);
      else runs.push({ kind: 'run', column, firstRow: r, values: [byRow.get(r) as string | number] });
    }
    const byValue = new Map<string, { value: string | number; rows: number[] }>();
    for (const r of rows) {
      const v = byRow.get(r) as string | number;
      const k = `${typeof v}:${v}`;
      const group = byValue.get(k) ?? { value: v, rows: [] };
      group.rows.push(r);
      byValue.set(k, group);
    }
    if (runs.length <= byValue.size) out.push(...runs);
    else for (const g of byValue.values()) out.push({ kind: 'list', column, rows: g.rows, value: g.value });
  }
  return out;
}
