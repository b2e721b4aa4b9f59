/**
 * The 台帳 as data: rows keyed by header name (people may reorder columns), parsed from one
 * getValues and turned back into per-column writes. Pure: no Apps Script here.
 */
import { withoutStrayApostrophe } from './cell-text';
import { headerIndex } from './headers';
import { LEDGER_HEADERS, type LedgerHeader, PEOPLE_COLUMNS } from './schema';

export type LedgerRecord = Record<LedgerHeader, string | number>;

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
function cellText(value: unknown, header: LedgerHeader): string | number {
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
    const record = {} as LedgerRecord;
    for (const h of LEDGER_HEADERS) {
      const col = columns.get(h);
      record[h] = cellText(col === undefined ? '' : line[col], h);
    }
    // A row without a key is not a ledger line (blank rows, notes people typed below the table).
    if (String(record.キー).trim() === '') continue;
    rows.push({ rowNumber: i + 1, record });
  }
  return { columns, width: header.length, rows };
}

export function missingLedgerColumns(table: LedgerTable): LedgerHeader[] {
  return LEDGER_HEADERS.filter((h) => !table.columns.has(h));
}

/** Rows by key; a key on several rows maps to all of them (the duplicate-key guard needs them). */
export function indexByKey(rows: readonly LedgerRow[]): Map<string, LedgerRow[]> {
  const index = new Map<string, LedgerRow[]>();
  for (const row of rows) {
    const key = String(row.record.キー);
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

/**
 * A block of cells to write: columns `column`..`column + width - 1`, rows from `firstRow`. Unchanged
 * cells inside it are written back with the value just read (under the lock).
 */
export interface ColumnWrite {
  column: number;
  firstRow: number;
  values: (string | number)[][];
}

/**
 * The writes for `changes`: the span of changed rows, in blocks of adjacent columns. A block may
 * bridge a gap only through system-owned columns (written back as read), never through a column
 * people edit, so a person's fresh entry is never overwritten. The number of Sheets calls depends
 * on the columns touched, not on the number of rows.
 */
export function columnWrites(table: LedgerTable, changes: readonly RowChange[]): ColumnWrite[] {
  const byRow = new Map<number, Partial<LedgerRecord>>();
  for (const c of changes) byRow.set(c.rowNumber, { ...byRow.get(c.rowNumber), ...c.patch });
  if (byRow.size === 0) return [];
  const rowByNumber = new Map(table.rows.map((r) => [r.rowNumber, r]));
  const headerAt = new Map<number, LedgerHeader>();
  for (const h of LEDGER_HEADERS) {
    const col = table.columns.get(h);
    if (col !== undefined) headerAt.set(col, h);
  }
  const changedCols = new Set<number>();
  for (const patch of byRow.values()) {
    for (const h of Object.keys(patch) as LedgerHeader[]) {
      const col = table.columns.get(h);
      if (col !== undefined) changedCols.add(col);
    }
  }
  const first = Math.min(...byRow.keys());
  const last = Math.max(...byRow.keys());
  const bridgeable = (col: number) => {
    const h = headerAt.get(col);
    return h !== undefined && !PEOPLE_COLUMNS.has(h);
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
