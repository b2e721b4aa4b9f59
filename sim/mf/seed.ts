// A realistic, seeded office for the fake: masters as a small Japanese company would have them, and a
// few hundred statement lines with the awkward parts of real feeds (half-width kana, genuine duplicates,
// formula-looking text, null contents). Same seed and options → same dataset, ids included.

import { addDays, daysBetween } from './dates';
import { IdFactory } from './ids';
import { Random } from './random';
import {
  ACCOUNTS,
  FIXED_LINES,
  type FiscalPeriod,
  type FixedLine,
  fiscalPeriods,
  type LineTemplate,
  PERIODS,
  type Source,
  TAXES,
  TEMPLATES,
  TRADE_PARTNERS,
} from './seed-catalog';
import { RECEIVABLE_DEPOSIT_LINES, receivableJournals } from './seed-receivables';
import type {
  Account,
  ConnectedAccount,
  Department,
  JournalizingStatus,
  JournalRecord,
  MfDataset,
  StoredSide,
  SubAccount,
  Tax,
  TermSetting,
  Transaction,
} from './types';

export const TEST_OFFICE_CODE = '1234-5678';
export const TEST_OFFICE_NAME = '株式会社サンプル';

export interface DatasetOptions {
  /** Number of statement lines (default 300; at least the fixed edge-case lines are always present). */
  lineCount?: number;
  /** First and last date of the lines (default 2026-01-05 .. 2026-06-30, spanning two terms). */
  from?: string;
  to?: string;
  /** Adds the receivables book (seed-receivables.ts): invoices, deposits, fees, a return (default off). */
  receivables?: boolean;
  /** Accounting periods up to this fiscal year (default 2026: to 2027-03-31); later years draw no id early. */
  lastFiscalYear?: number;
}

const DEFAULT_LINES = 300;
const DEFAULT_FROM = '2026-01-05';
const DEFAULT_TO = '2026-06-30';
const CARD_SETTLEMENT = 'ﾐﾂｲｽﾐﾄﾓｶｰﾄﾞ';

function monthlyLines(from: string, to: string): FixedLine[] {
  const lines: FixedLine[] = [];
  for (let month = from.slice(0, 7); month <= to.slice(0, 7); month = addDays(`${month}-28`, 7).slice(0, 7)) {
    // Debits due on a weekend or holiday are booked on the next business day (holidays ignored here).
    const rent = nextWeekday(`${month}-27`);
    const card = nextWeekday(`${month}-10`);
    if (rent >= from && rent <= to) {
      lines.push({ date: rent, content: 'ﾔﾁﾝ ｶ)ﾌｸｵｶﾌﾄﾞｳｻﾝ', side: 'EXPENSE', source: 'smbc', value: 165000 });
    }
    if (card >= from && card <= to) {
      // The amount is filled in from the previous month's card lines (settlementAmount).
      lines.push({ date: card, content: CARD_SETTLEMENT, side: 'EXPENSE', source: 'smbc', value: 0 });
    }
  }
  return lines;
}

function isWeekend(date: string): boolean {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
}

function nextWeekday(date: string): string {
  let day = date;
  while (isWeekend(day)) day = addDays(day, 1);
  return day;
}

type LedgerRef = Pick<StoredSide, 'account_id' | 'sub_account_id'>;

interface Masters {
  office: MfDataset['office'];
  termSettings: TermSetting[];
  accounts: Account[];
  taxes: Tax[];
  departments: Department[];
  connectedAccounts: ConnectedAccount[];
  /** Where lines of each feed come from, and the ledger account MF books them against. */
  sources: Record<Source, { service: string; sub: string | null; ledger: LedgerRef }>;
  account(name: string): Account;
  taxId(name: string): string;
}

function buildMasters(ids: IdFactory, periods: readonly FiscalPeriod[]): Masters {
  const taxes: Tax[] = TAXES.map((spec) => ({
    id: ids.next(),
    name: spec.name,
    abbreviation: spec.abbreviation,
    tax_rate: spec.rate,
    search_key: null,
    available: spec.available ?? true,
  }));
  const taxId = (name: string): string => {
    const tax = taxes.find((t) => t.name === name);
    if (!tax) throw new Error(`seed: no tax ${name}`);
    return tax.id;
  };

  const accounts: Account[] = ACCOUNTS.map((spec) => {
    const id = ids.next();
    const subAccounts: SubAccount[] = (spec.subs ?? []).map((name) => ({
      id: ids.next(),
      account_id: id,
      name,
      search_key: null,
      tax_id: taxId(spec.tax),
    }));
    return {
      id,
      name: spec.name,
      available: spec.available ?? true,
      tax_id: taxId(spec.tax),
      search_key: spec.reading,
      account_group: spec.group,
      category: spec.category,
      financial_statement_type: ['REVENUE', 'EXPENSE'].includes(spec.group) ? 'PROFIT_LOSS' : 'BALANCE_SHEET',
      sub_accounts: subAccounts,
    };
  });
  const account = (name: string): Account => {
    const found = accounts.find((a) => a.name === name);
    if (!found) throw new Error(`seed: no account ${name}`);
    return found;
  };
  const ledger = (accountName: string, subName: string | null): LedgerRef => {
    const parent = account(accountName);
    const sub = subName === null ? undefined : parent.sub_accounts.find((s) => s.name === subName);
    if (subName !== null && !sub) throw new Error(`seed: no sub-account ${accountName}/${subName}`);
    return { account_id: parent.id, sub_account_id: sub?.id ?? null };
  };

  const headOffice = ids.next();
  const departments: Department[] = [
    { id: headOffice, name: '本社', parent_id: null, search_key: 'ほんしゃ' },
    { id: ids.next(), name: '営業部', parent_id: headOffice, search_key: 'えいぎょうぶ' },
    { id: ids.next(), name: '開発部', parent_id: headOffice, search_key: 'かいはつぶ' },
  ];

  const smbc = ledger('普通預金', '三井住友銀行');
  const shibuya = ledger('普通預金', '三井住友銀行 渋谷支店');
  const bank: ConnectedAccount = {
    id: ids.next(),
    name: '三井住友銀行',
    is_manual: false,
    account_id: null,
    sub_account_id: null,
    connected_sub_accounts: [
      { id: ids.next(), name: '代表口座 普通 1234567', ...smbc },
      { id: ids.next(), name: '渋谷支店 普通 7654321', ...shibuya },
    ],
  };
  const yuchoLedger = ledger('普通預金', 'ゆうちょ銀行');
  const yucho: ConnectedAccount = {
    id: ids.next(),
    name: 'ゆうちょ銀行',
    is_manual: false,
    ...yuchoLedger,
    connected_sub_accounts: [],
  };
  const cardLedger = ledger('未払金', '三井住友カード');
  const card: ConnectedAccount = {
    id: ids.next(),
    name: '三井住友カード',
    is_manual: false,
    ...cardLedger,
    connected_sub_accounts: [],
  };
  // A manual service: the only kind POST /transactions accepts [O S4].
  const manual: ConnectedAccount = {
    id: ids.next(),
    name: '手入力（現金出納帳）',
    is_manual: true,
    ...ledger('現金', null),
    connected_sub_accounts: [],
  };

  const office: MfDataset['office'] = {
    id: ids.next(),
    name: TEST_OFFICE_NAME,
    code: TEST_OFFICE_CODE,
    type: 'CORPORATE',
    is_manufacturing: false,
    accounting_periods: [...periods].reverse().map((p) => ({ ...p })),
  };
  const termSettings: TermSetting[] = periods.map((p) => ({
    ...p,
    accounting_method: 'TAX_INCLUDED',
    tax_method: 'INDIVIDUAL_ALLOCATION',
    sales_rounding_method: 'ROUND_DOWN',
    purchases_rounding_method: 'ROUND_DOWN',
    prefecture: '東京都',
    business_types: ['SERVICES'],
  }));

  return {
    office,
    termSettings,
    accounts,
    taxes,
    departments,
    connectedAccounts: [bank, yucho, card, manual],
    sources: {
      smbc: { service: bank.id, sub: bank.connected_sub_accounts[0]?.id ?? null, ledger: smbc },
      shibuya: { service: bank.id, sub: bank.connected_sub_accounts[1]?.id ?? null, ledger: shibuya },
      yucho: { service: yucho.id, sub: null, ledger: yuchoLedger },
      card: { service: card.id, sub: null, ledger: cardLedger },
    },
    account,
    taxId,
  };
}

interface Draft {
  line: FixedLine;
  /** The everyday pattern the line was drawn from; undefined for the fixed edge cases. */
  template: LineTemplate | undefined;
}

/** Fixed edge cases and monthly bills, then seeded everyday lines up to lineCount, in date order. */
function draftLines(random: Random, from: string, to: string, requested: number): Draft[] {
  const fixed = [...monthlyLines(from, to), ...FIXED_LINES.filter((l) => l.date >= from && l.date <= to)];
  const drafts: Draft[] = fixed.map((line) => ({ line, template: undefined }));
  const span = daysBetween(from, to);
  const weighted = TEMPLATES.flatMap((template) => Array.from({ length: template.weight }, () => template));
  while (drafts.length < Math.max(requested, fixed.length)) {
    const template = random.pick(weighted);
    let date = addDays(from, random.between(0, span));
    // Banks book nothing at weekends; card lines carry the day of use.
    while (template.source !== 'card' && isWeekend(date)) date = addDays(from, random.between(0, span));
    const { content, side, source } = template;
    drafts.push({ line: { date, content, side, source, value: random.pick(template.amounts) }, template });
  }
  return drafts
    .map((draft, seq) => ({ draft, seq }))
    .sort((a, b) => a.draft.line.date.localeCompare(b.draft.line.date) || a.seq - b.seq)
    .map(({ draft }) => draft);
}

/** The card settlement debits what the card spent the month before, as a real statement would. */
function settlementAmount(drafts: readonly Draft[], date: string): number {
  const previousMonth = addDays(`${date.slice(0, 7)}-01`, -1).slice(0, 7);
  const spent = drafts
    .filter(
      ({ line }) => line.source === 'card' && line.side === 'EXPENSE' && line.date.startsWith(previousMonth),
    )
    .reduce((sum, { line }) => sum + line.value, 0);
  return spent || 5500;
}

/** Builds the whole office. Master ids are drawn first, so they do not depend on the line count. */
export function buildDataset(seed = 1, options: DatasetOptions = {}): MfDataset {
  const random = new Random(seed);
  const ids = new IdFactory(random);
  const periods = fiscalPeriods(options.lastFiscalYear);
  const masters = buildMasters(ids, periods);
  const drafts = draftLines(
    random,
    options.from ?? DEFAULT_FROM,
    options.to ?? DEFAULT_TO,
    options.lineCount ?? DEFAULT_LINES,
  );

  const numbers = new Map<number, number>();
  const nextNumber = (term: number): number => {
    const n = (numbers.get(term) ?? 0) + 1;
    numbers.set(term, n);
    return n;
  };
  const journals: JournalRecord[] = PERIODS.map((period) =>
    openingJournal(ids.next(), nextNumber(period.fiscal_year), period, masters),
  );
  const transactions: Transaction[] = [];
  for (const { line, template } of drafts) {
    const source = masters.sources[line.source];
    const status = template ? statusFor(random, line.date) : 'none';
    const tx: Transaction = {
      id: ids.next(),
      date: line.date,
      value: line.content === CARD_SETTLEMENT ? settlementAmount(drafts, line.date) : line.value,
      side: line.side,
      content: line.content,
      memo: null,
      journalizing_status: status,
      connected_account_id: source.service,
      connected_sub_account_id: source.sub,
      voucher_file_ids: [],
    };
    transactions.push(tx);
    const period = periods.find((p) => p.start_date <= tx.date && tx.date <= p.end_date);
    if (template && period && (status === 'registered' || status === 'modified')) {
      const stamp = `${addDays(tx.date, 1)}T01:${String(random.between(0, 59)).padStart(2, '0')}:00Z`;
      journals.push(
        linkedJournal(
          ids.next(),
          nextNumber(period.fiscal_year),
          period.fiscal_year,
          tx,
          template,
          masters,
          stamp,
        ),
      );
    }
  }

  if (options.receivables) {
    journals.push(
      ...receivableJournals(journals, {
        ids,
        account: masters.account,
        taxId: masters.taxId,
        nextNumber,
        bank: masters.sources.smbc.ledger,
      }),
    );
    for (const line of RECEIVABLE_DEPOSIT_LINES) {
      transactions.push({
        id: ids.next(),
        date: line.date,
        value: line.value,
        side: 'INCOME',
        content: line.content,
        memo: null,
        journalizing_status: 'none',
        connected_account_id: masters.sources.smbc.service,
        connected_sub_account_id: masters.sources.smbc.sub,
        voucher_file_ids: [],
      });
    }
  }

  // Later years' 期首残高 draw their ids last, so the option shifts no seeded id.
  for (const period of periods.slice(PERIODS.length))
    journals.push(openingJournal(ids.next(), nextNumber(period.fiscal_year), period, masters));

  return {
    office: masters.office,
    termSettings: masters.termSettings,
    accounts: masters.accounts,
    taxes: masters.taxes,
    departments: masters.departments,
    tradePartners: TRADE_PARTNERS.map((p) => ({ ...p })),
    connectedAccounts: masters.connectedAccounts,
    transactions,
    journals,
  };
}

/** Older lines are mostly done already; recent ones mostly wait for us. */
function statusFor(random: Random, date: string): JournalizingStatus {
  const roll = random.float();
  if (date < '2026-03-01') {
    if (roll < 0.35) return 'registered';
    if (roll < 0.43) return 'excluded';
    if (roll < 0.45) return 'modified';
    return 'none';
  }
  if (roll < 0.05) return 'registered';
  if (roll < 0.08) return 'excluded';
  return 'none';
}

function side(ref: LedgerRef, value: number, extra: Partial<StoredSide> = {}): StoredSide {
  return {
    ...ref,
    tax_id: null,
    department_id: null,
    trade_partner_code: null,
    invoice_kind: 'INVOICE_KIND_NONE',
    value,
    ...extra,
  };
}

/** The journal a person made from a line in the MF UI before we came along. */
function linkedJournal(
  id: string,
  number: number,
  termPeriod: number,
  tx: Transaction,
  template: LineTemplate,
  masters: Masters,
  stamp: string,
): JournalRecord {
  const counterAccount = masters.account(template.account);
  const counter = side({ account_id: counterAccount.id, sub_account_id: null }, tx.value, {
    tax_id: template.tax ? masters.taxId(template.tax) : counterAccount.tax_id,
    trade_partner_code: template.partner ?? null,
    invoice_kind: template.partner ? 'INVOICE_KIND_QUALIFIED' : 'INVOICE_KIND_NONE',
  });
  const bank = side(masters.sources[template.source].ledger, tx.value, {
    tax_id: masters.taxId('対象外'),
    invoice_kind: 'INVOICE_KIND_NOT_TARGET',
  });
  return {
    id,
    number,
    term_period: termPeriod,
    transaction_date: tx.date,
    is_realized: true,
    journal_type: 'journal_entry',
    entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
    create_time: stamp,
    update_time: stamp,
    branches: [
      tx.side === 'EXPENSE'
        ? { remark: tx.content, debitor: counter, creditor: bank }
        : { remark: tx.content, debitor: bank, creditor: counter },
    ],
    tags: [],
    memo: null,
    voucher_file_ids: [],
    transaction_id: tx.id,
  };
}

/** 期首残高: excluded from period sums by entered_by, and a journal with no line behind it. */
function openingJournal(id: string, number: number, period: FiscalPeriod, masters: Masters): JournalRecord {
  const stamp = `${period.start_date}T00:00:00Z`;
  const capital = { account_id: masters.account('資本金').id, sub_account_id: null };
  const retained = { account_id: masters.account('繰越利益剰余金').id, sub_account_id: null };
  return {
    id,
    number,
    term_period: period.fiscal_year,
    transaction_date: period.start_date,
    is_realized: true,
    journal_type: 'journal_entry',
    entered_by: 'JOURNAL_TYPE_OPENING',
    create_time: stamp,
    update_time: stamp,
    branches: [
      {
        remark: '期首残高',
        debitor: side(masters.sources.smbc.ledger, 2_000_000),
        creditor: side(capital, 2_000_000),
      },
      {
        remark: '期首残高',
        debitor: side(masters.sources.yucho.ledger, 500_000),
        creditor: side(retained, 500_000),
      },
    ],
    tags: [],
    memo: null,
    voucher_file_ids: [],
    transaction_id: null,
  };
}
