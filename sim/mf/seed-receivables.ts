// The receivables book (売掛金) for 売掛金チェック, added only with `receivables: true` so the default
// dataset other tests rely on is unchanged. Every seeded deposit on 売掛金 gets its invoice 30 days
// earlier (so they all settle exactly), then a hand-made autumn 2026 with the awkward cases: transfer
// fees of 440/660/880 deducted by the payer, split and combined payments, a return, a journal with no
// 取引先 and a deposit nobody billed. test/scenario/receivables.test.ts computes its figures by hand.

import { addDays } from './dates';
import type { IdFactory } from './ids';
import { PERIODS } from './seed-catalog';
import type { Account, InvoiceKind, JournalRecord, StoredSide } from './types';

export interface ReceivableBookContext {
  ids: IdFactory;
  account(name: string): Account;
  taxId(name: string): string;
  nextNumber(term: number): number;
  /** The 普通預金 sub-account deposits land in. */
  bank: Pick<StoredSide, 'account_id' | 'sub_account_id'>;
}

export const RECEIVABLE_PARTNERS = {
  yamada: '000001',
  sato: '000002',
  fukuoka: '000004',
} as const;

type Move =
  | { kind: 'invoice'; date: string; partner: string | null; value: number }
  | { kind: 'deposit'; date: string; partner: string | null; value: number; content: string }
  | { kind: 'return'; date: string; partner: string | null; value: number };

/** The autumn of 2026, as a small company's books would show it. */
export const RECEIVABLE_MOVES: readonly Move[] = [
  { kind: 'invoice', date: '2026-06-15', partner: null, value: 44_000 },
  { kind: 'invoice', date: '2026-07-31', partner: '000001', value: 330_000 },
  { kind: 'invoice', date: '2026-08-20', partner: '000002', value: 132_000 },
  { kind: 'invoice', date: '2026-08-31', partner: '000001', value: 110_000 },
  // July less an 880 yen fee.
  { kind: 'deposit', date: '2026-08-31', partner: '000001', value: 329_120, content: 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ' },
  { kind: 'invoice', date: '2026-09-15', partner: '000002', value: 88_000 },
  // August's invoice paid in two parts, the second less a 440 yen fee.
  { kind: 'deposit', date: '2026-09-25', partner: '000002', value: 66_000, content: 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ' },
  { kind: 'invoice', date: '2026-09-30', partner: '000001', value: 220_000 },
  { kind: 'deposit', date: '2026-10-26', partner: '000002', value: 65_560, content: 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ' },
  // August and September together, less a 660 yen fee.
  { kind: 'deposit', date: '2026-10-30', partner: '000001', value: 329_340, content: 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ' },
  { kind: 'invoice', date: '2026-10-31', partner: '000001', value: 55_000 },
  // A return against October's invoice.
  { kind: 'return', date: '2026-11-10', partner: '000001', value: 5_500 },
  // Two invoices of the same amount: a deposit of 33,000 cannot tell which it pays.
  { kind: 'invoice', date: '2026-11-05', partner: '000003', value: 33_000 },
  { kind: 'invoice', date: '2026-11-12', partner: '000003', value: 33_000 },
  // Money from a customer nobody billed (前受 or a wrong partner).
  { kind: 'deposit', date: '2026-11-20', partner: '000004', value: 20_000, content: 'ﾌﾘｺﾐ ｶ)ﾌｸｵｶﾌﾄﾞｳｻﾝ' },
];

/**
 * Deposits still waiting in the bank feed (未仕訳) at the end of November, for 判定 to meet the open
 * invoices: September's 88,000 less 880, October's 49,500 exactly, one of the two 33,000 invoices,
 * and a customer with nothing open.
 */
export const RECEIVABLE_DEPOSIT_LINES: readonly { date: string; content: string; value: number }[] = [
  { date: '2026-11-25', content: 'ﾌﾘｺﾐ ﾕ)ｻﾄｳｺｳｷﾞﾖｳ', value: 87_120 },
  { date: '2026-11-26', content: 'ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ', value: 49_500 },
  { date: '2026-11-27', content: 'ﾌﾘｺﾐ ﾄﾞ)ｽｽﾞｷﾃﾞｻﾞｲﾝ', value: 33_000 },
  { date: '2026-11-27', content: 'ﾌﾘｺﾐ ｶ)ﾌｸｵｶﾌﾄﾞｳｻﾝ', value: 15_000 },
];

function termOf(date: string): number {
  const period = PERIODS.find((p) => p.start_date <= date && date <= p.end_date);
  if (!period) throw new Error(`seed: ${date} is outside every accounting period`);
  return period.fiscal_year;
}

export function receivableJournals(
  existing: readonly JournalRecord[],
  ctx: ReceivableBookContext,
): JournalRecord[] {
  const receivable = ctx.account('売掛金');
  const sales = ctx.account('売上高');
  const side = (
    ref: Pick<StoredSide, 'account_id' | 'sub_account_id'>,
    value: number,
    partner: string | null,
    tax: string,
    invoice: InvoiceKind = 'INVOICE_KIND_NOT_TARGET',
  ): StoredSide => ({
    ...ref,
    tax_id: ctx.taxId(tax),
    department_id: null,
    trade_partner_code: partner,
    invoice_kind: invoice,
    value,
  });
  const ar = { account_id: receivable.id, sub_account_id: null };
  const sale = { account_id: sales.id, sub_account_id: null };
  const journal = (
    date: string,
    remark: string,
    debitor: StoredSide,
    creditor: StoredSide,
  ): JournalRecord => {
    const term = termOf(date);
    const stamp = `${date}T03:00:00Z`;
    return {
      id: ctx.ids.next(),
      number: ctx.nextNumber(term),
      term_period: term,
      transaction_date: date,
      is_realized: true,
      journal_type: 'journal_entry',
      entered_by: 'JOURNAL_TYPE_NORMAL',
      create_time: stamp,
      update_time: stamp,
      branches: [{ remark, debitor, creditor }],
      tags: [],
      memo: null,
      voucher_file_ids: [],
      transaction_id: null,
    };
  };
  const invoice = (date: string, partner: string | null, value: number) =>
    journal(
      date,
      '請求書',
      side(ar, value, partner, '対象外'),
      side(sale, value, partner, '課税売上 10%', 'INVOICE_KIND_QUALIFIED'),
    );

  const out: JournalRecord[] = [];
  // Earlier deposits on 売掛金 (from the seeded feed) were billed a month before, in the same order.
  for (const j of existing) {
    for (const b of j.branches) {
      if (b.creditor.account_id !== receivable.id) continue;
      out.push(invoice(addDays(j.transaction_date, -30), b.creditor.trade_partner_code, b.creditor.value));
    }
  }
  for (const m of RECEIVABLE_MOVES) {
    if (m.kind === 'invoice') out.push(invoice(m.date, m.partner, m.value));
    else if (m.kind === 'deposit')
      out.push(
        journal(
          m.date,
          m.content,
          side(ctx.bank, m.value, null, '対象外'),
          side(ar, m.value, m.partner, '対象外'),
        ),
      );
    else
      out.push(
        journal(
          m.date,
          '返品',
          side(sale, m.value, m.partner, '課税売上 10%'),
          side(ar, m.value, m.partner, '対象外'),
        ),
      );
  }
  return out;
}
