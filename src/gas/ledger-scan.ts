/**
 * The 台帳 as the posting loop reads it, without all 22 columns of every row (issue 18): at 200,000
 * rows a whole read is 4.4 M cells, and the loop read it twice an execution.
 *
 * The first read of an execution: the header row, then only キー・状態・操作・MF仕訳ID of every row
 * (what the claim, the duplicate-key guard and the watch on sent rows look at), then every column of
 * the one span of rows the loop may act on — rows 送信待ち / 送信中 / 不明, rows with an 操作, rows whose
 * key is on another row too. Later reads of the same execution read the header and that span again
 * and check that every row of the span still holds the key it had; if one does not (a person sorted,
 * inserted or deleted rows), the whole scan is done again. Rows outside the span hold only the four
 * columns (`partial` says which rows are whole); a write that would touch one reads the whole 台帳
 * first (`wholeFor`), so no cell is ever written from a value that was not read.
 */

import { columnLetter, headerIndex } from '../core/headers';
import {
  cellText,
  type LedgerRecord,
  type LedgerRow,
  type LedgerTable,
  parseLedger,
  type RowChange,
  setField,
} from '../core/ledger';
import {
  columnScanRow,
  isScannedRow,
  movedSinceScan,
  postingSpan,
  SCANNED,
  spanStillHolds,
  stillKeyed,
} from '../core/ledger-span';
import { LEDGER_HEADERS, type LedgerHeader } from '../core/schema';
import { FormatCache } from './cells';
import { readLedger } from './ledger-sheet';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

/** Runs of adjacent columns (0-based, inclusive) covering `cols`: one read each. */
function runs(cols: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const c of [...cols].sort((a, b) => a - b)) {
    const open = out[out.length - 1];
    if (open && open[1] + 1 === c) open[1] = c;
    else out.push([c, c]);
  }
  return out;
}

function emptyRecord(): LedgerRecord {
  const r = {} as LedgerRecord;
  for (const h of LEDGER_HEADERS) setField(r, h, cellText('', h));
  return r;
}

/** The span's rows as parsed whole (row numbers from `first`). */
function spanRows(
  header: readonly unknown[],
  grid: readonly (readonly unknown[])[],
  first: number,
): LedgerRow[] {
  return parseLedger([header, ...grid]).rows.map((r) => ({ ...r, rowNumber: r.rowNumber - 2 + first }));
}

/**
 * A later section reads row 1 with its span, in the same call, when the rows above the span cost less
 * than a call of their own: DEFAULT_LATENCY's 40 ms a read against 0.002 ms a cell (sim/gas/world.ts).
 */
const HEADER_IN_SPAN_CELLS = 20_000;

/** Whether the rows between row 1 and a span starting at `first` cost less than a read of their own. */
const cheapHeader = (first: number, width: number) => (first - 2) * width <= HEADER_IN_SPAN_CELLS;

const sameRow = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((h, i) => h === b[i]);

export interface PostingReader {
  read(): LedgerTable;
  /** The number formats of the span, read by the first write and reused by later ones (issue 18). */
  formats: FormatCache;
  /** `table` whole when a change touches a row outside its span (and the changes still found there). */
  wholeFor(table: LedgerTable, changes: readonly RowChange[]): { table: LedgerTable; changes: RowChange[] };
}

/**
 * `header`: row 1 as preflight read it a moment ago (issue 18: once an execution). The first scan
 * checks it where it reads anyway (its reads start at row 1); later sections check it against row 1
 * read again, with the span or alone, and scan afresh when it differs (a column moved or renamed).
 */
export function postingReader(sheet: Sheet, header?: readonly unknown[]): PostingReader {
  let scan: { header: unknown[]; rows: LedgerRow[]; first: number; last: number } | null = null;
  let given: unknown[] | null = header ? [...header] : null;
  const formats = new FormatCache(() =>
    scan && scan.last >= scan.first
      ? { top: scan.first, left: 1, bottom: scan.last, right: scan.header.length }
      : null,
  );

  const readHeader = () => sheet.getRange('1:1').getValues()[0];

  const full = (): LedgerTable => {
    scan = null;
    formats.forget();
    return readLedger(sheet);
  };

  const scanAll = (header: unknown[], checked = true): LedgerTable => {
    formats.forget();
    const columns = headerIndex(header);
    const cols = SCANNED.map((h) => columns.get(h));
    if (cols.some((c) => c === undefined)) return full();
    // Open-ended A1 ranges ("A1:B"): one call each, to the sheet's last row, row 1 included so that a
    // header taken from preflight is checked where these columns are read.
    const values = new Map<LedgerHeader, unknown[]>();
    for (const [from, to] of runs(cols as number[])) {
      const all = sheet.getRange(`${columnLetter(from)}1:${columnLetter(to)}`).getValues();
      if (!checked && !all[0].every((h, j) => h === header[from + j])) return scanAll(readHeader());
      const grid = all.slice(1);
      for (const h of SCANNED) {
        const c = columns.get(h) as number;
        if (c >= from && c <= to)
          values.set(
            h,
            grid.map((r) => r[c - from]),
          );
      }
    }
    const count = Math.max(...[...values.values()].map((v) => v.length));
    const at = (h: LedgerHeader, i: number) => (values.get(h) as unknown[])[i];
    const rows: LedgerRow[] = [];
    for (let i = 0; i < count; i++) {
      const record = emptyRecord();
      for (const h of SCANNED) setField(record, h, cellText(at(h, i), h));
      if (isScannedRow(record)) rows.push({ rowNumber: i + 2, record });
    }
    const { first, last } = postingSpan(rows);
    if (last < first) {
      scan = { header, rows, first: 0, last: -1 };
      return { columns, width: header.length, rows, partial: { first: 0, last: -1 } };
    }
    // A header from preflight: checked whole with the span when that is cheap (else the scan's own
    // columns were checked above, and the rest is preflight's, read a moment before the lock).
    const withHeader = !checked && cheapHeader(first, header.length);
    const top = withHeader ? 1 : first;
    const read = sheet.getRange(top, 1, last - top + 1, header.length).getValues();
    if (withHeader && !sameRow(read[0], header)) return scanAll(readHeader());
    const grid = read.slice(first - top);
    scan = { header, rows, first, last };
    return withSpan(header, rows, spanRows(header, grid, first), first, last);
  };

  const withSpan = (
    header: unknown[],
    rows: readonly LedgerRow[],
    span: readonly LedgerRow[],
    first: number,
    last: number,
  ): LedgerTable => {
    const outside = rows.filter((r) => r.rowNumber < first || r.rowNumber > last);
    const merged = [...outside, ...span].sort((a, b) => a.rowNumber - b.rowNumber);
    return { columns: headerIndex(header), width: header.length, rows: merged, partial: { first, last } };
  };

  return {
    formats,
    read(): LedgerTable {
      const known = scan;
      if (!known) {
        const first = given;
        given = null;
        return first ? scanAll(first, false) : scanAll(readHeader());
      }
      if (known.last < known.first) return scanAll(readHeader());
      // Row 1 with the span when the rows between cost less than a call; else row 1 alone.
      const width = known.header.length;
      const withHeader = cheapHeader(known.first, width);
      const top = withHeader ? 1 : known.first;
      const read = sheet.getRange(top, 1, known.last - top + 1, width).getValues();
      const header = withHeader ? read[0] : readHeader();
      // Changed (a column moved or renamed): row 1 whole, then the scan on it.
      if (!sameRow(header, known.header)) return scanAll(readHeader());
      const grid = read.slice(known.first - top);
      const span = spanRows(header, grid, known.first);
      // Every row of the span must hold the key it held at the scan: else rows moved, scan again.
      if (!spanStillHolds(known.rows, span, known.first, known.last)) return scanAll(header);
      const table = withSpan(header, known.rows, span, known.first, known.last);
      known.rows = table.rows;
      return table;
    },
    wholeFor(table, changes) {
      const span = table.partial;
      if (!span || changes.every((c) => c.rowNumber >= span.first && c.rowNumber <= span.last))
        return { table, changes: [...changes] };
      const whole = full();
      // A change whose row no longer holds its key is dropped: the row is found again next run.
      return { table: whole, changes: stillKeyed(changes, whole.rows) };
    },
  };
}

/**
 * Import, classify and the 要確認 refresh (issue 18), the same way as the posting loop: some columns of
 * every row (`scanColumns`), then every column of the rows a run may act on (`narrowLedger`). Rows whose
 * key, 状態 and 明細ID are all blank are not rows (as parseLedger counts them).
 */
export interface ColumnScan {
  header: unknown[];
  columns: Map<string, number>;
  /** Every row with only the scanned columns (the other fields empty). */
  rows: LedgerRow[];
}

/** The header and `headers` of every row, one read per run of adjacent columns; null when one is missing. */
export function scanColumns(sheet: Sheet, headers: readonly LedgerHeader[]): ColumnScan | null {
  const header = sheet.getRange('1:1').getValues()[0];
  const columns = headerIndex(header);
  const cols = headers.map((h) => columns.get(h));
  if (cols.some((c) => c === undefined)) return null;
  const values = new Map<LedgerHeader, unknown[]>();
  for (const [from, to] of runs(cols as number[])) {
    const grid = sheet.getRange(`${columnLetter(from)}2:${columnLetter(to)}`).getValues();
    for (const h of headers) {
      const c = columns.get(h) as number;
      if (c >= from && c <= to)
        values.set(
          h,
          grid.map((r) => r[c - from]),
        );
    }
  }
  const count = Math.max(0, ...[...values.values()].map((v) => v.length));
  const isRow = columnScanRow(headers);
  const rows: LedgerRow[] = [];
  for (let i = 0; i < count; i++) {
    const record = emptyRecord();
    for (const h of headers) setField(record, h, cellText((values.get(h) as unknown[])[i], h));
    if (isRow(record)) rows.push({ rowNumber: i + 2, record });
  }
  return { header, columns, rows };
}

/** Rows further apart than this are read in two calls, not one (a call costs about as much as 500 rows). */
const CLUSTER_GAP = 500;

/** Sorted row numbers as runs [first, last]: near rows share one read. */
function clusters(rowNumbers: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const n of [...new Set(rowNumbers)].sort((a, b) => a - b)) {
    const open = out[out.length - 1];
    if (open && n - open[1] <= CLUSTER_GAP) open[1] = n;
    else out.push([n, n]);
  }
  return out;
}

/** Every column of rows first..last, or null when a row there no longer holds the key the scan read. */
function wholeRows(sheet: Sheet, scan: ColumnScan, first: number, last: number): LedgerRow[] | null {
  const grid = sheet.getRange(first, 1, last - first + 1, scan.header.length).getValues();
  const got = spanRows(scan.header, grid, first);
  return movedSinceScan(scan.rows, got, first, last) ? null : got;
}

export interface NarrowLedger {
  /**
   * The scan's rows, those in `partial` (the span of rows `span` picked) and those `extra` picked read
   * whole; writes stay inside the span (columnWrites refuses others).
   */
  table: LedgerTable;
  /** Row numbers read whole (the span and the extra rows). */
  whole: Set<number>;
  /** The scan the table was built on (null: the whole 台帳 was read). */
  scan: ColumnScan | null;
}

/** Times a scan is redone when people move rows between it and the reads of whole rows. */
const NARROW_ROUNDS = 2;

/**
 * The 台帳 for a run that acts on a few rows: `headers` of every row, then every column of the span from
 * the first to the last row `span` picks (one read), and of the rows `extra` picks outside it (one read
 * per cluster of near rows; for showing, never written). A row that moved between the scan and those
 * reads (a person sorting or inserting rows) makes it scan again; after that, or when a header is
 * missing, the whole 台帳 is read.
 */
export function narrowLedger(
  sheet: Sheet,
  headers: readonly LedgerHeader[],
  span: (scan: ColumnScan) => readonly number[],
  extra: (scan: ColumnScan) => readonly number[] = () => [],
): NarrowLedger {
  for (let round = 0; round < NARROW_ROUNDS; round++) {
    const scan = scanColumns(sheet, headers);
    if (!scan) break;
    const picked = span(scan);
    const first = picked.length > 0 ? Math.min(...picked) : 0;
    const last = picked.length > 0 ? Math.max(...picked) : -1;
    const whole = new Map<number, LedgerRow>();
    let moved = false;
    const reads: [number, number][] = last >= first ? [[first, last]] : [];
    const outside = extra(scan).filter((n) => n < first || n > last);
    reads.push(...clusters(outside));
    for (const [from, to] of reads) {
      const rows = wholeRows(sheet, scan, from, to);
      if (!rows) {
        moved = true;
        break;
      }
      for (const r of rows) whole.set(r.rowNumber, r);
    }
    if (moved) continue;
    const rows = scan.rows.map((r) => whole.get(r.rowNumber) ?? r);
    return {
      table: { columns: scan.columns, width: scan.header.length, rows, partial: { first, last } },
      whole: new Set(whole.keys()),
      scan,
    };
  }
  const table = readLedger(sheet);
  return { table, whole: new Set(table.rows.map((r) => r.rowNumber)), scan: null };
}
