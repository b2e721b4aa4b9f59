/** 重複点検's detection, sheet and delete plan (src/core/duplicates), on hand-made journals. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AuditOptions, findDuplicates, PROPOSAL } from '../../src/core/duplicates/detect';
import {
  type AuditJournal,
  auditable,
  journalFacts,
  LedgerLinks,
  similarRemarks,
  similarText,
} from '../../src/core/duplicates/facts';
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
    const records = auditRecords(groupsOf([a, b]), []);
    records[0].操作 = '削除';
    records[1].操作 = '削除';
    const both = planDeletion(parseDuplicateSheet(sheetValues(records)), digest);
    assert.equal(both.planned.length, 0);
    assert.equal(both.refused.length, 1);
    records[0].操作 = '残す';
    const one = planDeletion(parseDuplicateSheet(sheetValues(records)), digest);
    assert.deepEqual(
      one.planned.map((p) => p.journalId),
      [records[1].仕訳ID],
    );
    assert.match(one.warnings[0], /別の明細から作られた/);
    // The token follows what the plan rests on.
    records[1].金額 = 999;
    assert.notEqual(planDeletion(parseDuplicateSheet(sheetValues(records)), digest).token, one.token);
  });
});
