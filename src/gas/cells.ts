/**
 * What the system writes into a cell. Every string gets a leading apostrophe: Sheets then keeps it
 * as text exactly (no formula from `=HYPERLINK(…)`, no date from `2026-10-01`, no number from `007`)
 * and does not store the apostrophe (DESIGN §9 invariant 4).
 */
import { asText } from '../core/cell-text';

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

export function toCell(value: unknown): string | number | boolean {
  if (value instanceof OwnFormula) return value.text;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value === null || value === undefined) return '';
  return asText(String(value));
}

export function toCells(rows: readonly (readonly unknown[])[]): (string | number | boolean)[][] {
  return rows.map((row) => row.map(toCell));
}
