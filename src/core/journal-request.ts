/**
 * The body of POST /transactions/{id}/journalize for one 台帳 row of an MF line (DESIGN §5): accounts by
 * name resolved against the マスタ, the remark cut to MF's limit, kicho's tag for the row's key.
 */
import { type LedgerKey, remoteTag } from './keys';
import type { LedgerRecord } from './ledger';
import { type Masters, resolvePosting } from './masters';
import { truncateChars } from './text';

/** MF's remark: maxLength 200 in the document (characters, not UTF-16 units). */
const REMARK_LIMIT = 200;

/**
 * `key`: the row's key as key-check passed it (checkedKey): only such a key becomes the journal's tag.
 * `invoiceKind`: the purchase's インボイス区分 (core/invoice.ts invoiceForSend), left out otherwise — a 入金's
 * counter account is MF's credit side, which takes none.
 */
export function journalizeRequest(
  record: LedgerRecord,
  masters: Masters,
  key: LedgerKey,
  invoiceKind?: string,
) {
  const resolved = resolvePosting(masters, {
    勘定科目: record.勘定科目,
    補助科目: record.補助科目,
    税区分: record.税区分,
    取引先: record.取引先,
  });
  if (!resolved.ok) return { ok: false as const, problems: resolved.problems };
  const r = resolved.value;
  return {
    ok: true as const,
    request: {
      transaction_id: record.明細ID,
      account_id: r.accountId,
      sub_account_id: r.subAccountId,
      tax_id: r.taxId,
      trade_partner_code: r.partnerCode,
      ...(invoiceKind !== undefined && record.入出金 === '出金' ? { invoice_kind: invoiceKind } : {}),
      transaction_date: record.取引日,
      remark: truncateChars(record.摘要, REMARK_LIMIT),
      tags: [remoteTag(key)],
    },
  };
}
