/**
 * What the system writes into a cell. Every string gets a leading apostrophe: Sheets then keeps it
 * as text exactly (no formula from `=HYPERLINK(…)`, no date from `2026-10-01`, no number from `007`)
 * and does not store the apostrophe (DESIGN §9 invariant 4).
 */
import { asText } from '../core/cell-text';

export function toCell(value: unknown): string | number | boolean {
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value === null || value === undefined) return '';
  return asText(String(value));
}

export function toCells(rows: readonly (readonly unknown[])[]): (string | number | boolean)[][] {
  return rows.map((row) => row.map(toCell));
}
