// Renders stored journals the way GET returns them: names added, and `value` split into the amount
// without tax plus `tax_value` (requests carry the tax-inclusive amount) [O S5, S4].

import type { MfStore } from './store';
import type { InvoiceKind, Journal, JournalRecord, JournalSide, StoredSide, Tax } from './types';

/**
 * Tax contained in a tax-inclusive amount, rounded down. For the 経過措置 kinds (80/70/50/30 %) MF
 * recomputes the deductible tax [O S6]; we model that as the same share of the full tax, and none for
 * UNQUALIFIED [I].
 */
export function includedTax(gross: number, tax: Tax | undefined, invoiceKind: InvoiceKind): number {
  const rate = tax?.tax_rate ?? 0;
  if (!rate) return 0;
  const permille = Math.round(rate * 1000);
  const full = Math.floor((gross * permille) / (1000 + permille));
  const share = /^INVOICE_KIND_UNQUALIFIED_(\d+)$/.exec(invoiceKind);
  if (share) return Math.floor((full * Number(share[1])) / 100);
  if (invoiceKind === 'INVOICE_KIND_UNQUALIFIED') return 0;
  return full;
}

function renderSide(store: MfStore, side: StoredSide): JournalSide {
  const tax = side.tax_id === null ? undefined : store.tax(side.tax_id);
  const taxValue = includedTax(side.value, tax, side.invoice_kind);
  const department = side.department_id === null ? undefined : store.department(side.department_id);
  const partner = side.trade_partner_code === null ? undefined : store.tradePartner(side.trade_partner_code);
  const subAccount = side.sub_account_id === null ? undefined : store.subAccount(side.sub_account_id);
  return {
    account_id: side.account_id,
    account_name: store.account(side.account_id)?.name ?? '',
    sub_account_id: side.sub_account_id,
    sub_account_name: subAccount?.name ?? null,
    tax_id: side.tax_id,
    tax_name: tax?.abbreviation ?? null,
    tax_long_name: tax?.name ?? null,
    value: side.value - taxValue,
    tax_value: taxValue,
    department_id: side.department_id,
    department_name: department?.name ?? null,
    trade_partner_code: side.trade_partner_code,
    trade_partner_name: partner?.name ?? null,
    invoice_kind: side.invoice_kind,
  };
}

/** How a listing spells ids it echoes (ApiSettings.transactionIdForm). */
export interface JournalView {
  transactionIdForm?: 'as-listed' | 'lowercase-hex';
}

function echoedId(id: string | null, view: JournalView): string | null {
  if (id === null || view.transactionIdForm !== 'lowercase-hex') return id;
  return id.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

export function renderJournal(store: MfStore, record: JournalRecord, view: JournalView = {}): Journal {
  return {
    id: record.id,
    number: record.number,
    term_period: record.term_period,
    transaction_date: record.transaction_date,
    is_realized: record.is_realized,
    journal_type: record.journal_type,
    entered_by: record.entered_by,
    create_time: record.create_time,
    update_time: record.update_time,
    branches: record.branches.map((branch) => ({
      remark: branch.remark,
      debitor: renderSide(store, branch.debitor),
      creditor: renderSide(store, branch.creditor),
    })),
    tags: [...record.tags],
    memo: record.memo,
    voucher_file_ids: [...record.voucher_file_ids],
    transaction_id: echoedId(record.transaction_id, view),
  };
}
