/**
 * Repairing a 台帳 an earlier kicho wrote the undocumented way: it formatted キー, 明細ID, 摘要, MF仕訳ID,
 * 指紋 and 取引日 '@' (plain text) and also wrote every string with a leading apostrophe. Where Sheets
 * keeps that apostrophe in '@' cells ("kept"), each write of such a cell added one more (a value read
 * with its apostrophe was written back with another), so the leading apostrophes are removed. Values of
 * those columns never begin with one — except a description: a CSV line's 摘要 keeps as many as make its
 * own キー come out again (DESIGN §2); an MF line's 摘要 cannot be told apart and loses them (the summary
 * says so). Where Sheets strips it ("stripped"), the values are right and only the format goes back to
 * automatic. Which world this is, the caller observed (a probe on a scratch sheet).
 * Pure: values and formats in, what to clear and write out.
 */
import { fingerprint } from './fingerprint';
import { headerIndex } from './headers';
import { csvKey, isCsvKey } from './keys';
import { type LedgerRecord, parseLedger } from './ledger';
import { LEDGER_HEADERS } from './schema';

export type ApostropheWorld = 'kept' | 'stripped' | 'other';

export interface TextRepairPlan {
  /** Runs of '@' cells, per column (0-based): sheet rows from..to go back to the automatic format. */
  clears: { column: number; firstRow: number; lastRow: number }[];
  /** Per column (0-based), a block of values to write (as they should read), from sheet row `firstRow`. */
  writes: { column: number; firstRow: number; values: unknown[][] }[];
  /** Cells formatted '@' in kicho's columns. */
  plainCells: number;
  /** Cells whose leading apostrophes were removed (kept world only). */
  apostrophes: number;
  /** CSV descriptions whose own キー shows they really began with an apostrophe: kept. */
  keptApostrophes: number;
  /** 指紋 recomputed because the repaired values are what the old 指紋 was taken over. */
  fingerprints: number;
  /** Headers of the columns that had '@' cells. */
  headers: string[];
}

const leading = /^'+/;

/**
 * `values`: the 台帳 from row 1 (getDataRange). `formats`: getNumberFormats of rows 2..maxRows over
 * the same width (rows below the data keep their format for the rows appended later).
 */
export function planTextRepair(
  values: readonly (readonly unknown[])[],
  formats: readonly (readonly unknown[])[],
  world: ApostropheWorld,
): TextRepairPlan {
  const index = headerIndex(values[0] ?? []);
  const plan: TextRepairPlan = {
    clears: [],
    writes: [],
    plainCells: 0,
    apostrophes: 0,
    keptApostrophes: 0,
    fingerprints: 0,
    headers: [],
  };
  const after = values.map((row) => row.slice());
  const descriptions: { row: number; original: string }[] = [];
  for (const h of LEDGER_HEADERS) {
    const col = index.get(h);
    if (col === undefined) continue;
    let runStart = -1;
    let any = false;
    for (let i = 0; i <= formats.length; i++) {
      const plain = i < formats.length && formats[i]?.[col] === '@';
      // Only the '@' cells themselves go back to automatic: a date format Sheets gave a typed date stays.
      if (plain && runStart < 0) runStart = i;
      if (!plain && runStart >= 0) {
        plan.clears.push({ column: col, firstRow: runStart + 2, lastRow: i + 1 });
        runStart = -1;
      }
      if (!plain) continue;
      any = true;
      plan.plainCells++;
      const row = after[i + 1];
      const v = row?.[col];
      if (world === 'kept' && typeof v === 'string' && v.startsWith("'")) {
        row[col] = v.replace(leading, '');
        plan.apostrophes++;
        if (h === '摘要') descriptions.push({ row: i + 1, original: v });
      }
    }
    if (any) plan.headers.push(h);
  }
  if (plan.apostrophes === 0) return plan;
  const descCol = index.get('摘要');
  if (descCol !== undefined) keepCsvApostrophes(after, descCol, descriptions, plan);
  const fp = index.get('指紋');
  if (fp !== undefined) refreshFingerprints(values, after, fp, index.get('取引日'), plan);
  const columns = [...new Set(plan.clears.map((c) => c.column))];
  if (fp !== undefined && plan.fingerprints > 0 && !columns.includes(fp)) columns.push(fp);
  for (const column of columns) {
    let first = -1;
    let last = -1;
    for (let r = 1; r < values.length; r++) {
      if (values[r][column] === after[r][column]) continue;
      if (first < 0) first = r;
      last = r;
    }
    if (first < 0) continue;
    plan.writes.push({
      column,
      firstRow: first + 1,
      values: after.slice(first, last + 1).map((row) => [row[column]]),
    });
  }
  return plan;
}

/**
 * A CSV line's キー is a digest of its 口座, 取引日, 金額 and 摘要 (DESIGN §2): of the readings of a
 * repaired 摘要 — no leading apostrophe, one, two … as stored — the first whose digest gives the row's
 * own キー (for some occurrence number) is the description as it was imported.
 */
function keepCsvApostrophes(
  after: unknown[][],
  col: number,
  descriptions: readonly { row: number; original: string }[],
  plan: TextRepairPlan,
): void {
  const records = new Map(parseLedger(after).rows.map((r) => [r.rowNumber - 1, r.record]));
  const group = (r: LedgerRecord) => `${r.口座}|${r.取引日}|${r.金額}`;
  const sizes = new Map<string, number>();
  for (const r of records.values()) sizes.set(group(r), (sizes.get(group(r)) ?? 0) + 1);
  for (const d of descriptions) {
    const r = records.get(d.row);
    if (!r || !isCsvKey(r.キー)) continue;
    const bare = d.original.replace(leading, '');
    const quotes = d.original.length - bare.length;
    const occurrences = sizes.get(group(r)) ?? 1;
    for (let kept = 0; kept < quotes; kept++) {
      const text = `${"'".repeat(kept)}${bare}`;
      let found = false;
      for (let n = 1; n <= occurrences && !found; n++) {
        found = csvKey(r.口座, r.取引日, Number(r.金額), text, n) === r.キー;
      }
      if (!found) continue;
      after[d.row][col] = text;
      if (kept > 0) plan.keptApostrophes++;
      break;
    }
  }
}

/**
 * A 指紋 taken over the values as they read before the repair is taken again over the repaired values,
 * so a row nobody edited is not reported as edited after posting; a 指紋 that did not match before
 * still does not match (a real edit stays visible).
 */
function refreshFingerprints(
  before: readonly (readonly unknown[])[],
  after: unknown[][],
  col: number,
  dateCol: number | undefined,
  plan: TextRepairPlan,
): void {
  const repaired = new Map(parseLedger(after).rows.map((r) => [r.rowNumber, r.record]));
  for (const row of parseLedger(before).rows) {
    const stored = row.record.指紋;
    const now = repaired.get(row.rowNumber);
    if (!now || stored === '') continue;
    // The earlier version read 取引日 with its apostrophes (this one reads past them): either reading.
    const rawDate = dateCol === undefined ? undefined : before[row.rowNumber - 1]?.[dateCol];
    const asRead = typeof rawDate === 'string' ? { ...row.record, 取引日: rawDate } : row.record;
    if (fingerprint(row.record) !== stored && fingerprint(asRead) !== stored) continue;
    const fresh = fingerprint(now);
    if (fresh === stored) continue;
    after[row.rowNumber - 1][col] = fresh;
    plan.fingerprints++;
  }
}

/** The ログ / summary sentence for a repair, or '' when nothing was done. */
export function describeTextRepair(plan: TextRepairPlan): string {
  if (plan.clears.length === 0) return '';
  const parts = [
    `台帳の列 ${plan.headers.join('・')} の書式「書式なしテキスト」（${plan.plainCells} セル）を「自動」に戻しました（kicho の文字の書き方に合わせるためです。値は変わりません）。`,
  ];
  if (plan.apostrophes > 0) {
    parts.push(
      `以前の版が書いたときに値の先頭に残っていた「'」を ${plan.apostrophes} か所で外しました（MFの明細の摘要がもともと「'」で始まっていた場合は、その「'」も外れています）。`,
    );
  }
  if (plan.keptApostrophes > 0) {
    parts.push(
      `CSVの明細の摘要のうち ${plan.keptApostrophes} 件は、もともと「'」で始まっていたことをキーで確かめて残しました。`,
    );
  }
  if (plan.fingerprints > 0) parts.push(`指紋 ${plan.fingerprints} 件を直した値で計算し直しました。`);
  return parts.join('');
}
