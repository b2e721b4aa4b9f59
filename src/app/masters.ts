/** マスタ: fetched from MF by setup() and refreshed by import when older than a day. */
import type { Masters } from '../core/masters';
import { readMasters, writeMasters } from '../gas/settings-sheet';
import type { MfClient } from '../mf/client';

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

export function fetchMasters(client: MfClient, now: string): Masters {
  const accounts = client.accounts();
  return {
    accounts: accounts.map((a) => ({
      id: a.id,
      name: a.name,
      available: a.available,
      subAccounts: a.sub_accounts.map((s) => ({ id: s.id, name: s.name })),
    })),
    taxes: client.taxes().map((t) => ({ id: t.id, name: t.name, available: t.available })),
    partners: client.tradePartners().map((p) => ({
      code: p.code,
      name: p.name,
      available: p.available,
      ...(p.search_key ? { reading: p.search_key } : {}),
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
    fetchedAt: now,
  };
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
