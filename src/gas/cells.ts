/**
 * What the system writes into a cell, and how. Every string gets a leading apostrophe, and goes only
 * into a cell of the automatic format: there Sheets keeps it as text exactly (no formula from
 * `=HYPERLINK(…)`, no date from `2026-10-01`, no number from `007`) and does not store the apostrophe —
 * the documented behaviour (DESIGN §9 invariant 4). In a cell formatted '@' (plain text) the apostrophe
 * may stay as a character, and whether '@' alone stops `=` is not documented either; so before writing
 * text over a '@' cell the writer turns that cell back to the automatic format — unless this account's
 * Sheets was seen stripping the apostrophe in '@' cells too (本番前チェック / 初期設定 store what they saw).
 */
import { asText } from '../core/cell-text';
import { columnLetter } from '../core/headers';
import { forgetSnapshots } from './sheet-snapshot';

type Range = GoogleAppsScript.Spreadsheet.Range;
type Sheet = GoogleAppsScript.Spreadsheet.Sheet;
export type CellInput = string | number | boolean | Date;

/**
 * A formula kicho writes on purpose into a system-owned sheet, built only from numbers it computed
 * (never from outside text), so it cannot carry anything from a bank, a CSV or MF.
 */
export class OwnFormula {
  private constructor(readonly text: string) {}

  /** A link to a row of the 台帳 (its sheet id), shown as 「台帳 n 行目」. */
  static ledgerRow(sheetId: number, row: number): OwnFormula {
    if (!Number.isInteger(sheetId) || !Number.isInteger(row) || row < 1)
      throw new Error(`bad link ${sheetId}/${row}`);
    return new OwnFormula(`=HYPERLINK("#gid=${sheetId}&range=A${row}","台帳 ${row} 行目")`);
  }
}

export function toCell(value: unknown): CellInput {
  if (value instanceof OwnFormula) return value.text;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  // A date read from a sheet goes back as the date it is (its text form would be a different value).
  if (Object.prototype.toString.call(value) === '[object Date]') return value as Date;
  if (value === null || value === undefined) return '';
  return asText(fitCell(String(value)));
}

/** Sheets holds 50,000 characters a cell; whether the leading apostrophe counts is not documented. */
export const CELL_CHARS = 50_000;
const SAFE_TEXT = CELL_CHARS - 1;

/**
 * Text longer than a cell takes is cut (with 「…」) rather than failing the whole write: 49,999
 * characters unless this account was seen taking 50,000 after the apostrophe (本番前チェック).
 */
function fitCell(text: string): string {
  if (text.length <= SAFE_TEXT) return text;
  const limit = textObservation()?.longestText ?? SAFE_TEXT;
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

export function toCells(rows: readonly (readonly unknown[])[]): CellInput[][] {
  return rows.map((row) => row.map(toCell));
}

/** What a Sheets account was seen doing with text in '@' cells (本番前チェック's round trip). */
export interface TextObservation {
  /** A leading apostrophe written into an '@' cell: kept as a character, or stripped (forces text). */
  apostrophe: 'kept' | 'stripped' | 'other';
  /** `=1+1` written into an '@' cell without an apostrophe: a formula, or text. */
  formulas: 'formula' | 'text' | 'other';
  /** The longest text written the documented way (apostrophe first) that read back whole. */
  longestText?: number;
  at: string;
}

export const TEXT_OBSERVATION_PROPERTY = 'KICHO_SHEETS_TEXT';

// One read of the property per execution (each execution is a fresh global scope).
let cachedObservation: TextObservation | null | undefined;

export function textObservation(): TextObservation | null {
  if (cachedObservation !== undefined) return cachedObservation;
  const raw = PropertiesService.getScriptProperties().getProperty(TEXT_OBSERVATION_PROPERTY);
  let parsed: TextObservation | null = null;
  try {
    const o = raw ? (JSON.parse(raw) as Partial<TextObservation>) : null;
    if (o && typeof o.apostrophe === 'string' && typeof o.formulas === 'string')
      parsed = o as TextObservation;
  } catch (_e) {
    parsed = null;
  }
  cachedObservation = parsed;
  return parsed;
}

export function recordTextObservation(o: TextObservation): void {
  PropertiesService.getScriptProperties().setProperty(TEXT_OBSERVATION_PROPERTY, JSON.stringify(o));
  cachedObservation = o;
}

/** True when text with an apostrophe is safe in '@' cells too (seen stripped there). */
export function plainTextCellsAreSafe(): boolean {
  return textObservation()?.apostrophe === 'stripped';
}

/** A cell value that is text kicho wrote the documented way (apostrophe first). */
function isQuotedText(v: CellInput): boolean {
  return typeof v === 'string' && v.startsWith("'");
}

/** Cells to write: `cells` with its top-left at (row, column) of `sheet`. */
export interface CellBlock {
  row: number;
  column: number;
  cells: CellInput[][];
}

/** One value for scattered cells of one column (written by Sheet.getRangeList: one call). */
export interface CellList {
  column: number;
  rows: number[];
  value: CellInput;
}

/** A rectangle of a sheet, 1-based and inclusive. */
export interface Box {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/**
 * The number formats of part of a sheet, read once and reused by later writes of the same execution
 * (issue 18: the posting loop writes the same rows in each lock section). Reused formats may be stale —
 * a person can format a cell '@' between two sections — so every block written on reused formats is
 * listed in `reused`, and the writer's read-back must compare those cells with what was written and
 * write them again on fresh formats when one differs (an apostrophe kept in a '@' cell).
 */
export class FormatCache {
  private formats: string[][] = [];
  private box: Box | null = null;
  /** Blocks written on formats not read by that write itself (the read-back checks them). */
  reused: CellBlock[] = [];

  /** `region`: what to read along with a write's own cells the first time (the rows about to be written). */
  constructor(private readonly region: () => Box | null = () => null) {}

  /** Rows moved, or a write went outside: positions no longer mean the cells that were read. */
  forget(): void {
    this.box = null;
    this.formats = [];
    this.reused = [];
  }

  covers(b: Box): boolean {
    const k = this.box;
    return !!k && b.top >= k.top && b.left >= k.left && b.bottom <= k.bottom && b.right <= k.right;
  }

  /** One read of the formats over `b` and the region. */
  load(sheet: Sheet, b: Box): void {
    const r = this.region();
    const box = r
      ? {
          top: Math.min(b.top, r.top),
          left: Math.min(b.left, r.left),
          bottom: Math.max(b.bottom, r.bottom),
          right: Math.max(b.right, r.right),
        }
      : b;
    this.formats = sheet
      .getRange(box.top, box.left, box.bottom - box.top + 1, box.right - box.left + 1)
      .getNumberFormats();
    this.box = box;
  }

  isPlain(row: number, column: number): boolean {
    const k = this.box;
    return !!k && this.formats[row - k.top]?.[column - k.left] === '@';
  }

  /** Cells kicho just turned back to the automatic format. */
  setAutomatic(row: number, column: number, rows: number): void {
    const k = this.box;
    if (!k) return;
    for (let i = 0; i < rows; i++) {
      const line = this.formats[row + i - k.top];
      if (line && column - k.left < line.length) line[column - k.left] = '';
    }
  }
}

/**
 * Turns the '@' cells that are about to receive quoted text back to the automatic format: one read of
 * the formats over all the blocks and lists (before any of them is written, so the read does not make
 * earlier writes land before their flush), then one clearFormat per run of such cells in a column, one
 * per list (none, normally: kicho formats nothing '@'; an earlier version did, and people may). With a
 * cache that already holds those cells' formats, no read: the blocks are listed for the read-back.
 */
function automaticUnderText(
  sheet: Sheet,
  blocks: readonly CellBlock[],
  lists: readonly CellList[],
  cache?: FormatCache,
): void {
  const tops = [...blocks.map((b) => b.row), ...lists.map((l) => Math.min(...l.rows))];
  const lefts = [...blocks.map((b) => b.column), ...lists.map((l) => l.column)];
  const bottoms = [
    ...blocks.map((b) => b.row + b.cells.length - 1),
    ...lists.map((l) => Math.max(...l.rows)),
  ];
  const rights = [...blocks.map((b) => b.column + b.cells[0].length - 1), ...lists.map((l) => l.column)];
  const top = Math.min(...tops);
  const left = Math.min(...lefts);
  const box = { top, left, bottom: Math.max(...bottoms), right: Math.max(...rights) };
  let isPlain: (row: number, column: number) => boolean;
  if (cache) {
    if (cache.covers(box)) cache.reused.push(...blocks);
    else cache.load(sheet, box);
    isPlain = (row, column) => cache.isPlain(row, column);
  } else {
    const formats = sheet.getRange(top, left, box.bottom - top + 1, box.right - left + 1).getNumberFormats();
    isPlain = (row, column) => formats[row - top]?.[column - left] === '@';
  }
  for (const b of blocks) {
    for (let j = 0; j < b.cells[0].length; j++) {
      let start = -1;
      for (let i = 0; i <= b.cells.length; i++) {
        const plain = i < b.cells.length && isPlain(b.row + i, b.column + j) && isQuotedText(b.cells[i][j]);
        if (plain && start < 0) start = i;
        if (!plain && start >= 0) {
          sheet.getRange(b.row + start, b.column + j, i - start, 1).clearFormat();
          cache?.setAutomatic(b.row + start, b.column + j, i - start);
          start = -1;
        }
      }
    }
  }
  for (const l of lists) {
    if (!isQuotedText(l.value)) continue;
    const plain = l.rows.filter((r) => isPlain(r, l.column));
    if (plain.length > 0) sheet.getRangeList(plain.map((r) => a1(r, l.column))).clearFormat();
    for (const r of plain) cache?.setAutomatic(r, l.column, 1);
  }
}

/** A1 notation of one cell (rows and columns 1-based). */
function a1(row: number, column: number): string {
  return `${columnLetter(column - 1)}${row}`;
}

/**
 * Writes blocks of cells (already converted by toCell, or values as read) of one sheet, one setValues
 * each, after making sure no quoted text lands in a '@' cell whose behaviour is unknown or harmful.
 * `fixPlainText: false` leaves '@' cells as they are: the 台帳 writer asks for that until 初期設定 has
 * repaired an earlier version's '@' columns, so the repair still finds every cell it must fix.
 */
export function setCellBlocks(
  sheet: Sheet,
  blocks: readonly CellBlock[],
  fixPlainText = true,
  lists: readonly CellList[] = [],
  formats?: FormatCache,
): void {
  // A sheet kicho writes is read afresh afterwards (設定・マスタ・取込元 are otherwise read once).
  forgetSnapshots();
  const some = blocks.filter((b) => b.cells.length > 0 && b.cells[0].length > 0);
  const someLists = lists.filter((l) => l.rows.length > 0);
  if (some.length === 0 && someLists.length === 0) return;
  if (
    fixPlainText &&
    !plainTextCellsAreSafe() &&
    (some.some((b) => b.cells.some((r) => r.some(isQuotedText))) ||
      someLists.some((l) => isQuotedText(l.value)))
  ) {
    automaticUnderText(sheet, some, someLists, formats);
  }
  for (const b of some) sheet.getRange(b.row, b.column, b.cells.length, b.cells[0].length).setValues(b.cells);
  for (const l of someLists) sheet.getRangeList(l.rows.map((r) => a1(r, l.column))).setValue(l.value);
}

/** One block: `cells` into `range` (whose size they have). */
export function setCells(range: Range, cells: CellInput[][]): void {
  setCellBlocks(range.getSheet(), [{ row: range.getRow(), column: range.getColumn(), cells }]);
}

/** When this version's 初期設定 checked the 台帳's text formats (script property; null: not yet). */
export const LEDGER_TEXT_PROPERTY = 'KICHO_LEDGER_TEXT';

let cachedChecked: string | null | undefined;

export function ledgerTextChecked(): string | null {
  if (cachedChecked === undefined) {
    cachedChecked = PropertiesService.getScriptProperties().getProperty(LEDGER_TEXT_PROPERTY);
  }
  return cachedChecked;
}

export function markLedgerTextChecked(): void {
  cachedChecked = new Date().toISOString();
  PropertiesService.getScriptProperties().setProperty(LEDGER_TEXT_PROPERTY, cachedChecked);
}
