/**
 * MF master data (accounts with sub-accounts, taxes, trade partners, connected accounts) and name
 * resolution: people and rules write names; MF wants ids (and a partner's code).
 */
import { normalizeText } from './text';

export interface MasterAccount {
  id: string;
  name: string;
  available: boolean;
  /** The tax MF applies when a journal leaves tax_id out; undefined when the マスタ predates it (issue 27). */
  taxId?: string | null;
  subAccounts: { id: string; name: string; taxId?: string | null }[];
}

export interface MasterTax {
  id: string;
  name: string;
  available: boolean;
}

export interface MasterPartner {
  code: string;
  name: string;
  available: boolean;
  /** MF's search_key (a reading such as やまだしょうじ): how a bank spells the payer in kana. */
  reading?: string;
  /** MF's invoice_registration_number (T + 13 digits) as MF holds it: the seller is a registered issuer. */
  registrationNumber?: string;
}

export interface MasterConnectedAccount {
  id: string;
  name: string;
  /** The ledger account MF uses for the bank side (e.g. 普通預金 / 三井住友銀行). */
  accountId: string | null;
  subAccountId: string | null;
  /** Sub-accounts (e.g. each bank account of one service) carry their own ledger account. */
  subs: { id: string; name: string; accountId?: string | null; subAccountId?: string | null }[];
}

/** An accounting period (会計期間) of the office, as /offices lists it. */
export interface MasterPeriod {
  start: string;
  end: string;
  fiscalYear: number;
}

/** MF's 課税形式 (GET /term_settings tax_method), as the document names them. */
export type TaxMethod = 'FREE' | 'SIMPLE' | 'PROPORTIONAL_ALLOCATION' | 'INDIVIDUAL_ALLOCATION';

export const TAX_METHOD_LABELS: Readonly<Record<TaxMethod, string>> = {
  FREE: '免税事業者',
  SIMPLE: '簡易課税',
  PROPORTIONAL_ALLOCATION: '原則課税（一括比例配分方式）',
  INDIVIDUAL_ALLOCATION: '原則課税（個別対応方式）',
};

/** One fiscal year's 課税形式 (GET /term_settings tax_method: FREE, SIMPLE, PROPORTIONAL_ALLOCATION …). */
export interface MasterTaxMethod {
  start: string;
  end: string;
  method: string;
}

export interface Masters {
  accounts: MasterAccount[];
  taxes: MasterTax[];
  partners: MasterPartner[];
  connectedAccounts: MasterConnectedAccount[];
  /** The office's accounting periods; absent or empty when not fetched yet (nothing is judged by them). */
  periods?: MasterPeriod[];
  /** 課税形式 per fiscal year (GET /term_settings); absent when not fetched or MF did not answer. */
  taxMethods?: MasterTaxMethod[];
  /** ISO time of the fetch; empty when never fetched. */
  fetchedAt: string;
}

export const EMPTY_MASTERS: Masters = {
  accounts: [],
  taxes: [],
  partners: [],
  connectedAccounts: [],
  fetchedAt: '',
};

export interface NamedPosting {
  勘定科目: string;
  補助科目: string;
  税区分: string;
  取引先: string;
}

export interface ResolvedPosting {
  accountId: string;
  subAccountId: string | null;
  taxId: string | null;
  partnerCode: string | null;
}

function same(a: string, b: string): boolean {
  return normalizeText(a) === normalizeText(b);
}

/**
 * Resolves names to ids. Problems are returned in Japanese, naming the value and what to do, so
 * they can go straight into メモ.
 */
export function resolvePosting(
  masters: Masters,
  names: NamedPosting,
): { ok: true; value: ResolvedPosting } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const accountName = names.勘定科目.trim();
  let resolved: ResolvedPosting = { accountId: '', subAccountId: null, taxId: null, partnerCode: null };
  const account = masters.accounts.find((a) => same(a.name, accountName));
  if (accountName === '') problems.push('勘定科目が空です。勘定科目を選んでください。');
  else if (!account)
    problems.push(`勘定科目「${accountName}」がマスタにありません。MFの勘定科目名に直してください。`);
  else if (!account.available) problems.push(`勘定科目「${accountName}」はMFで使用停止になっています。`);
  else resolved = { ...resolved, accountId: account.id };

  const subName = names.補助科目.trim();
  if (subName !== '' && account) {
    const sub = account.subAccounts.find((s) => same(s.name, subName));
    if (!sub) problems.push(`補助科目「${subName}」は勘定科目「${account.name}」にありません。`);
    else resolved = { ...resolved, subAccountId: sub.id };
  }

  const taxName = names.税区分.trim();
  if (taxName !== '') {
    const tax = masters.taxes.find((t) => same(t.name, taxName));
    if (!tax) problems.push(`税区分「${taxName}」がマスタにありません。MFの税区分名に直してください。`);
    else if (!tax.available) problems.push(`税区分「${taxName}」はMFで使用停止になっています。`);
    else resolved = { ...resolved, taxId: tax.id };
  }

  const partnerName = names.取引先.trim();
  if (partnerName !== '') {
    const partner = masters.partners.find((p) => same(p.name, partnerName));
    if (!partner)
      problems.push(
        `取引先「${partnerName}」がマスタにありません。MFに取引先を登録するか、名前を直してください。`,
      );
    else resolved = { ...resolved, partnerCode: partner.code };
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: resolved };
}

/** The connected account (or sub-account) an MF line belongs to, by id, for the 口座 column. */
export function connectedAccountName(masters: Masters, accountId: string, subId: string | null): string {
  const acc = masters.connectedAccounts.find((c) => c.id === accountId);
  if (!acc) return '';
  const sub = subId ? acc.subs.find((s) => s.id === subId) : undefined;
  return sub ? `${acc.name} ${sub.name}` : acc.name;
}

/** The マスタ sheet rows: 種別, 名前, 勘定科目, ID, コード, 有効, 取得日時, 読み, 税区分ID, 登録番号. */
export function mastersToRows(m: Masters): (string | boolean)[][] {
  const rows: (string | boolean)[][] = [];
  // A default tax of none is written as '-' so that it reads back apart from "not fetched" ('').
  const taxCell = (taxId: string | null | undefined) => (taxId === undefined ? '' : (taxId ?? '-'));
  for (const a of m.accounts) {
    rows.push(['勘定科目', a.name, '', a.id, '', a.available, m.fetchedAt, '', taxCell(a.taxId)]);
    for (const s of a.subAccounts)
      rows.push(['補助科目', s.name, a.name, s.id, '', a.available, m.fetchedAt, '', taxCell(s.taxId)]);
  }
  for (const t of m.taxes) rows.push(['税区分', t.name, '', t.id, '', t.available, m.fetchedAt]);
  for (const p of m.partners)
    rows.push([
      '取引先',
      p.name,
      '',
      '',
      p.code,
      p.available,
      m.fetchedAt,
      p.reading ?? '',
      '',
      p.registrationNumber ?? '',
    ]);
  for (const c of m.connectedAccounts) {
    rows.push(['口座', c.name, '', c.id, `${c.accountId ?? ''}/${c.subAccountId ?? ''}`, true, m.fetchedAt]);
    for (const s of c.subs)
      rows.push([
        '口座明細',
        s.name,
        c.name,
        s.id,
        `${s.accountId ?? ''}/${s.subAccountId ?? ''}`,
        true,
        m.fetchedAt,
      ]);
  }
  for (const p of m.periods ?? [])
    rows.push(['会計期間', `${p.fiscalYear}年度`, '', '', `${p.start}/${p.end}`, true, m.fetchedAt]);
  for (const t of m.taxMethods ?? [])
    rows.push([
      '課税形式',
      (TAX_METHOD_LABELS as Record<string, string>)[t.method] ?? t.method,
      '',
      t.method,
      `${t.start}/${t.end}`,
      true,
      m.fetchedAt,
    ]);
  return rows;
}

/** Whether `date` lies in one of the office's periods; true when the periods are not known. */
export function inSomePeriod(masters: Masters, date: string): boolean {
  const periods = masters.periods ?? [];
  return periods.length === 0 || periods.some((p) => p.start <= date && date <= p.end);
}

/** Inverse of mastersToRows (records keyed by the マスタ headers). */
export function mastersFromRecords(records: readonly Record<string, unknown>[]): Masters {
  const m: Masters = { accounts: [], taxes: [], partners: [], connectedAccounts: [], fetchedAt: '' };
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const truthy = (v: unknown) => v === true || text(v).toUpperCase() === 'TRUE';
  for (const r of records) {
    const kind = text(r.種別);
    const name = text(r.名前);
    if (!m.fetchedAt && text(r.取得日時)) m.fetchedAt = text(r.取得日時);
    // '' is a マスタ written before the column existed: the default tax is unknown.
    const taxId =
      text(r.税区分ID) === '' ? {} : { taxId: text(r.税区分ID) === '-' ? null : text(r.税区分ID) };
    if (kind === '勘定科目')
      m.accounts.push({ id: text(r.ID), name, available: truthy(r.有効), ...taxId, subAccounts: [] });
    else if (kind === '補助科目') {
      const parent = m.accounts.find((a) => a.name === text(r.勘定科目));
      parent?.subAccounts.push({ id: text(r.ID), name, ...taxId });
    } else if (kind === '税区分') m.taxes.push({ id: text(r.ID), name, available: truthy(r.有効) });
    else if (kind === '取引先') {
      const reading = text(r.読み);
      const registrationNumber = text(r.登録番号);
      m.partners.push({
        code: text(r.コード),
        name,
        available: truthy(r.有効),
        ...(reading ? { reading } : {}),
        ...(registrationNumber ? { registrationNumber } : {}),
      });
    } else if (kind === '口座') {
      const [accountId, subAccountId] = text(r.コード).split('/');
      m.connectedAccounts.push({
        id: text(r.ID),
        name,
        accountId: accountId || null,
        subAccountId: subAccountId || null,
        subs: [],
      });
    } else if (kind === '会計期間') {
      const [start, end] = text(r.コード).split('/');
      const fiscalYear = Number.parseInt(name, 10);
      if (start && end) {
        m.periods = [
          ...(m.periods ?? []),
          { start, end, fiscalYear: Number.isFinite(fiscalYear) ? fiscalYear : 0 },
        ];
      }
    } else if (kind === '課税形式') {
      const [start, end] = text(r.コード).split('/');
      if (start && end) m.taxMethods = [...(m.taxMethods ?? []), { start, end, method: text(r.ID) }];
    } else if (kind === '口座明細') {
      const parent = m.connectedAccounts.find((c) => c.name === text(r.勘定科目));
      const [accountId, subAccountId] = text(r.コード).split('/');
      parent?.subs.push({
        id: text(r.ID),
        name,
        accountId: accountId || null,
        subAccountId: subAccountId || null,
      });
    }
  }
  return m;
}
