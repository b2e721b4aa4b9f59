/** 重複点検's detection, sheet and delete plan (src/core/duplicates), on hand-made journals. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lookupWindows } from '../../src/core/duplicates/deletion-checks';
import { type AuditOptions, findDuplicates, PROPOSAL } from '../../src/core/duplicates/detect';
import {
  type AuditJournal,
  auditable,
  journalFacts,
  LedgerLinks,
  similarRemarks,
  similarText,
} from '../../src/core/duplicates/facts';
import { formatRecord, parseRecord, RecordView, recordOf } from '../../src/core/duplicates/record';
import {
  auditRecords,
  DELETE_STATE,
  emptyDuplicateRecord,
  parseDuplicateSheet,
  planDeletion,
} from '../../src/core/duplicates/sheet';
import { remoteTagOf } from '../../src/core/keys';
import type { LedgerRow } from '../../src/core/ledger';
import { DUPLICATE_HEADERS } from '../../src/core/schema';
import { sha256Hex } from '../../src/core/sha256';
import { ledgerRecord } from '../helpers/fixtures';

const BANK = {
  account_id: 'acc-bank',
  account_name: '普通預金',
  sub_account_id: 'sub-smbc',
  sub_account_name: '三井住友銀行',
};
const YUCHO = {
  account_id: 'acc-bank',
  account_name: '普通預金',
  sub_account_id: 'sub-yucho',
  sub_account_name: 'ゆうちょ銀行',
};
const SHINKIN = {
  account_id: 'acc-bank',
  account_name: '普通預金',
  sub_account_id: 'sub-shinkin',
  sub_account_name: '信用金庫',
};
const SUPPLIES = { account_id: 'acc-supplies', account_name: '消耗品費' };
const TRAVEL = { account_id: 'acc-travel', account_name: '旅費交通費' };

let n = 0;
function journal(
  over: Partial<AuditJournal> & { debit?: object; credit?: object; value?: number; remark?: string },
): AuditJournal {
  n++;
  const value = over.value ?? 1100;
  const { debit, credit, remark, value: _v, ...rest } = over;
  return {
    id: `J${n}%3D`,
    number: n,
    transaction_date: '2026-05-10',
    transaction_id: null,
    tags: [],
    memo: null,
    entered_by: 'JOURNAL_TYPE_NORMAL',
    create_time: '2026-05-11T01:00:00Z',
    branches: [
      {
        remark: remark ?? 'ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ',
        debitor: { ...SUPPLIES, ...(debit ?? {}), value },
        creditor: { ...BANK, ...(credit ?? {}), value },
      },
    ],
    ...rest,
  };
}

const OPTIONS: AuditOptions = {
  days: 3,
  ownAccounts: [
    { accountId: 'acc-bank', subId: 'sub-smbc' },
    { accountId: 'acc-bank', subId: 'sub-yucho' },
    { accountId: 'acc-bank', subId: 'sub-shinkin' },
  ],
  csvSources: new Map([['信用金庫', { accountId: 'acc-bank', subId: 'sub-shinkin' }]]),
  accountOfKey: () => undefined,
};

function groupsOf(journals: AuditJournal[], rows: LedgerRow[] = [], options: Partial<AuditOptions> = {}) {
  const facts = journalFacts(journals, new LedgerLinks(rows));
  const byKey = new Map(rows.map((r) => [String(r.record.キー), String(r.record.口座)]));
  return findDuplicates(facts, { ...OPTIONS, accountOfKey: (k) => byKey.get(k), ...options });
}

function ids(g: { members: { facts: { id: string }; proposal: string }[] }) {
  return g.members.map((m) => [m.facts.id, m.proposal]);
}

describe('similar 摘要', () => {
  test('NFKC, kana width, ﾌﾘｺﾐ-style words, 法人格 and spaces do not matter', () => {
    assert.equal(similarText('ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ'), similarText('振込　ヤマダショウジ'));
    assert.equal(similarText('ｶｰﾄﾞ ｱﾏｿﾞﾝ'), similarText('アマゾン'));
    assert.ok(similarRemarks(similarText('ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ'), similarText('アマゾン 文房具')));
    assert.ok(similarRemarks(similarText('ﾀｸｼｰ'), similarText('ﾀｸｼｰ ﾄｳｷﾖｳ')));
    assert.ok(!similarRemarks(similarText('ｱﾏｿﾞﾝ'), similarText('ﾖﾄﾞﾊﾞｼｶﾒﾗ')));
  });
});

describe('findDuplicates: every kind, and what must not be grouped', () => {
  test('two journals of one statement line: the 台帳 journal kept, the other proposed for deletion', () => {
    const kicho = journal({
      transaction_id: 'TX%2B1',
      tags: [remoteTagOf('mf:TX%2B1')],
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
    });
    // MF's own journalizing (another automation) of the same line, 30 s later; the id spelled %2b.
    const other = journal({
      transaction_id: 'TX%2b1',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      create_time: '2026-05-11T01:00:30Z',
    });
    const row = {
      rowNumber: 2,
      record: ledgerRecord({ キー: 'mf:TX%2B1', 明細ID: 'TX%2B1', 状態: '完了', MF仕訳ID: kicho.id }),
    };
    const [g] = groupsOf([other, kicho], [row]);
    assert.equal(g.kind, 'same-line');
    assert.deepEqual(ids(g), [
      [kicho.id, PROPOSAL.keep],
      [other.id, PROPOSAL.delete],
    ]);
    assert.match(g.cause, /同じ明細から仕訳が 2 件/);
    assert.match(g.cause, /ほぼ同時/);
    assert.deepEqual(g.members[0].facts.ledgerKeys, ['mf:TX%2B1']);
    assert.equal(g.members[0].facts.originLabel, 'kicho（MFの明細から）');
    assert.equal(g.members[1].facts.originLabel, 'MFで明細から仕訳');
  });

  test('two journals with one kicho tag (a CSV row posted twice, a day apart)', () => {
    const tag = remoteTagOf('csv:abc');
    const a = journal({
      tags: [tag],
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      create_time: '2026-05-11T01:00:00Z',
    });
    const b = journal({
      tags: [tag],
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      create_time: '2026-05-12T01:00:00Z',
    });
    const row = {
      rowNumber: 2,
      record: ledgerRecord({ キー: 'csv:abc', 状態: '完了', MF仕訳ID: b.id, 口座: '信用金庫' }),
    };
    const [g] = groupsOf([a, b], [row]);
    assert.equal(g.kind, 'same-tag');
    assert.deepEqual(ids(g), [
      [b.id, PROPOSAL.keep],
      [a.id, PROPOSAL.delete],
    ]);
    assert.match(g.cause, /時間をおいて/);
    // The unreferenced copy is tied to the row through the tag.
    assert.deepEqual(g.members[1].facts.ledgerKeys, ['csv:abc']);
    assert.equal(g.members[0].facts.originLabel, 'kicho（CSVから）');
  });

  test('a CSV line and a statement line of the same bank, amount and side, 2 days apart', () => {
    const csv = journal({
      tags: [remoteTagOf('csv:k1')],
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      transaction_date: '2026-05-12',
      credit: SHINKIN,
      remark: 'ｱﾏｿﾞﾝ',
    });
    // The same bank is connected in MF too: its line was journalized there, to another expense account.
    const line = journal({
      transaction_id: 'TX9',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      credit: SHINKIN,
      debit: TRAVEL,
      remark: 'AMAZON.CO.JP',
    });
    const rows = [
      {
        rowNumber: 2,
        record: ledgerRecord({ キー: 'csv:k1', 状態: '完了', MF仕訳ID: csv.id, 口座: '信用金庫' }),
      },
    ];
    const [g] = groupsOf([csv, line], rows);
    assert.equal(g.kind, 'csv-and-line');
    assert.deepEqual(ids(g), [
      [line.id, PROPOSAL.keep],
      [csv.id, PROPOSAL.delete],
    ]);
    assert.match(g.cause, /取込元「信用金庫」/);
    assert.match(g.check, /今後はその CSV を取り込まないでください/);
  });

  test('one transfer between two own accounts, journalized from both feeds', () => {
    const out = journal({
      transaction_id: 'TXA',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      debit: YUCHO,
      credit: BANK,
      value: 100_000,
      remark: 'ﾌﾘｶｴ ﾕｳﾁﾖ',
    });
    const inn = journal({
      transaction_id: 'TXB',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      transaction_date: '2026-05-11',
      debit: YUCHO,
      credit: BANK,
      value: 100_000,
      remark: 'ﾌﾘｺﾐ ﾐﾂｲｽﾐﾄﾓ',
    });
    const [g] = groupsOf([out, inn]);
    assert.equal(g.kind, 'transfer');
    assert.equal(g.possiblyGenuine, false);
    assert.deepEqual(
      g.members.map((m) => m.proposal),
      [PROPOSAL.keep, PROPOSAL.delete],
    );
    assert.match(g.cause, /振替/);
  });

  test('a journal typed by hand next to the line journal of the same purchase', () => {
    const line = journal({
      transaction_id: 'TXC',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      remark: 'ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ',
    });
    const hand = journal({
      transaction_date: '2026-05-12',
      remark: 'アマゾン 文房具',
      debit: { sub_account_id: null },
    });
    const [g] = groupsOf([hand, line]);
    assert.equal(g.kind, 'same-content');
    assert.deepEqual(ids(g), [
      [line.id, PROPOSAL.keep],
      [hand.id, PROPOSAL.delete],
    ]);
    assert.match(g.cause, /手入力/);
    assert.equal(g.members[1].facts.originLabel, 'その他（手入力）');
  });

  test('genuine twins: two lines with their own ids are shown as possibly legitimate, never proposed', () => {
    const a = journal({
      transaction_id: 'TXD',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      remark: 'ﾀｸｼｰ ﾄｳｷﾖｳ',
      debit: TRAVEL,
      value: 2140,
    });
    const b = journal({
      transaction_id: 'TXE',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      remark: 'ﾀｸｼｰ ﾄｳｷﾖｳ',
      debit: TRAVEL,
      value: 2140,
    });
    const [g] = groupsOf([a, b]);
    assert.equal(g.possiblyGenuine, true);
    assert.ok(g.members.every((m) => m.proposal === PROPOSAL.genuine));
    assert.match(g.check, /本当に2回なら両方「残す」/);
  });

  test('two statement lines a day apart are a routine, not a pair; a hand copy a day apart still is', () => {
    const a = journal({ transaction_id: 'TXR1', entered_by: 'JOURNAL_TYPE_DATA_LINKAGE', remark: 'ｽﾀｰﾊﾞﾂｸｽ' });
    const b = journal({
      transaction_id: 'TXR2',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      remark: 'ｽﾀｰﾊﾞﾂｸｽ',
      transaction_date: '2026-05-11',
    });
    const c = journal({
      transaction_id: 'TXR3',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      remark: 'ｽﾀｰﾊﾞﾂｸｽ',
      transaction_date: '2026-05-12',
    });
    assert.deepEqual(groupsOf([a, b, c]), []);
    const hand = journal({ remark: 'スターバックス', transaction_date: '2026-05-13' });
    const [g] = groupsOf([a, b, c, hand]);
    assert.ok(g.members.some((m) => m.facts.id === hand.id && m.proposal === PROPOSAL.delete));
  });

  test('two lines of one CSV file are possibly genuine; the same line from two imports is proposed', () => {
    const a = journal({
      tags: [remoteTagOf('csv:a1')],
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      credit: SHINKIN,
      remark: 'ﾀｸｼｰ',
    });
    const b = journal({
      tags: [remoteTagOf('csv:a2')],
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      credit: SHINKIN,
      remark: 'ﾀｸｼｰ',
    });
    const row = (key: string, id: string, at: string) => ({
      rowNumber: 2,
      record: ledgerRecord({ キー: key, 状態: '完了', MF仕訳ID: id, 口座: '信用金庫', 初回検知: at }),
    });
    const sameFile = groupsOf(
      [a, b],
      [row('csv:a1', a.id, '2026-05-11T00:00:00Z'), row('csv:a2', b.id, '2026-05-11T00:00:00Z')],
    );
    assert.equal(sameFile[0].possiblyGenuine, true);
    assert.match(sameFile[0].cause, /同じ CSV に/);
    const twoImports = groupsOf(
      [a, b],
      [row('csv:a1', a.id, '2026-05-11T00:00:00Z'), row('csv:a2', b.id, '2026-06-01T00:00:00Z')],
    );
    assert.equal(twoImports[0].possiblyGenuine, false);
    assert.deepEqual(
      twoImports[0].members.map((m) => m.proposal),
      [PROPOSAL.keep, PROPOSAL.delete],
    );
    assert.match(twoImports[0].cause, /CSV の別々の取込/);
  });

  test('re-linked account: the two lines came in under different 口座 names', () => {
    const a = journal({ transaction_id: 'TXF', entered_by: 'JOURNAL_TYPE_DATA_LINKAGE' });
    const b = journal({ transaction_id: 'TXG', entered_by: 'JOURNAL_TYPE_DATA_LINKAGE' });
    const rows = [
      {
        rowNumber: 2,
        record: ledgerRecord({ キー: 'mf:TXF', 明細ID: 'TXF', 口座: '三井住友銀行 代表口座' }),
      },
      {
        rowNumber: 3,
        record: ledgerRecord({ キー: 'mf:TXG', 明細ID: 'TXG', 口座: '三井住友銀行（再連携）' }),
      },
    ];
    const [g] = groupsOf([a, b], rows);
    assert.equal(g.possiblyGenuine, true);
    assert.match(g.cause, /再連携/);
  });

  test('not the same money: another amount, accounts, partner, 摘要, or dates beyond the setting', () => {
    const base = journal({});
    const others = [
      journal({ value: 1200 }),
      journal({ debit: TRAVEL }),
      journal({ credit: YUCHO }),
      journal({ remark: 'ﾖﾄﾞﾊﾞｼｶﾒﾗ' }),
      journal({ transaction_date: '2026-05-14' }),
    ];
    assert.deepEqual(groupsOf([base, ...others]), []);
    const p1 = journal({ debit: { trade_partner_code: 'P1' } });
    const p2 = journal({ debit: { trade_partner_code: 'P2' } });
    assert.deepEqual(groupsOf([p1, p2]), []);
    // Within the setting (3 days) they are grouped; with 2, not.
    const d0 = journal({ transaction_date: '2026-05-10' });
    const d3 = journal({ transaction_date: '2026-05-13' });
    assert.equal(groupsOf([d0, d3]).length, 1);
    assert.equal(groupsOf([d0, d3], [], { days: 2 }).length, 0);
  });

  test('opening balances are never a second recording', () => {
    assert.equal(auditable(journal({ entered_by: 'JOURNAL_TYPE_OPENING' })), false);
    assert.equal(auditable(journal({ entered_by: 'JOURNAL_TYPE_NORMAL' })), true);
  });

  test('groups are stable: the same label on a re-run', () => {
    const a = journal({ transaction_id: 'TXH', entered_by: 'JOURNAL_TYPE_DATA_LINKAGE' });
    const b = journal({
      transaction_id: 'TXH',
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      create_time: '2026-05-12T01:00:00Z',
    });
    assert.equal(groupsOf([a, b])[0].anchor, groupsOf([b, a])[0].anchor);
  });
});

describe('the 重複点検 sheet and the delete plan', () => {
  const digest = (t: string) => sha256Hex(t).slice(0, 16);

  function sheetValues(records: Record<string, unknown>[]): unknown[][] {
    return [DUPLICATE_HEADERS.slice(), ...records.map((r) => DUPLICATE_HEADERS.map((h) => r[h] ?? ''))];
  }

  test('a re-run keeps 操作 and メモ of journals still grouped, and every delete in progress', () => {
    const a = journal({ transaction_id: 'TXI', entered_by: 'JOURNAL_TYPE_DATA_LINKAGE' });
    const b = journal({
      transaction_id: 'TXI',
      entered_by: 'JOURNAL_TYPE_EXTERNAL',
      create_time: '2026-05-12T01:00:00Z',
    });
    const groups = groupsOf([a, b]);
    const first = auditRecords(groups, []);
    first[1].操作 = '削除';
    first[1].メモ = '税理士に確認済み';
    const gone = {
      ...emptyDuplicateRecord(),
      グループ: 'G-old',
      仕訳ID: 'OLD',
      状態: DELETE_STATE.claimed,
      更新日時: '2026-11-30T00:00:00Z',
    };
    const dissolved = { ...emptyDuplicateRecord(), グループ: 'G-x', 仕訳ID: 'X', 操作: '削除' };
    const table = parseDuplicateSheet(sheetValues([...first, gone, dissolved]));
    const again = auditRecords(groups, table.rows);
    assert.equal(again[1].操作, '削除');
    assert.equal(again[1].メモ, '税理士に確認済み');
    assert.ok(
      again.some((r) => r.仕訳ID === 'OLD' && r.状態 === DELETE_STATE.claimed),
      'a claim survives',
    );
    assert.ok(!again.some((r) => r.仕訳ID === 'X'), 'a group that no longer exists is gone');
  });

  const meta = { at: '2026-12-01T00:00:00.000Z', start: '2026-04-01', end: '2026-06-30' };

  test('a group never loses every journal; possibly-genuine rows are warned about', () => {
    const a = journal({
      transaction_id: 'TXJ',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      debit: TRAVEL,
      remark: 'ﾀｸｼｰ',
    });
    const b = journal({
      transaction_id: 'TXK',
      entered_by: 'JOURNAL_TYPE_DATA_LINKAGE',
      debit: TRAVEL,
      remark: 'ﾀｸｼｰ',
    });
    const groups = groupsOf([a, b]);
    const view = new RecordView(recordOf(groups, [], null, meta));
    const records = auditRecords(groups, []);
    records[0].操作 = '削除';
    records[1].操作 = '削除';
    const both = planDeletion(parseDuplicateSheet(sheetValues(records)), view, digest);
    assert.equal(both.planned.length, 0);
    assert.equal(both.refused.length, 1);
    records[0].操作 = '残す';
    const one = planDeletion(parseDuplicateSheet(sheetValues(records)), view, digest);
    assert.deepEqual(
      one.planned.map((p) => p.journalId),
      [records[1].仕訳ID],
    );
    assert.match(one.warnings[0], /別の明細から作られた/);
    // What the dialog shows is the record's, not the sheet's cells.
    records[1].金額 = 999;
    const typed = planDeletion(parseDuplicateSheet(sheetValues(records)), view, digest);
    assert.equal(typed.planned[0].member.amount, one.planned[0].member.amount);
    assert.equal(typed.token, one.token);
    // The token follows the audit the plan rests on.
    const later = new RecordView(recordOf(groups, [], null, { ...meta, at: '2026-12-02T00:00:00.000Z' }));
    assert.notEqual(planDeletion(parseDuplicateSheet(sheetValues(records)), later, digest).token, one.token);
  });

  /** Two groups: one line journalized twice (a, b), one purchase typed by hand next to its line (c, d). */
  function twoGroups() {
    const a = journal({ transaction_id: 'TXA', entered_by: 'JOURNAL_TYPE_DATA_LINKAGE' });
    const b = journal({ transaction_id: 'TXA', entered_by: 'JOURNAL_TYPE_EXTERNAL' });
    const c = journal({ transaction_id: 'TXC', value: 4_321, remark: 'ﾓﾉﾀﾛｳ' });
    const d = journal({ value: 4_321, remark: 'モノタロウ', entered_by: 'JOURNAL_TYPE_NORMAL' });
    const groups = groupsOf([a, b, c, d]);
    assert.equal(groups.length, 2);
    return {
      groups,
      view: new RecordView(recordOf(groups, [], null, meta)),
      records: auditRecords(groups, []),
    };
  }

  test('the plan takes groups from the record: a moved row, a pasted copy, an unknown journal are refused by row', () => {
    const { groups, view, records } = twoGroups();
    const [g1, g2] = groups.map((g) => g.anchor);
    const inG1 = records.filter((r) => r.グループ === g1);
    const inG2 = records.filter((r) => r.グループ === g2);
    // A row of g2 relabelled into g1, and both real journals of g1 chosen: g1 seems to keep the moved one.
    const moved = { ...inG2[1], グループ: g1 };
    for (const r of inG1) r.操作 = '削除';
    let plan = planDeletion(parseDuplicateSheet(sheetValues([...inG1, inG2[0], moved])), view, digest);
    assert.equal(plan.planned.length, 0);
    assert.match(plan.refused.map((r) => r.message).join(' '), /5 行目の仕訳 .* は、重複点検ではグループ G-/);
    // Without the moved row, the record says g1 would lose every journal.
    plan = planDeletion(parseDuplicateSheet(sheetValues([...inG1, ...inG2])), view, digest);
    assert.equal(plan.planned.length, 0);
    assert.match(plan.refused[0].message, /すべて削除することになる/);
    // A pasted copy of g1's first row chosen with its second: refused, both rows named.
    inG1[0].操作 = '';
    const copy = { ...inG1[0], 操作: '削除' };
    plan = planDeletion(parseDuplicateSheet(sheetValues([...inG1, ...inG2, copy])), view, digest);
    assert.equal(plan.planned.length, 0);
    assert.match(plan.refused[0].message, /2・6 行目に同じ仕訳/);
    assert.deepEqual(plan.refused[0].rows.sort(), [2, 3, 6]);
    // A journal the audit never saw, typed into g2 and chosen.
    const typed = { ...inG2[1], 仕訳ID: 'NOT-AUDITED', 操作: '削除' };
    plan = planDeletion(parseDuplicateSheet(sheetValues([inG2[0], typed])), view, digest);
    assert.equal(plan.planned.length, 0);
    assert.match(
      plan.refused[0].message,
      /3 行目の仕訳 NOT-AUDITED は、最後の重複点検で見つけた仕訳ではありません/,
    );
    // The plain choice goes ahead, the survivor taken from the record (its row may even be gone).
    inG1[1].操作 = '削除';
    plan = planDeletion(parseDuplicateSheet(sheetValues([inG1[1], ...inG2])), view, digest);
    assert.deepEqual(
      plan.planned.map((p) => p.journalId),
      [inG1[1].仕訳ID],
    );
    assert.deepEqual(
      plan.groups[0].survivors.map((m) => m.id),
      [inG1[0].仕訳ID],
    );
  });

  test('no usable record, no deletion: the stamp must vouch for the cells', () => {
    const { groups, records } = twoGroups();
    const record = recordOf(groups, [], null, meta);
    const { cells, stamp } = formatRecord(record);
    const read = parseRecord(cells, stamp);
    assert.ok('view' in read && read.view.record.members.length === 4);
    assert.deepEqual(parseRecord(cells, null), { problem: 'none' });
    assert.deepEqual(parseRecord(null, stamp), { problem: 'missing' });
    assert.deepEqual(parseRecord([cells[0].replace('"amount":1100', '"amount":1101')], stamp), {
      problem: 'changed',
    });
    records[0].操作 = '削除';
    const plan = planDeletion(parseDuplicateSheet(sheetValues(records)), 'changed', digest);
    assert.equal(plan.planned.length, 0);
    assert.match(plan.refused[0].message, /書き換えられている.*もう一度「重複点検」/);
  });

  test('a large audit is cut into cells a sheet holds and read back whole', () => {
    const { groups } = twoGroups();
    const record = recordOf(groups, [], null, meta);
    const many = {
      ...record,
      members: Array.from({ length: 3_000 }, (_, i) => ({ ...record.members[i % 4], id: `J${i}` })),
    };
    const { cells, stamp } = formatRecord(many);
    assert.ok(cells.length > 1 && cells.every((c) => c.length <= 40_000));
    const read = parseRecord(cells, stamp);
    assert.ok('view' in read && read.view.record.members.length === 3_000);
  });

  test('rows the sheet carries over keep the entry of the record they were claimed under', () => {
    const { groups } = twoGroups();
    const old = new RecordView(recordOf(groups, [], null, meta));
    const gone = old.record.members[1];
    const now = recordOf(groups.slice(1), [gone.id], old, { ...meta, at: '2026-12-02T00:00:00.000Z' });
    assert.deepEqual(
      now.members.find((m) => m.id === gone.id),
      gone,
    );
    // Nothing is carried from a sheet row the old record does not hold.
    assert.ok(!recordOf([], ['FROM-THE-SHEET'], old, meta).members.some((m) => m.id === 'FROM-THE-SHEET'));
  });
});

describe('the MF check before deleting', () => {
  test('windows: each group its dates, nearby groups in one window', () => {
    const m = (group: string, date: string) => ({
      id: `${group}${date}`,
      group,
      date,
      amount: 1,
      debit: '',
      credit: '',
      remark: '',
      origin: '',
      proposal: '',
      keys: [],
    });
    assert.deepEqual(
      lookupWindows([m('A', '2026-05-01'), m('A', '2026-05-03'), m('B', '2026-05-08'), m('C', '2026-07-01')]),
      [
        { start: '2026-05-01', end: '2026-05-08' },
        { start: '2026-07-01', end: '2026-07-01' },
      ],
    );
  });
});
