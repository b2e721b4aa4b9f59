import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  agingBucket,
  entriesFromJournals,
  type JournalLike,
  matchReceivables,
  NO_PARTNER,
  RECEIVABLE_NOTES,
  type ReceivableEntry,
} from '../../src/core/receivables';
import {
  openReceivablesFromValues,
  RECEIVABLE_SECTIONS,
  receivableSheetRows,
} from '../../src/core/receivables-sheet';
import { RECEIVABLE_HEADERS } from '../../src/core/schema';

const OPTS = { asOf: '2026-11-30', collectionDays: 60, feeTolerance: 880 };
const YAMADA = '株式会社山田商事';
const SATO = '佐藤デザイン事務所';

function bill(partner: string, date: string, amount: number): ReceivableEntry {
  return { partner, date, kind: 'occurrence', amount, notes: [] };
}
function pay(partner: string, date: string, amount: number): ReceivableEntry {
  return { partner, date, kind: 'collection', amount, notes: [] };
}
function credit(partner: string, date: string, amount: number): ReceivableEntry {
  return { partner, date, kind: 'credit-note', amount, notes: [] };
}

describe('receivables matching', () => {
  test('oldest first, partial payments, one deposit for two invoices, fee shortfall closes', () => {
    const r = matchReceivables(
      [
        bill(YAMADA, '2026-07-31', 110_000),
        bill(YAMADA, '2026-08-31', 55_000),
        bill(YAMADA, '2026-09-30', 33_000),
        bill(YAMADA, '2026-10-31', 22_000),
        // Pays July and August together, minus an 880 yen fee.
        pay(YAMADA, '2026-09-30', 164_120),
        // Pays 10,000 of September.
        pay(YAMADA, '2026-10-31', 10_000),
      ],
      OPTS,
    );
    const rows = (items: typeof r.open) =>
      items.map((i) => [i.date, i.amount, i.collected, i.feeDifference, i.balance, i.status]);
    assert.deepEqual(rows(r.closed), [
      ['2026-07-31', 110_000, 110_000, 0, 0, '回収済'],
      ['2026-08-31', 55_000, 54_120, 880, 0, '回収済'],
    ]);
    assert.deepEqual(rows(r.open), [
      // 61 days old: past the 60-day 回収期限.
      ['2026-09-30', 33_000, 10_000, 0, 23_000, '期日超過'],
      ['2026-10-31', 22_000, 0, 0, 22_000, '未回収'],
    ]);
    assert.equal(r.open[0].days, 61);
    assert.equal(r.open[0].bucket, '61〜90日');
    assert.equal(r.open[1].bucket, '〜30日');
    assert.match(r.closed[1].notes.join(), /880 円足りません/);
    assert.deepEqual(r.partners, [
      {
        partner: YAMADA,
        amount: 220_000,
        collected: 174_120,
        cancelled: 0,
        feeDifference: 880,
        balance: 45_000,
        openCount: 2,
        overdueCount: 1,
      },
    ]);
    assert.equal(r.totalBalance, 45_000);
  });

  test('a shortfall beyond the tolerance stays open; overdue after 回収期限', () => {
    const r = matchReceivables([bill(SATO, '2026-08-01', 50_000), pay(SATO, '2026-09-01', 49_000)], OPTS);
    assert.equal(r.open.length, 1);
    assert.equal(r.open[0].balance, 1_000);
    assert.equal(r.open[0].days, 121);
    assert.equal(r.open[0].status, '期日超過');
    assert.equal(r.open[0].bucket, '90日超');
    assert.equal(r.overdueCount, 1);
    assert.deepEqual(
      r.buckets.map((b) => [b.bucket, b.balance, b.count]),
      [
        ['〜30日', 0, 0],
        ['31〜60日', 0, 0],
        ['61〜90日', 0, 0],
        ['90日超', 1_000, 1],
      ],
    );
  });

  test('tolerance 0 never closes a shortfall', () => {
    const r = matchReceivables([bill(SATO, '2026-11-01', 11_000), pay(SATO, '2026-11-20', 10_560)], {
      ...OPTS,
      feeTolerance: 0,
    });
    assert.equal(r.open[0].balance, 440);
    assert.equal(r.open[0].status, '一部回収');
  });

  test('credit notes reduce the oldest open item; a full one marks it 取消', () => {
    const r = matchReceivables(
      [
        bill(YAMADA, '2026-10-01', 30_000),
        bill(YAMADA, '2026-10-15', 20_000),
        credit(YAMADA, '2026-10-20', 30_000),
        credit(YAMADA, '2026-10-21', 5_000),
      ],
      OPTS,
    );
    assert.deepEqual(
      r.closed.map((i) => [i.date, i.cancelled, i.status]),
      [['2026-10-01', 30_000, '取消']],
    );
    assert.deepEqual(
      r.open.map((i) => [i.date, i.cancelled, i.balance, i.status]),
      [['2026-10-15', 5_000, 15_000, '一部回収']],
    );
  });

  test('money with nothing to pay is shown as 前受または誤り, then used by a later invoice', () => {
    const early = matchReceivables([pay(SATO, '2026-09-01', 40_000)], OPTS);
    assert.deepEqual(
      early.open.map((i) => [i.collected, i.balance, i.status]),
      [[40_000, -40_000, '前受または誤り']],
    );
    assert.match(early.open[0].notes.join(), /前受金か/);
    assert.equal(early.totalBalance, -40_000);

    const later = matchReceivables([pay(SATO, '2026-09-01', 40_000), bill(SATO, '2026-09-10', 30_000)], OPTS);
    assert.deepEqual(
      later.closed.map((i) => [i.amount, i.collected, i.status]),
      [[30_000, 30_000, '回収済']],
    );
    assert.deepEqual(
      later.open.map((i) => [i.balance, i.status]),
      [[-10_000, '前受または誤り']],
    );
    const orphanCredit = matchReceivables([credit(SATO, '2026-09-01', 1_000)], OPTS);
    assert.equal(orphanCredit.open[0].status, '取消');
    assert.equal(orphanCredit.open[0].balance, -1_000);
  });

  test('same-day billing and payment match; partners are never mixed', () => {
    const r = matchReceivables(
      [
        pay(YAMADA, '2026-11-01', 10_000),
        bill(YAMADA, '2026-11-01', 10_000),
        bill(SATO, '2026-11-01', 10_000),
      ],
      OPTS,
    );
    assert.deepEqual(
      r.open.map((i) => [i.partner, i.balance]),
      [[SATO, 10_000]],
    );
    assert.equal(r.closed[0].partner, YAMADA);
  });

  test('aging buckets at their edges', () => {
    assert.deepEqual([0, 30, 31, 60, 61, 90, 91].map(agingBucket), [
      '〜30日',
      '〜30日',
      '31〜60日',
      '31〜60日',
      '61〜90日',
      '61〜90日',
      '90日超',
    ]);
  });
});

describe('receivable entries from MF journals', () => {
  const ACC = 'acc%2Bur';
  const names = {
    partners: new Map([['P001', YAMADA]]),
    subAccounts: new Map([['sub1', SATO]]),
  };
  const side = (account_id: string, value: number, extra: Record<string, unknown> = {}) => ({
    account_id,
    value,
    tax_value: 0,
    ...extra,
  });
  test('debit, credit, negative lines, sales-side credits, partner by code then sub-account', () => {
    const journals: JournalLike[] = [
      {
        id: 'j1',
        transaction_date: '2026-10-01',
        branches: [
          {
            debitor: side(ACC, 100_000, { trade_partner_code: 'P001' }),
            creditor: side('sales', 90_910, { account_name: '売上高', tax_value: 9_090 }),
          },
        ],
      },
      {
        id: 'j2',
        transaction_date: '2026-10-31',
        branches: [
          {
            debitor: side('bank', 99_560, { account_name: '普通預金' }),
            creditor: side(ACC, 99_560, { trade_partner_code: 'P001' }),
          },
          { debitor: side('bank', 5_000), creditor: side(ACC, 5_000, { sub_account_id: 'sub1' }) },
        ],
      },
      {
        id: 'j3',
        transaction_date: '2026-11-02',
        branches: [
          { debitor: side(ACC, -2_000), creditor: side('sales', -2_000, { account_name: '売上高' }) },
          {
            debitor: side('sales', 3_000, { account_name: '売上値引高' }),
            creditor: side(ACC, 3_000, { trade_partner_code: 'P999' }),
          },
          { debitor: side('bank', -1_000), creditor: side(ACC, -1_000, { sub_account_id: 'sub1' }) },
        ],
      },
      {
        id: 'j4',
        transaction_date: '2026-11-03',
        entered_by: 'JOURNAL_TYPE_OPENING',
        branches: [{ debitor: side(ACC, 7) }],
      },
    ];
    const entries = entriesFromJournals(journals, ACC, names, { skipOpeningAfter: '2026-04-01' });
    assert.deepEqual(
      entries.map((e) => [e.partner, e.date, e.kind, e.amount]),
      [
        [YAMADA, '2026-10-01', 'occurrence', 100_000],
        [YAMADA, '2026-10-31', 'collection', 99_560],
        [SATO, '2026-10-31', 'collection', 5_000],
        [NO_PARTNER, '2026-11-02', 'credit-note', 2_000],
        ['取引先コード P999', '2026-11-02', 'credit-note', 3_000],
        [SATO, '2026-11-02', 'occurrence', 1_000],
      ],
    );
    assert.deepEqual(entries[3].notes, [RECEIVABLE_NOTES.noPartner, RECEIVABLE_NOTES.negativeDebit]);
    assert.deepEqual(entries[4].notes, [RECEIVABLE_NOTES.creditAgainstSales]);
    assert.deepEqual(entries[5].notes, [RECEIVABLE_NOTES.negativeCredit]);
    // The first term's opening balance is kept.
    assert.equal(entriesFromJournals(journals, ACC, names).length, 7);
  });
});

describe('receivables properties', () => {
  const partner = fc.constantFrom(YAMADA, SATO, NO_PARTNER);
  const day = fc.integer({ min: 0, max: 200 }).map((d) => {
    const t = new Date(Date.UTC(2026, 4, 1) + d * 86_400_000);
    return t.toISOString().slice(0, 10);
  });
  const entry = fc.record({
    partner,
    date: day,
    kind: fc.constantFrom('occurrence', 'occurrence', 'collection', 'credit-note') as fc.Arbitrary<
      ReceivableEntry['kind']
    >,
    amount: fc.integer({ min: 1, max: 200_000 }),
    notes: fc.constant([] as string[]),
  });
  const tolerance = fc.constantFrom(0, 440, 880);

  test('sum of 残高 = debits − credits − fee differences, per partner and overall', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), tolerance, (entries, feeTolerance) => {
        const r = matchReceivables(entries, { ...OPTS, feeTolerance });
        const all = [...r.open, ...r.closed];
        const sum = (f: (e: ReceivableEntry) => boolean) =>
          entries.filter(f).reduce((s, e) => s + e.amount, 0);
        const fees = all.reduce((s, i) => s + i.feeDifference, 0);
        const expected = sum((e) => e.kind === 'occurrence') - sum((e) => e.kind !== 'occurrence') - fees;
        assert.equal(
          all.reduce((s, i) => s + i.balance, 0),
          expected,
        );
        assert.equal(r.totalBalance, expected);
        assert.equal(
          r.partners.reduce((s, p) => s + p.balance, 0),
          expected,
        );
        for (const i of all) {
          assert.equal(i.balance, i.amount - i.collected - i.cancelled - i.feeDifference);
          assert.ok(i.feeDifference <= feeTolerance);
        }
        // Every yen billed is an item; nothing is dropped.
        assert.equal(
          all.reduce((s, i) => s + i.amount, 0),
          sum((e) => e.kind === 'occurrence'),
        );
        assert.equal(
          r.buckets.reduce((s, b) => s + b.balance, 0),
          r.open.filter((i) => i.balance > 0).reduce((s, i) => s + i.balance, 0),
        );
      }),
      { numRuns: 300 },
    );
  });

  test('FIFO: an open invoice is never older than a settled one of the same partner', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), tolerance, (entries, feeTolerance) => {
        const r = matchReceivables(entries, { ...OPTS, feeTolerance });
        for (const open of r.open.filter((i) => i.balance > 0)) {
          for (const done of r.closed.filter((i) => i.partner === open.partner)) {
            assert.ok(
              done.date <= open.date,
              `${open.partner}: ${done.date} settled while ${open.date} is open`,
            );
          }
          // Unapplied money and an open invoice never coexist for a partner.
          assert.ok(!r.open.some((i) => i.partner === open.partner && i.balance < 0));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the 売掛金 sheet layout', () => {
  test('open items, then totals and buckets, then history; the open invoices read back from it', () => {
    const report = matchReceivables(
      [
        bill(YAMADA, '2026-10-01', 30_000),
        pay(YAMADA, '2026-10-20', 30_000),
        bill(YAMADA, '2026-11-01', 20_000),
        bill(SATO, '2026-08-01', 10_000),
        pay(NO_PARTNER, '2026-11-02', 5_000),
      ],
      OPTS,
    );
    const rows = receivableSheetRows(report);
    const firstCol = rows.map((r) => r.取引先 ?? '');
    assert.deepEqual(firstCol.slice(0, 4), [NO_PARTNER, YAMADA, SATO, '']);
    assert.ok(firstCol.indexOf(RECEIVABLE_SECTIONS.partners) < firstCol.indexOf(RECEIVABLE_SECTIONS.buckets));
    assert.ok(firstCol.indexOf(RECEIVABLE_SECTIONS.buckets) < firstCol.indexOf(RECEIVABLE_SECTIONS.closed));
    const total = rows.find((r) => r.取引先 === RECEIVABLE_SECTIONS.total);
    assert.equal(total?.残高, 20_000 + 10_000 - 5_000);
    // Written under the headers (in any column order) and read back for 判定.
    const headers = [...RECEIVABLE_HEADERS].reverse();
    const values = [headers, ...rows.map((r) => headers.map((h) => r[h] ?? ''))];
    assert.deepEqual(openReceivablesFromValues(values), [
      { partner: YAMADA, date: '2026-11-01', balance: 20_000 },
      { partner: SATO, date: '2026-08-01', balance: 10_000 },
    ]);
    assert.deepEqual(receivableSheetRows(matchReceivables([], OPTS))[0], {
      取引先: RECEIVABLE_SECTIONS.noOpen,
    });
  });
});
