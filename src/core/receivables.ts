/**
 * 売掛金チェック: billed (debit side of the receivables account) against collected (credit side), per
 * 取引先, matched oldest first. Pure: the journals come in, the report's items and totals go out.
 * Odd data is never dropped; it becomes an item with a plain-Japanese explanation.
 */

/** One movement on the receivables account, already reduced to what matching needs. */
export interface ReceivableEntry {
  /** 取引先 name, else 補助科目 name, else NO_PARTNER. */
  partner: string;
  date: string;
  /**
   * occurrence: billed (debit); collection: paid (credit); credit-note: 返品・値引 (a negative debit,
   * or a credit against a sales account).
   */
  kind: 'occurrence' | 'collection' | 'credit-note';
  /** Positive yen. */
  amount: number;
  /** Why this entry is unusual (no partner, a negative line, …), shown on its item. */
  notes: string[];
}

export type AgingBucket = '〜30日' | '31〜60日' | '61〜90日' | '90日超';
export const AGING_BUCKETS: readonly AgingBucket[] = ['〜30日', '31〜60日', '61〜90日', '90日超'];

export type ItemStatus = '回収済' | '一部回収' | '未回収' | '期日超過' | '取消' | '前受または誤り';

export interface ReceivableItem {
  partner: string;
  /** 発生日 (for an unapplied collection: the date it was received). */
  date: string;
  /** What was billed; 0 for an unapplied collection or credit. */
  amount: number;
  collected: number;
  /** Reduced by credit notes. */
  cancelled: number;
  /** A shortfall within 振込手数料上限 that closed the item. */
  feeDifference: number;
  /** amount − collected − cancelled − feeDifference; negative for an unapplied collection. */
  balance: number;
  days: number;
  /** Empty for a closed item. */
  bucket: AgingBucket | '';
  status: ItemStatus;
  notes: string[];
}

export interface PartnerTotal {
  partner: string;
  amount: number;
  collected: number;
  cancelled: number;
  feeDifference: number;
  balance: number;
  openCount: number;
  overdueCount: number;
}

export interface BucketTotal {
  bucket: AgingBucket;
  balance: number;
  count: number;
}

export interface ReceivablesReport {
  /** Items with a balance (open, or unapplied money), oldest first per partner. */
  open: ReceivableItem[];
  /** Settled or cancelled items. */
  closed: ReceivableItem[];
  partners: PartnerTotal[];
  buckets: BucketTotal[];
  overdueCount: number;
  totalBalance: number;
}

export interface ReceivableOptions {
  /** yyyy-MM-dd the ages are counted to. */
  asOf: string;
  /** 回収期限（日）: older open items are 期日超過. */
  collectionDays: number;
  /** 振込手数料上限: a shortfall up to this many yen closes an item as 手数料差額. */
  feeTolerance: number;
}

export const NO_PARTNER = '（取引先なし）';

export const RECEIVABLE_NOTES = {
  noPartner: '取引先も補助科目もない仕訳です。MFで取引先を付けると正しく突き合わせられます。',
  negativeDebit: 'マイナスの売上計上です。返品・値引として一番古い残高から差し引きました。',
  negativeCredit: 'マイナスの入金です。入金の取消として売掛金に戻しました。',
  creditAgainstSales: '売上の取消（返品・値引）として一番古い残高から差し引きました。',
  feeDifference: (yen: number) =>
    `入金が ${yen.toLocaleString('ja-JP')} 円足りませんが、振込手数料上限以内なので手数料差額として回収済にしました。`,
  unappliedCollection:
    'この取引先に回収する売掛金がない入金です。前受金か、取引先・勘定科目の誤りです。MFの仕訳を確認してください。',
  unappliedCredit: 'この取引先に差し引く売掛金がない取消（返品・値引）です。MFの仕訳を確認してください。',
  prepaidUsed: (yen: number) =>
    `先に受け取っていた入金 ${yen.toLocaleString('ja-JP')} 円をこの売掛金に充てました。`,
} as const;

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

export function agingBucket(days: number): AgingBucket {
  if (days <= 30) return '〜30日';
  if (days <= 60) return '31〜60日';
  if (days <= 90) return '61〜90日';
  return '90日超';
}

interface Unapplied {
  date: string;
  amount: number;
  kind: 'collection' | 'credit-note';
  notes: string[];
}

/** Entries in the order they happened; on one day, billing comes before paying it. */
function chronological(entries: readonly ReceivableEntry[]): ReceivableEntry[] {
  const rank = { occurrence: 0, 'credit-note': 1, collection: 2 } as const;
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) =>
      a.e.date !== b.e.date ? (a.e.date < b.e.date ? -1 : 1) : rank[a.e.kind] - rank[b.e.kind] || a.i - b.i,
    )
    .map((x) => x.e);
}

function newItem(e: ReceivableEntry): ReceivableItem {
  return {
    partner: e.partner,
    date: e.date,
    amount: e.amount,
    collected: 0,
    cancelled: 0,
    feeDifference: 0,
    balance: e.amount,
    days: 0,
    bucket: '',
    status: '未回収',
    notes: [...e.notes],
  };
}

/**
 * Applies money to the open items oldest first. A collection that runs out inside an item leaving a
 * shortfall within the tolerance closes it as 手数料差額 (the payer deducted the transfer fee).
 * Returns what is left over.
 */
function applyFifo(
  items: readonly ReceivableItem[],
  amount: number,
  kind: 'collection' | 'credit-note',
  feeTolerance: number,
): number {
  let left = amount;
  for (const item of items) {
    if (left === 0) break;
    if (item.balance <= 0) continue;
    const take = Math.min(left, item.balance);
    if (kind === 'collection') item.collected += take;
    else item.cancelled += take;
    item.balance -= take;
    left -= take;
    if (left === 0 && kind === 'collection' && item.balance > 0 && item.balance <= feeTolerance) {
      item.feeDifference = item.balance;
      item.notes.push(RECEIVABLE_NOTES.feeDifference(item.balance));
      item.balance = 0;
    }
  }
  return left;
}

/** One partner's entries matched oldest first; unapplied money waits for a later invoice. */
function matchPartner(entries: readonly ReceivableEntry[], feeTolerance: number) {
  const items: ReceivableItem[] = [];
  let pool: Unapplied[] = [];
  for (const e of chronological(entries)) {
    if (e.kind === 'occurrence') {
      const item = newItem(e);
      items.push(item);
      const rest: Unapplied[] = [];
      for (const u of pool) {
        const before = item.balance;
        const left = applyFifo([item], u.amount, u.kind, u.kind === 'collection' ? feeTolerance : 0);
        if (u.kind === 'collection' && before > item.balance) {
          item.notes.push(RECEIVABLE_NOTES.prepaidUsed(u.amount - left));
        }
        if (left > 0) rest.push({ ...u, amount: left });
      }
      pool = rest;
    } else {
      const left = applyFifo(items, e.amount, e.kind, feeTolerance);
      if (left > 0) pool.push({ date: e.date, amount: left, kind: e.kind, notes: e.notes });
    }
  }
  const unapplied: ReceivableItem[] = pool.map((u) => ({
    partner: entries[0]?.partner ?? NO_PARTNER,
    date: u.date,
    amount: 0,
    collected: u.kind === 'collection' ? u.amount : 0,
    cancelled: u.kind === 'credit-note' ? u.amount : 0,
    feeDifference: 0,
    balance: -u.amount,
    days: 0,
    bucket: '',
    status: u.kind === 'collection' ? '前受または誤り' : '取消',
    notes: [
      ...u.notes,
      u.kind === 'collection' ? RECEIVABLE_NOTES.unappliedCollection : RECEIVABLE_NOTES.unappliedCredit,
    ],
  }));
  return { items, unapplied };
}

function finish(item: ReceivableItem, o: ReceivableOptions): ReceivableItem {
  const days = Math.max(0, dayNumber(o.asOf) - dayNumber(item.date));
  if (item.balance > 0) {
    const overdue = days > o.collectionDays;
    return {
      ...item,
      days,
      bucket: agingBucket(days),
      status: overdue ? '期日超過' : item.collected > 0 || item.cancelled > 0 ? '一部回収' : '未回収',
    };
  }
  return { ...item, days, status: item.cancelled === item.amount ? '取消' : '回収済' };
}

export function matchReceivables(
  entries: readonly ReceivableEntry[],
  options: ReceivableOptions,
): ReceivablesReport {
  const byPartner = new Map<string, ReceivableEntry[]>();
  for (const e of entries) {
    if (!(e.amount > 0)) continue;
    const list = byPartner.get(e.partner) ?? [];
    list.push(e);
    byPartner.set(e.partner, list);
  }
  const open: ReceivableItem[] = [];
  const closed: ReceivableItem[] = [];
  const partners: PartnerTotal[] = [];
  const names = [...byPartner.keys()].sort((a, b) => a.localeCompare(b, 'ja'));
  for (const name of names) {
    const { items, unapplied } = matchPartner(byPartner.get(name) ?? [], options.feeTolerance);
    const done = items.map((i) => finish(i, options));
    const total: PartnerTotal = {
      partner: name,
      amount: 0,
      collected: 0,
      cancelled: 0,
      feeDifference: 0,
      balance: 0,
      openCount: 0,
      overdueCount: 0,
    };
    for (const item of [...done, ...unapplied]) {
      total.amount += item.amount;
      total.collected += item.collected;
      total.cancelled += item.cancelled;
      total.feeDifference += item.feeDifference;
      total.balance += item.balance;
      if (item.balance > 0) total.openCount += 1;
      if (item.status === '期日超過') total.overdueCount += 1;
    }
    partners.push(total);
    for (const item of done) (item.balance > 0 ? open : closed).push(item);
    open.push(...unapplied);
  }
  const buckets: BucketTotal[] = AGING_BUCKETS.map((bucket) => ({ bucket, balance: 0, count: 0 }));
  for (const item of open) {
    const b = buckets.find((x) => x.bucket === item.bucket);
    if (b) {
      b.balance += item.balance;
      b.count += 1;
    }
  }
  return {
    open,
    closed,
    partners,
    buckets,
    overdueCount: open.filter((i) => i.status === '期日超過').length,
    totalBalance: partners.reduce((s, p) => s + p.balance, 0),
  };
}

// From MF journals

/** The journal fields receivables need (structurally an MF GET /journals item). */
export interface JournalSideLike {
  account_id: string;
  account_name?: string;
  sub_account_id?: string | null;
  trade_partner_code?: string | null;
  value: number;
  tax_value?: number;
}

export interface JournalLike {
  id: string;
  transaction_date: string;
  entered_by?: string;
  branches: {
    remark?: string | null;
    debitor?: JournalSideLike | null;
    creditor?: JournalSideLike | null;
  }[];
}

export interface EntryNames {
  /** trade_partner_code → name (マスタ). */
  partners: ReadonlyMap<string, string>;
  /** sub_account_id → name, for the receivables account's 補助科目. */
  subAccounts: ReadonlyMap<string, string>;
}

/** A credit to receivables whose other side is sales is a return or discount, not money received. */
const SALES_ACCOUNT = /売上|値引|返品|割戻/;

/**
 * Receivable entries from journals: every branch side on `accountId`. Opening-balance journals are
 * skipped when `skipOpening` is set (a later term's opening balance repeats the earlier term's lines).
 */
export function entriesFromJournals(
  journals: readonly JournalLike[],
  accountId: string,
  names: EntryNames,
  options: { skipOpeningAfter?: string } = {},
): ReceivableEntry[] {
  const out: ReceivableEntry[] = [];
  for (const j of journals) {
    if (
      j.entered_by === 'JOURNAL_TYPE_OPENING' &&
      options.skipOpeningAfter !== undefined &&
      j.transaction_date > options.skipOpeningAfter
    )
      continue;
    for (const b of j.branches) {
      for (const side of ['debitor', 'creditor'] as const) {
        const s = b[side];
        if (!s || s.account_id !== accountId) continue;
        const gross = s.value + (s.tax_value ?? 0);
        if (gross === 0) continue;
        const notes: string[] = [];
        const partnerName = s.trade_partner_code ? names.partners.get(s.trade_partner_code) : undefined;
        const subName = s.sub_account_id ? names.subAccounts.get(s.sub_account_id) : undefined;
        let partner = partnerName ?? subName ?? '';
        if (partner === '' && s.trade_partner_code) partner = `取引先コード ${s.trade_partner_code}`;
        if (partner === '') {
          partner = NO_PARTNER;
          notes.push(RECEIVABLE_NOTES.noPartner);
        }
        let kind: ReceivableEntry['kind'];
        if (side === 'debitor') {
          kind = gross > 0 ? 'occurrence' : 'credit-note';
          if (gross < 0) notes.push(RECEIVABLE_NOTES.negativeDebit);
        } else if (gross < 0) {
          kind = 'occurrence';
          notes.push(RECEIVABLE_NOTES.negativeCredit);
        } else if (SALES_ACCOUNT.test(b.debitor?.account_name ?? '')) {
          kind = 'credit-note';
          notes.push(RECEIVABLE_NOTES.creditAgainstSales);
        } else kind = 'collection';
        out.push({ partner, date: j.transaction_date, kind, amount: Math.abs(gross), notes });
      }
    }
  }
  return out;
}
