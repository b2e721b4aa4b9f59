/**
 * The 残高照合 sheet's layout (DESIGN §3) and what kicho writes on it (issue 25). The table is the headers
 * from column A and any columns people added among or after them, up to the chart's block (the column
 * headed 月末（差額のグラフ）). A row is found by its 口座 and 月末. kicho writes only its own columns of
 * the rows it finds and appends rows for new ones: 通帳残高 and people's own columns are never written,
 * so what people typed stays exactly as typed — no formula made of it, nothing moved off its row —
 * whatever rows are added, sorted or reordered. Pure.
 */
import { type BalanceRecord, balanceCell, balanceKey, emptyBalanceRecord } from './balances';
import { headerIndex } from './headers';
import { BALANCE_HEADERS } from './schema';

export const BLOCK_TITLE = '月末（差額のグラフ）';
export const BLOCK_SERIES_PREFIX = '差額: ';

/** Columns kicho fills on every row it finds; 口座 and 月末 (the row's identity) are written on new rows only. */
export const OWN_BALANCE_COLUMNS = [
  '勘定科目',
  '補助科目',
  'MFの残高',
  '明細の残高',
  '差額',
  '説明',
] as const;

export interface BalanceRow {
  rowNumber: number;
  record: BalanceRecord;
}

export interface BalanceTable {
  /** 0-based column of each header. */
  columns: Map<string, number>;
  /** Number of columns of the table: its headers and people's columns before the block. */
  width: number;
  /** The last row (1-based) holding anything in the table's columns; 1 when none. */
  lastRow: number;
  /** The chart's block: 0-based first column and how many columns it has. */
  block: { start: number; width: number } | null;
  /** The first row of each (口座, 月末). */
  rows: BalanceRow[];
  /** Later rows holding a (口座, 月末) already seen (a copied row): `of` is the first one's row. */
  copies: { rowNumber: number; of: number }[];
  values: readonly (readonly unknown[])[];
}

const filled = (v: unknown) => v !== '' && v !== null && v !== undefined;

/** The table as read in one getValues of the whole sheet (header row first). */
export function readBalanceTable(values: readonly (readonly unknown[])[]): BalanceTable {
  const header = (values[0] ?? []).map((h) => String(h ?? '').trim());
  const blockStart = header.indexOf(BLOCK_TITLE);
  let blockWidth = 0;
  if (blockStart >= 0) {
    blockWidth = 1;
    while (header[blockStart + blockWidth]?.startsWith(BLOCK_SERIES_PREFIX)) blockWidth++;
  }
  const before = blockStart >= 0 ? header.slice(0, blockStart) : header;
  let width = before.length;
  while (width > 0 && before[width - 1] === '') width--;
  const columns = headerIndex(header.slice(0, width));
  let lastRow = 1;
  for (let r = values.length; r >= 2; r--) {
    if (values[r - 1].slice(0, width).some(filled)) {
      lastRow = r;
      break;
    }
  }
  const rows: BalanceRow[] = [];
  const copies: { rowNumber: number; of: number }[] = [];
  const seen = new Map<string, number>();
  for (let r = 2; r <= lastRow; r++) {
    const record = emptyBalanceRecord();
    for (const h of BALANCE_HEADERS) {
      const c = columns.get(h);
      record[h] = c === undefined ? '' : balanceCell(values[r - 1][c]);
    }
    // 通帳残高 exactly as the cell holds it (a number Sheets made of the typing stays a number).
    const typed = columns.get('通帳残高');
    if (typed !== undefined) {
      const raw = values[r - 1][typed];
      record.通帳残高 = typeof raw === 'number' || typeof raw === 'string' ? raw : balanceCell(raw);
    }
    if (String(record.口座).trim() === '' || String(record.月末).trim() === '') continue;
    const key = balanceKey(String(record.口座), String(record.月末));
    const first = seen.get(key);
    if (first !== undefined) {
      copies.push({ rowNumber: r, of: first });
      continue;
    }
    seen.set(key, r);
    rows.push({ rowNumber: r, record });
  }
  return {
    columns,
    width,
    lastRow,
    block: blockStart >= 0 ? { start: blockStart, width: blockWidth } : null,
    rows,
    copies,
    values,
  };
}

export const BALANCE_SHEET_MSG = {
  copy: (of: number) =>
    `この行は ${of} 行目と同じ口座・月末です。比べるのは ${of} 行目だけです。どちらかの行を消してください。`,
} as const;

/** Cells to write, 1-based, top-left first. */
export interface BalanceBlock {
  row: number;
  column: number;
  cells: unknown[][];
}

export interface BalanceWrite {
  /** kicho's own columns of rows 2..lastRow: one block per run of adjacent own columns. */
  blocks: BalanceBlock[];
  /** New rows, under the last row of the table, over its width. */
  appended: BalanceBlock | null;
  /** How many records were new. */
  added: number;
}

/**
 * What to write so that the sheet shows `records` (every row kept, as balanceRecords and
 * withStatementBalances give them): on a row found by its key, kicho's columns from the record; on a
 * copied row, its 説明 says so; on other rows, kicho's columns as read. New keys are appended, month by
 * month (every account's row for a month end together, as a month is closed).
 */
export function planBalanceWrite(table: BalanceTable, records: readonly BalanceRecord[]): BalanceWrite {
  const byKey = new Map(records.map((r) => [balanceKey(String(r.口座), String(r.月末)), r]));
  const onSheet = new Map(
    table.rows.map((r) => [balanceKey(String(r.record.口座), String(r.record.月末)), r]),
  );
  const copyOf = new Map(table.copies.map((c) => [c.rowNumber, c.of]));
  const rowOf = new Map(table.rows.map((r) => [r.rowNumber, r]));
  const own = OWN_BALANCE_COLUMNS.map((h) => ({ h, c: table.columns.get(h) }))
    .filter((x): x is { h: (typeof OWN_BALANCE_COLUMNS)[number]; c: number } => x.c !== undefined)
    .sort((a, b) => a.c - b.c);
  const runs: { h: (typeof OWN_BALANCE_COLUMNS)[number]; c: number }[][] = [];
  for (const col of own) {
    const run = runs[runs.length - 1];
    if (run && run[run.length - 1].c === col.c - 1) run.push(col);
    else runs.push([col]);
  }
  const blocks: BalanceBlock[] = [];
  if (table.lastRow >= 2) {
    for (const run of runs) {
      const cells: unknown[][] = [];
      for (let r = 2; r <= table.lastRow; r++) {
        const read = table.values[r - 1] ?? [];
        const found = rowOf.get(r);
        const record = found
          ? byKey.get(balanceKey(String(found.record.口座), String(found.record.月末)))
          : undefined;
        const copy = copyOf.get(r);
        cells.push(
          run.map(({ h, c }) => {
            if (record) return record[h];
            if (copy !== undefined && h === '説明') return BALANCE_SHEET_MSG.copy(copy);
            return read[c] ?? '';
          }),
        );
      }
      blocks.push({ row: 2, column: run[0].c + 1, cells });
    }
  }
  const fresh = records
    .map((record, i) => ({ record, i }))
    .filter(({ record }) => !onSheet.has(balanceKey(String(record.口座), String(record.月末))))
    .sort((a, b) => String(a.record.月末).localeCompare(String(b.record.月末)) || a.i - b.i)
    .map(({ record }) => record);
  let appended: BalanceBlock | null = null;
  if (fresh.length > 0 && table.width > 0) {
    const cells = fresh.map((record) => {
      const row: unknown[] = new Array(table.width).fill('');
      for (const h of BALANCE_HEADERS) {
        const c = table.columns.get(h);
        // A new row has nothing typed yet; people's columns start empty.
        if (c !== undefined && h !== '通帳残高') row[c] = record[h];
      }
      return row;
    });
    appended = { row: table.lastRow + 1, column: 1, cells };
  }
  return { blocks, appended, added: fresh.length };
}

/**
 * Where the chart's block goes (0-based first column): where it was, else one empty column after the
 * table — moved past everything on the sheet when a column it would take holds something of a person's.
 */
export function blockColumn(table: BalanceTable, width: number): number {
  const start = table.block ? table.block.start : table.width + 1;
  const old = table.block;
  const ours = (c: number) => !!old && c >= old.start && c < old.start + old.width;
  for (let c = start; c < start + width; c++) {
    if (ours(c)) continue;
    if (table.values.some((row) => filled(row[c]))) {
      return Math.max(...table.values.map((row) => row.length)) + 1;
    }
  }
  return start;
}
