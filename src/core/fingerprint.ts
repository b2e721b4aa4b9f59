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

export function fingerprint(record: Pick<LedgerRecord, (typeof FINGERPRINT_FIELDS)[number]>): string {
  const payload = FINGERPRINT_FIELDS.map((f) => `${f}=${String(record[f]).trim()}`).join('\n');
  return sha256Hex(payload);
}
