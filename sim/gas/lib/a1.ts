// A1 notation as accepted by SpreadsheetApp (Sheet.getRange(a1), Spreadsheet.getRange('Sheet!A1')).
// Everything here is 1-based, like the Apps Script API.

export interface ParsedA1 {
  /** Present when the notation carries a `Sheet!` prefix (quotes removed, `''` unescaped). */
  sheetName?: string;
  row: number;
  col: number;
  /** `null` = open-ended down to the sheet's last row (`A:C`, `B2:B`). */
  numRows: number | null;
  /** `null` = open-ended right to the sheet's last column (`2:5`, `A2:3`). */
  numCols: number | null;
}

/** Google Sheets' column cap (ZZZ); letters beyond it can never name a column. */
export const MAX_COLUMNS = 18278;
/** No sheet can have more rows than the spreadsheet has cells (10 million). */
export const MAX_ROWS = 10_000_000;

// The message Apps Script throws for any A1 string it cannot resolve.
const notFound = (): Error => new Error('Range not found');

export function columnToLetters(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`Invalid column number: ${n}`);
  let out = '';
  let rest = n;
  // Bijective base-26: there is no zero digit, so shift by one before each division.
  while (rest > 0) {
    const rem = (rest - 1) % 26;
    out = String.fromCharCode(65 + rem) + out;
    rest = Math.floor((rest - 1) / 26);
  }
  return out;
}

export function lettersToColumn(s: string): number {
  if (!/^[A-Za-z]+$/.test(s)) throw new RangeError(`Invalid column letters: ${s}`);
  let n = 0;
  for (const ch of s.toUpperCase()) {
    n = n * 26 + (ch.charCodeAt(0) - 64);
    if (n > Number.MAX_SAFE_INTEGER / 26) throw new RangeError(`Invalid column letters: ${s}`);
  }
  return n;
}

/**
 * Formats a range in A1 notation: `A1` for one cell, `A1:C3` otherwise. A `null` size is an open-ended
 * range, the inverse of parseA1: rows null gives `A:C` (from row 1) or `A2:C`, cols null gives `2:5`
 * (from column A) or `B2:5`.
 */
export function toA1(
  row: number,
  col: number,
  numRows: number | null = 1,
  numCols: number | null = 1,
): string {
  checkPositive(row, 'row');
  checkPositive(col, 'column');
  if (numRows !== null) checkPositive(numRows, 'number of rows');
  if (numCols !== null) checkPositive(numCols, 'number of columns');
  if (numRows === null && numCols === null)
    throw new RangeError('A range cannot be open-ended in both directions');
  const c1 = columnToLetters(col);
  if (numRows === null) {
    const c2 = columnToLetters(col + (numCols as number) - 1);
    return row === 1 ? `${c1}:${c2}` : `${c1}${row}:${c2}`;
  }
  const r2 = row + numRows - 1;
  if (numCols === null) return col === 1 ? `${row}:${r2}` : `${c1}${row}:${r2}`;
  if (numRows === 1 && numCols === 1) return `${c1}${row}`;
  return `${c1}${row}:${columnToLetters(col + numCols - 1)}${r2}`;
}

/** Quotes a sheet name for use in A1 notation when Sheets would (anything but a plain identifier). */
export function quoteSheetName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`;
}

function checkPositive(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`Invalid ${what}: ${n}`);
}

// One side of a range: a cell (both parts), a whole column (col only) or a whole row (row only).
interface Ref {
  col?: number;
  row?: number;
}

const REF_RE = /^(?:\$?([A-Za-z]{1,3}))?(?:\$?([0-9]{1,8}))?$/;

function parseRef(s: string): Ref {
  const m = REF_RE.exec(s);
  if (!m || (m[1] === undefined && m[2] === undefined)) throw notFound();
  // `$` only ever precedes a part that is present: `$` alone or `A$` are not references.
  if (/\$$/.test(s) || /\$\$/.test(s)) throw notFound();
  const ref: Ref = {};
  if (m[1] !== undefined) {
    ref.col = lettersToColumn(m[1]);
    if (ref.col > MAX_COLUMNS) throw notFound();
  }
  if (m[2] !== undefined) {
    ref.row = Number(m[2]);
    if (ref.row < 1 || ref.row > MAX_ROWS) throw notFound();
  }
  return ref;
}

function splitSheet(a1: string): { sheetName?: string; ref: string } {
  if (a1.startsWith("'")) {
    // Quoted name: `''` is an escaped quote, the first lone quote closes it and must be followed by `!`.
    let name = '';
    let i = 1;
    for (;;) {
      if (i >= a1.length) throw notFound();
      const ch = a1[i];
      if (ch === "'") {
        if (a1[i + 1] === "'") {
          name += "'";
          i += 2;
          continue;
        }
        break;
      }
      name += ch;
      i++;
    }
    if (a1[i + 1] !== '!' || name === '') throw notFound();
    return { sheetName: name, ref: a1.slice(i + 2) };
  }
  const bang = a1.lastIndexOf('!');
  if (bang < 0) return { ref: a1 };
  const name = a1.slice(0, bang);
  // An unquoted name cannot hold quotes, another `!`, or spaces (Sheets quotes such names itself).
  if (name === '' || /['!\s]/.test(name)) throw notFound();
  return { sheetName: name, ref: a1.slice(bang + 1) };
}

/**
 * Parses A1 notation the way Sheet.getRange / Spreadsheet.getRange resolve it. Reversed corners are
 * normalised (`C3:A1` is `A1:C3`). Throws `Error('Range not found')` like Apps Script for anything else,
 * including named ranges, which a caller must resolve before falling back to this.
 */
export function parseA1(a1: string): ParsedA1 {
  if (typeof a1 !== 'string' || a1 === '') throw notFound();
  const { sheetName, ref } = splitSheet(a1);
  const parts = ref.split(':');
  if (parts.length > 2) throw notFound();
  const withSheet = (p: Omit<ParsedA1, 'sheetName'>): ParsedA1 =>
    sheetName === undefined ? p : { sheetName, ...p };

  const a = parseRef(parts[0]);
  if (parts.length === 1) {
    // A lone column (`A`) or row (`3`) is not a range in Sheets; only full cells are.
    if (a.col === undefined || a.row === undefined) throw notFound();
    return withSheet({ row: a.row, col: a.col, numRows: 1, numCols: 1 });
  }
  const b = parseRef(parts[1]);
  const hasCol = a.col !== undefined && b.col !== undefined;
  const hasRow = a.row !== undefined && b.row !== undefined;

  if (hasCol && hasRow) {
    const [r1, r2] = order(a.row as number, b.row as number);
    const [c1, c2] = order(a.col as number, b.col as number);
    return withSheet({ row: r1, col: c1, numRows: r2 - r1 + 1, numCols: c2 - c1 + 1 });
  }
  if (hasCol) {
    // `A:C` (whole columns) or `B2:B` / `B:B2` (from the given row down to the sheet's end).
    const [c1, c2] = order(a.col as number, b.col as number);
    const row = a.row ?? b.row ?? 1;
    return withSheet({ row, col: c1, numRows: null, numCols: c2 - c1 + 1 });
  }
  if (hasRow) {
    // `2:5` (whole rows) or `B2:5` / `2:B5` (from the given column to the sheet's right end).
    const [r1, r2] = order(a.row as number, b.row as number);
    const col = a.col ?? b.col ?? 1;
    return withSheet({ row: r1, col, numRows: r2 - r1 + 1, numCols: null });
  }
  // Mixed `A:3` and similar have no meaning.
  throw notFound();
}

function order(x: number, y: number): [number, number] {
  return x <= y ? [x, y] : [y, x];
}
