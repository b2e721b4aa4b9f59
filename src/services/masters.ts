/** マスタ: fetched from MF by setup() and refreshed by import when older than a day. */
import type { Masters } from '../core/masters';
import { readMasters, writeMasters } from '../gas/settings-sheet';
import type { MfClient } from '../mf/client';
import { MfAuthError } from '../mf/errors';

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

export function fetchMasters(client: MfClient, now: string): Masters {
  const accounts = client.accounts();
  return {
    accounts: accounts.map((a) => ({
      id: a.id,
      name: a.name,
      available: a.available,
      taxId: a.tax_id ?? null,
      subAccounts: a.sub_accounts.map((s) => ({
        id: s.id,
        name: s.name,
        // A sub-account without its own tax uses its account's, as MF does when tax_id is left out.
        taxId: s.tax_id ?? a.tax_id ?? null,
      })),
    })),
    taxes: client.taxes().map((t) => ({ id: t.id, name: t.name, available: t.available })),
    partners: client.tradePartners().map((p) => ({
      code: p.code,
      name: p.name,
      available: p.available,
      ...(p.search_key ? { reading: p.search_key } : {}),
      ...(p.invoice_registration_number ? { registrationNumber: p.invoice_registration_number } : {}),
    })),
    connectedAccounts: client.connectedAccounts().map((c) => ({
      id: c.id,
      name: c.name,
      accountId: c.account_id,
      subAccountId: c.sub_account_id,
      subs: c.connected_sub_accounts.map((s) => ({
        id: s.id,
        name: s.name,
        accountId: s.account_id,
        subAccountId: s.sub_account_id,
      })),
    })),
    // Periods come from the one /offices call of the execution (the one-office guard shares it).
    periods: client
      .periods()
      .map((p) => ({ start: p.start_date, end: p.end_date, fiscalYear: p.fiscal_year })),
    ...taxMethods(client),
    fetchedAt: now,
  };
}

/**
 * 課税形式 per fiscal year, for the offices whose インボイス区分 changes nothing (免税, 簡易課税). A failed read
 * leaves it unknown: every purchase is then judged (asking too much, never too little).
 */
function taxMethods(client: MfClient): Pick<Masters, 'taxMethods'> {
  try {
    return {
      taxMethods: client
        .termSettings()
        .map((t) => ({ start: t.start_date, end: t.end_date, method: t.tax_method })),
    };
  } catch (e) {
    if (e instanceof MfAuthError) throw e;
    return {};
  }
}

/** The sheet's マスタ, refreshed from MF first when it is empty or older than a day. */
export function currentMasters(client: MfClient, nowMs: number): { masters: Masters; refreshed: boolean } {
  const onSheet = readMasters();
  const age = onSheet.fetchedAt ? nowMs - Date.parse(onSheet.fetchedAt) : Number.POSITIVE_INFINITY;
  if (onSheet.accounts.length > 0 && age < ONE_DAY_MS) return { masters: onSheet, refreshed: false };
  const fresh = fetchMasters(client, new Date(nowMs).toISOString());
  writeMasters(fresh);
  return { masters: fresh, refreshed: true };
}
