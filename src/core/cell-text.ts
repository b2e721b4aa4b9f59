/**
 * Sheets parses what a script writes as if a person typed it (a leading `=` makes a formula,
 * `2026-10-01` a date, `007` the number 7). A leading apostrophe forces text and is not stored,
 * so text we must keep exactly — keys, outside descriptions, timestamps — is written through here
 * (DESIGN §9 invariant 4).
 */
export function asText(value: string): string {
  return value === '' ? '' : `'${value}`;
}

/** True for text that Sheets would turn into a formula or an operator expression. */
export function looksLikeFormula(value: string): boolean {
  return /^[=+\-@]/.test(value);
}
