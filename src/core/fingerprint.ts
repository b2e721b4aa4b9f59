/**
 * 指紋: a digest of the business fields sent, by name (DESIGN §3). If a person edits a posted row,
 * the fingerprint no longer matches and the row is listed for review; nothing is re-sent.
 */
import type { LedgerRecord } from './ledger';
import { sha256Hex } from './sha256';

export const FINGERPRINT_FIELDS = [
  '取引日',
  '入出金',
  '金額',
  '摘要',
  '勘定科目',
  '補助科目',
  '税区分',
  '取引先',
] as const;

/**
 * インボイス (issue 27) is a business field sent (it decides the journal's invoice_kind), but a 台帳 written
 * before the column existed has it empty on every row: so it joins the digest only when it is not empty,
 * and a row posted before keeps its 指紋 (no false "edited after posting"). Filling it in on a 完了 row
 * afterwards does change the digest — the journal in MF does not carry what the row now says.
 */
export const FINGERPRINT_OPTIONAL_FIELDS = ['インボイス'] as const;

export function fingerprint(
  record: Pick<LedgerRecord, (typeof FINGERPRINT_FIELDS)[number]> &
    Partial<Pick<LedgerRecord, (typeof FINGERPRINT_OPTIONAL_FIELDS)[number]>>,
): string {
  const lines = FINGERPRINT_FIELDS.map((f) => `${f}=${String(record[f]).trim()}`);
  for (const f of FINGERPRINT_OPTIONAL_FIELDS) {
    const value = String(record[f] ?? '').trim();
    if (value !== '') lines.push(`${f}=${value}`);
  }
  return sha256Hex(lines.join('\n'));
}
