/**
 * Header reconciliation: which headers a sheet still lacks. Pure, so that setup() can be
 * idempotent and never reorder or delete what people arranged.
 */
export function missingHeaders(existing: readonly unknown[], required: readonly string[]): string[] {
  const present = new Set(existing.map((h) => String(h).trim()).filter((h) => h !== ''));
  return required.filter((h) => !present.has(h));
}

/** Column index (0-based) of each header, by text; people may reorder or hide columns. */
export function headerIndex(headerRow: readonly unknown[]): Map<string, number> {
  const index = new Map<string, number>();
  headerRow.forEach((h, i) => {
    const name = String(h).trim();
    if (name !== '' && !index.has(name)) index.set(name, i);
  });
  return index;
}

/** The rows of `defaults` whose first cell is not already in `existingKeys`. */
export function missingItems<T extends readonly [string, ...unknown[]]>(
  existingKeys: readonly unknown[],
  defaults: readonly T[],
): T[] {
  const present = new Set(existingKeys.map((k) => String(k).trim()));
  return defaults.filter((row) => !present.has(row[0]));
}

/** A1 column letters for a 0-based column index (0 → A, 26 → AA). */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}
