/**
 * Sheets parses what a script writes as if a person typed it (a leading `=` makes a formula,
 * `2026-10-01` a date, `007` the number 7). A leading apostrophe forces text and is not stored —
 * documented for a cell in the automatic format, so that is the only kind of cell kicho writes text
 * into (src/gas/cells.ts). What the apostrophe does in a cell formatted '@' (plain text) is not
 * documented: it may stay as a character (DESIGN §9 invariant 4, reference/gas-platform.md §2.4).
 */
export function asText(value: string): string {
  return value === '' ? '' : `'${value}`;
}

/**
 * A value of a column whose values never begin with an apostrophe (keys, ids, states, timestamps,
 * 指紋), as written: an earlier kicho wrote `'text` into '@' cells, where Sheets may have kept the
 * apostrophe — one more each time it wrote the cell again. Reading without them keeps such a 台帳
 * working until 初期設定 repairs it.
 */
export function withoutStrayApostrophe(value: string): string {
  return value.replace(/^'+/, '');
}
