// Duplicates other parties left in the seeded books, for `npm start` (sim/demo.ts; `serve.ts --duplicates`):
// the same statement line journalized again by another app, a journal typed by hand next to a line's, one
// transfer journalized from both banks, and two genuine same-day lines (which 重複点検 must not propose).
// Only the seeded lines already journalized in MF are used, so what kicho imports and posts is unchanged.

import type { FakeMf } from './fake-mf';
import type { Journal } from './types';

export interface PlantedDemo {
  /** Journals that should be proposed for deletion. */
  copies: string[];
  /** Journals of the genuine twins (never proposed). */
  twins: string[];
}

function side(s: Journal['branches'][number]['debitor']) {
  return {
    account: s.account_name,
    sub: s.sub_account_name,
    value: s.value + s.tax_value,
    tax: s.tax_long_name,
  };
}

function later(stamp: string, seconds: number): string {
  return `${new Date(Date.parse(stamp) + seconds * 1000).toISOString().slice(0, 19)}Z`;
}

export function plantDemoDuplicates(mf: FakeMf): PlantedDemo {
  const linked = mf
    .journals()
    .filter((j) => j.entered_by === 'JOURNAL_TYPE_DATA_LINKAGE' && j.transaction_date >= '2026-01-01')
    .sort((a, b) => a.transaction_date.localeCompare(b.transaction_date) || a.number - b.number);
  const amounts = new Map<number, number>();
  const gross = (j: Journal) => j.branches.reduce((n, b) => n + b.debitor.value + b.debitor.tax_value, 0);
  for (const j of mf.journals()) amounts.set(gross(j), (amounts.get(gross(j)) ?? 0) + 1);
  // Journals whose amount nothing else has, so each planted group stands alone.
  const [a, b] = linked.filter((j) => amounts.get(gross(j)) === 1);
  if (!a || !b) throw new Error('seed-duplicates: the seeded books have no journal to copy');
  const copies: string[] = [];
  const [ab] = a.branches;
  // Another app journalized the same line 20 seconds after MF did.
  copies.push(
    mf.addJournal({
      date: a.transaction_date,
      debit: side(ab.debitor),
      credit: side(ab.creditor),
      remark: ab.remark,
      transactionId: a.transaction_id,
      enteredBy: 'JOURNAL_TYPE_EXTERNAL',
      createTime: later(a.create_time, 20),
    }).id,
  );
  // A person typed the same purchase by hand the next day.
  const [bb] = b.branches;
  const next = new Date(Date.parse(`${b.transaction_date}T00:00:00Z`) + 86_400_000)
    .toISOString()
    .slice(0, 10);
  copies.push(
    mf.addJournal({
      date: next,
      debit: side(bb.debitor),
      credit: { ...side(bb.creditor), sub: null },
      remark: String(bb.remark ?? '').normalize('NFKC'),
      enteredBy: 'JOURNAL_TYPE_NORMAL',
      createTime: later(b.create_time, 3 * 86_400),
    }).id,
  );
  // A transfer 三井住友銀行 → ゆうちょ銀行, journalized from both banks' feeds.
  const smbc = mf.findConnectedAccount('三井住友銀行');
  const yucho = mf.findConnectedAccount('ゆうちょ銀行');
  const card = mf.findConnectedAccount('三井住友カード');
  const [out, inn, t1, t2] = mf.addTransactions([
    {
      date: '2026-02-16',
      value: 150_000,
      side: 'EXPENSE',
      content: 'ﾌﾘｶｴ ﾕｳﾁﾖ',
      connected_account_id: smbc.id,
      connected_sub_account_id: smbc.connected_sub_accounts[0].id,
      journalizing_status: 'registered',
    },
    {
      date: '2026-02-16',
      value: 150_000,
      side: 'INCOME',
      content: 'ﾌﾘｺﾐ ﾐﾂｲｽﾐﾄﾓ',
      connected_account_id: yucho.id,
      journalizing_status: 'registered',
    },
    {
      date: '2026-02-20',
      value: 3_160,
      side: 'EXPENSE',
      content: 'ﾀｸｼｰ ｼﾝｼﾞﾕｸ',
      connected_account_id: card.id,
    },
    {
      date: '2026-02-20',
      value: 3_160,
      side: 'EXPENSE',
      content: 'ﾀｸｼｰ ｼﾝｼﾞﾕｸ',
      connected_account_id: card.id,
    },
  ]);
  const transfer = (tx: typeof out, remark: string, createTime: string) =>
    mf.addJournal({
      date: tx.date,
      debit: { account: '普通預金', sub: 'ゆうちょ銀行', value: tx.value },
      credit: { account: '普通預金', sub: '三井住友銀行', value: tx.value },
      remark,
      transactionId: tx.id,
      enteredBy: 'JOURNAL_TYPE_DATA_LINKAGE',
      createTime,
    });
  transfer(out, out.content ?? '', '2026-02-17T01:00:00Z');
  copies.push(transfer(inn, inn.content ?? '', '2026-02-17T01:05:00Z').id);
  const ride = (tx: typeof t1, createTime: string) =>
    mf.addJournal({
      date: tx.date,
      debit: { account: '旅費交通費', value: tx.value, tax: '課税仕入 10%' },
      credit: { account: '未払金', sub: '三井住友カード', value: tx.value },
      remark: tx.content,
      transactionId: tx.id,
      enteredBy: 'JOURNAL_TYPE_DATA_LINKAGE',
      createTime,
    }).id;
  const twins = [ride(t1, '2026-02-21T01:00:00Z'), ride(t2, '2026-02-21T01:00:00Z')];
  return { copies, twins };
}
