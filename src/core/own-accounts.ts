/**
 * The office's own money accounts: each connected account's ledger (普通預金 / 三井住友銀行, 未払金 / カード)
 * and each CSV source's counter account (取込元), by ids and with a readable name. 重複点検 looks for
 * transfers between them; 残高照合 compares each with its statement. Pure.
 */
import type { CsvSource } from './csv/sources';
import type { Masters } from './masters';
import { normalizeText } from './text';

export interface OwnAccount {
  /** What people call it: the connected account (and sub-account) or the 取込元 name. */
  label: string;
  kind: 'connected' | 'csv';
  accountId: string;
  subId: string | null;
  accountName: string;
  subName: string;
  /** For a connected account: its id and sub-account id (statement lines name them). */
  connectedId?: string;
  connectedSubId?: string | null;
}

function names(masters: Masters, accountId: string, subId: string | null): { account: string; sub: string } {
  const account = masters.accounts.find((a) => a.id === accountId);
  const sub = subId ? account?.subAccounts.find((s) => s.id === subId) : undefined;
  return { account: account?.name ?? '', sub: sub?.name ?? '' };
}

/** Connected accounts first (in MF's order), then CSV sources whose 勘定科目 is in the masters. */
export function ownAccounts(masters: Masters, sources: readonly CsvSource[]): OwnAccount[] {
  const out: OwnAccount[] = [];
  for (const c of masters.connectedAccounts) {
    const parts =
      c.subs.length > 0
        ? c.subs.map((s) => ({
            label: `${c.name} ${s.name}`,
            accountId: s.accountId ?? null,
            subId: s.subAccountId ?? null,
            sub: s.id,
          }))
        : [{ label: c.name, accountId: c.accountId, subId: c.subAccountId, sub: null as string | null }];
    for (const p of parts) {
      if (!p.accountId) continue;
      const n = names(masters, p.accountId, p.subId);
      out.push({
        label: p.label,
        kind: 'connected',
        accountId: p.accountId,
        subId: p.subId,
        accountName: n.account,
        subName: n.sub,
        connectedId: c.id,
        connectedSubId: p.sub,
      });
    }
  }
  for (const s of sources) {
    const account = masters.accounts.find((a) => normalizeText(a.name) === normalizeText(s.勘定科目));
    if (!account) continue;
    const sub =
      s.補助科目.trim() === ''
        ? undefined
        : account.subAccounts.find((x) => normalizeText(x.name) === normalizeText(s.補助科目));
    if (s.補助科目.trim() !== '' && !sub) continue;
    out.push({
      label: s.name,
      kind: 'csv',
      accountId: account.id,
      subId: sub?.id ?? null,
      accountName: account.name,
      subName: sub?.name ?? '',
    });
  }
  return out;
}
