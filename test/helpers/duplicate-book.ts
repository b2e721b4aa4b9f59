/**
 * A fake MF book with planted duplicates of every kind 重複点検 looks for (issue 16), made the way they
 * happen: kicho posts the window's lines, then other parties add the same money again — another automation
 * journalizes a line kicho posted, a copy of the spreadsheet posts a row's tag again, a person types a
 * purchase by hand, the same bank comes in as a CSV — plus a transfer journalized from both banks and two
 * genuine taxi rides on one day. Shared by the scenario and browser tests.
 */
import assert from 'node:assert/strict';
import type { NewJournal, NewJournalSide } from '../../sim/mf/fake-mf';
import type { Journal } from '../../sim/mf/types';
import { remoteTagOf } from '../../src/core/keys';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld } from './kicho';

function side(s: Journal['branches'][number]['debitor']): NewJournalSide {
  return {
    account: s.account_name,
    sub: s.sub_account_name,
    value: s.value + s.tax_value,
    tax: s.tax_long_name,
  };
}

/** A journal like `j` (its accounts, amount, remark), as another party would make it. */
function copyOf(j: Journal, over: Partial<NewJournal>): NewJournal {
  const [b] = j.branches;
  return {
    date: j.transaction_date,
    debit: side(b.debitor),
    credit: side(b.creditor),
    remark: b.remark,
    ...over,
  };
}

function later(stamp: string, seconds: number): string {
  return `${new Date(Date.parse(stamp) + seconds * 1000).toISOString().slice(0, 19)}Z`;
}

export function ok(w: KichoWorld, name: string, args?: unknown[]) {
  const r = w.run(name, { args });
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  assert.deepEqual(r.internalErrors, []);
  return r.value as { ok: boolean; count: number; messages: string[] } & Record<string, unknown>;
}

export interface Planted {
  sameLine: { kept: string; copy: string; key: string };
  sameTag: { kept: string; copy: string; key: string };
  csvAndLine: { line: string; csv: string; csvKey: string };
  hand: { line: string; hand: string };
  transfer: { ids: string[]; keys: string[] };
  twins: { ids: string[] };
}

/** The book: kicho posts the window's lines, then other parties add what the issue lists. */
export function plantedWorld(): { w: KichoWorld; planted: Planted } {
  const w = kichoWorld({ window: ['2026-04-01', '2026-06-30'] });
  const smbc = w.mf.findConnectedAccount('三井住友銀行');
  const yucho = w.mf.findConnectedAccount('ゆうちょ銀行');
  const card = w.mf.findConnectedAccount('三井住友カード');
  // A transfer from 三井住友銀行 to ゆうちょ銀行, in both banks' feeds; two genuine taxi rides on one day.
  const [out, inn] = w.mf.addTransactions([
    {
      date: '2026-05-15',
      value: 100_000,
      side: 'EXPENSE',
      content: 'ﾌﾘｶｴ ﾕｳﾁﾖ',
      connected_account_id: smbc.id,
      connected_sub_account_id: smbc.connected_sub_accounts[0].id,
    },
    {
      date: '2026-05-15',
      value: 100_000,
      side: 'INCOME',
      content: 'ﾌﾘｺﾐ ﾐﾂｲｽﾐﾄﾓ',
      connected_account_id: yucho.id,
    },
  ]);
  const twins = w.mf.addTransactions([
    { date: '2026-05-20', value: 2_980, side: 'EXPENSE', content: 'ﾀｸｼｰ ｼﾌﾞﾔ', connected_account_id: card.id },
    { date: '2026-05-20', value: 2_980, side: 'EXPENSE', content: 'ﾀｸｼｰ ｼﾌﾞﾔ', connected_account_id: card.id },
  ]);
  const copied = w.mf.addTransactions(
    [
      ['2026-05-07', 12_345],
      ['2026-05-12', 23_456],
      ['2026-05-19', 34_567],
      ['2026-05-26', 45_678],
    ].map(([date, value]) => ({
      date: String(date),
      value: Number(value),
      side: 'EXPENSE' as const,
      content: 'AMAZON.CO.JP ｼﾖｳﾋﾝ',
      connected_account_id: smbc.id,
      connected_sub_account_id: smbc.connected_sub_accounts[0].id,
    })),
  );
  w.addRules(EXAMPLE_RULES);
  ok(w, 'importTransactions');
  ok(w, 'classifyPending');
  w.edit(`mf:${out.id}`, '勘定科目', '普通預金');
  w.edit(`mf:${out.id}`, '補助科目', 'ゆうちょ銀行');
  w.edit(`mf:${out.id}`, '操作', '承認');
  w.edit(`mf:${inn.id}`, '勘定科目', '普通預金');
  w.edit(`mf:${inn.id}`, '補助科目', '三井住友銀行');
  w.edit(`mf:${inn.id}`, '操作', '承認');
  for (const t of twins) {
    w.edit(`mf:${t.id}`, '勘定科目', '旅費交通費');
    w.edit(`mf:${t.id}`, '操作', '承認');
  }
  ok(w, 'postApproved');

  // The rows other parties copy: four purchases with amounts nothing else in the book has.
  const journals = w.mf.journals();
  const posted = copied.map((t) => {
    const row = w.ledger().find((r) => r.明細ID === t.id);
    assert.equal(row?.状態, '完了', `line ${t.content} posted`);
    return { row, journal: journals.find((j) => j.id === row.MF仕訳ID) as Journal };
  });
  const [r1, r2, r3, r4] = posted;

  // Another automation journalized the same line 30 s after kicho did.
  const sameLine = w.mf.addJournal(
    copyOf(r1.journal, {
      transactionId: String(r1.row.明細ID),
      enteredBy: 'JOURNAL_TYPE_DATA_LINKAGE',
      createTime: later(r1.journal.create_time, 30),
    }),
  );
  // A copy of this spreadsheet posted the same 台帳 row the next day (same key, so the same tag).
  const sameTag = w.mf.addJournal(
    copyOf(r2.journal, {
      tags: [remoteTagOf(String(r2.row.キー))],
      enteredBy: 'JOURNAL_TYPE_EXTERNAL',
      createTime: later(r2.journal.create_time, 86_400),
    }),
  );
  // A person typed the purchase by hand the day after (no sub-account, full-width remark).
  const b4 = r4.journal.branches[0];
  const hand = w.mf.addJournal(
    copyOf(r4.journal, {
      date: addDay(r4.journal.transaction_date),
      remark: String(b4.remark ?? '').normalize('NFKC'),
      credit: { ...side(b4.creditor), sub: null },
      enteredBy: 'JOURNAL_TYPE_NORMAL',
    }),
  );
  // The same account as a CSV: 取込元 on r3's bank side (e.g. 普通預金 / 三井住友銀行), with r3's line in
  // it, posted by kicho.
  const bank = r3.journal.branches[0].creditor;
  const sources = w.emu.world.spreadsheet.sheets.find((s) => s.name === '取込元');
  assert.ok(sources);
  const srow = sources.lastRow() + 1;
  sources.setValue(srow, 1, 'ネットバンク（CSV）');
  sources.setValue(srow, 2, bank.account_name);
  sources.setValue(srow, 3, bank.sub_account_name ?? '');
  const csvText = `日付,摘要,出金,入金\n${String(r3.row.取引日).replaceAll('-', '/')},${r3.row.摘要},${r3.row.金額},\n`;
  const imported = ok(w, 'importCsv', [csvText, 'ネットバンク（CSV）']);
  assert.equal(imported.count, 1);
  const csvRow = w.ledger().find((r) => String(r.キー).startsWith('csv:'));
  assert.ok(csvRow);
  w.edit(String(csvRow.キー), '勘定科目', String(r3.row.勘定科目) || '消耗品費');
  w.edit(String(csvRow.キー), '操作', '承認');
  ok(w, 'postApproved');
  const csvJournal = w.ledger().find((r) => r.キー === csvRow.キー)?.MF仕訳ID;
  assert.ok(csvJournal);

  const byKey = new Map(w.ledger().map((r) => [String(r.キー), r]));
  const idOf = (key: string) => String(byKey.get(key)?.MF仕訳ID);
  return {
    w,
    planted: {
      sameLine: { kept: String(r1.row.MF仕訳ID), copy: sameLine.id, key: String(r1.row.キー) },
      sameTag: { kept: String(r2.row.MF仕訳ID), copy: sameTag.id, key: String(r2.row.キー) },
      csvAndLine: { line: String(r3.row.MF仕訳ID), csv: String(csvJournal), csvKey: String(csvRow.キー) },
      hand: { line: String(r4.row.MF仕訳ID), hand: hand.id },
      transfer: { ids: [idOf(`mf:${out.id}`), idOf(`mf:${inn.id}`)], keys: [`mf:${out.id}`, `mf:${inn.id}`] },
      twins: { ids: twins.map((t) => idOf(`mf:${t.id}`)) },
    },
  };
}

function addDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
