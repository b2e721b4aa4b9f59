/**
 * The MF lookup (src/mf/lookup.ts), the one place kicho asks whether MF already has a journal, over a
 * recording fake of the client's reads: no emulator, no fake MF. Each test checks the answer and the
 * calls in order, because the simulation replays fixed call offsets (sim/simulate/regressions.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyRecord } from '../../src/core/intake';
import { csvKey, mfKey, remoteTagOf } from '../../src/core/keys';
import type { ReconcileCandidate } from '../../src/core/ports';
import { type LookupClient, mfLookup } from '../../src/mf/lookup';
import type { MfAccountingPeriod, MfJournal, MfTransaction } from '../../src/mf/types';
import { nearbyWindows } from '../../src/mf/windows';

const PERIODS: MfAccountingPeriod[] = [
  { start_date: '2025-04-01', end_date: '2026-03-31', fiscal_year: 2025 },
  { start_date: '2026-04-01', end_date: '2027-03-31', fiscal_year: 2026 },
];

function journal(
  id: string,
  date: string,
  tags: string[] = [],
  transactionId: string | null = null,
): MfJournal {
  return { id, transaction_date: date, transaction_id: transactionId, tags, memo: null, branches: [] };
}

function line(id: string, date: string, status: MfTransaction['journalizing_status']): MfTransaction {
  return {
    id,
    date,
    value: 1000,
    side: 'EXPENSE',
    content: null,
    memo: null,
    journalizing_status: status,
    connected_account_id: 'acc',
    connected_sub_account_id: null,
  };
}

const inWindow = (d: string, start: string, end: string) => start <= d && d <= end;

/** The client's reads over fixed journals and lines; every call is written to `calls`. */
function fakeClient(journals: MfJournal[], lines: MfTransaction[], failOn?: string) {
  const calls: string[] = [];
  const note = (call: string) => {
    calls.push(call);
    if (failOn && call.startsWith(failOn)) throw new Error(`MF did not answer ${call}`);
  };
  const client: LookupClient = {
    periods: () => {
      note('periods');
      return PERIODS;
    },
    periodOf: (date) => {
      note(`periodOf ${date}`);
      return PERIODS.find((p) => inWindow(date, p.start_date, p.end_date)) ?? null;
    },
    listTransactions: (q) => {
      note(`listTransactions ${q.startDate}..${q.endDate}`);
      return lines.filter((t) => inWindow(t.date, q.startDate, q.endDate));
    },
    listJournals: (q) => {
      note(`listJournals ${q.startDate}..${q.endDate} ids=${(q.transactionIds ?? []).join(',')}`);
      return journals.filter((j) => inWindow(j.transaction_date, q.startDate ?? '', q.endDate ?? '9999'));
    },
    listJournalsWithin: (q, maxPages) => {
      note(`listJournalsWithin ${q.startDate}..${q.endDate} pages=${maxPages}`);
      return journals.filter((j) => inWindow(j.transaction_date, q.startDate, q.endDate));
    },
    journalsBetween: (start, end, filter = {}) => {
      note(
        `journalsBetween ${start}..${end}${filter.transactionIds ? ` ids=${filter.transactionIds.join(',')}` : ''}`,
      );
      return journals.filter((j) => inWindow(j.transaction_date, start, end));
    },
    journal: (id) => {
      note(`journal ${id}`);
      return journals.find((j) => j.id === id) ?? null;
    },
  };
  return { client, calls };
}

describe('after MF refused a journalize: line(id, date)', () => {
  test('its journal by transaction_ids (ids compared by canonical form) is found with one call', () => {
    const { client, calls } = fakeClient([journal('j1', '2026-05-01', [], 'ab%2fc')], []);
    assert.deepEqual(mfLookup(client).line('ab%2Fc', '2026-05-01'), { kind: 'found', journalId: 'j1' });
    assert.deepEqual(calls, ['journalsBetween 2026-05-01..2026-05-01 ids=ab%2Fc']);
  });

  test('without a journal, the line at its date says absent, excluded, pending or missing', () => {
    const lines = [
      line('none', '2026-05-01', 'none'),
      line('excl', '2026-05-01', 'excluded'),
      line('reg', '2026-05-01', 'registered'),
    ];
    // A journal of another line on that date is not this line's.
    const { client, calls } = fakeClient([journal('j9', '2026-05-01', [], 'other')], lines);
    const lookup = mfLookup(client);
    assert.deepEqual(lookup.line('none', '2026-05-01'), { kind: 'absent' });
    assert.deepEqual(lookup.line('excl', '2026-05-01'), { kind: 'excluded' });
    assert.deepEqual(lookup.line('reg', '2026-05-01'), { kind: 'pending' });
    assert.deepEqual(lookup.line('gone', '2026-05-01'), { kind: 'missing' });
    assert.deepEqual(calls.slice(0, 2), [
      'journalsBetween 2026-05-01..2026-05-01 ids=none',
      'listTransactions 2026-05-01..2026-05-01',
    ]);
    assert.equal(calls.length, 8);
  });

  test('a read that fails is thrown to the caller (the sender says the look-up failed)', () => {
    const { client } = fakeClient([], [], 'listTransactions');
    assert.throws(() => mfLookup(client).line('x', '2026-05-01'), /did not answer/);
  });
});

describe('journals by tag', () => {
  const tag = remoteTagOf('evt:a');
  const journals = [
    journal('early', '2026-04-02', [tag]),
    journal('late', '2026-06-30', [tag, 'people-tag']),
    journal('elsewhere', '2025-12-01', [remoteTagOf('evt:b')]),
  ];

  test('in the windows as given: one listing each, in order; only kicho tags; a later journal wins', () => {
    const { client, calls } = fakeClient(journals, []);
    const byTag = mfLookup(client).journalsByTag(
      [
        { start: '2026-04-01', end: '2026-04-03' },
        { start: '2026-06-01', end: '2026-06-30' },
      ],
      false,
    );
    assert.deepEqual([...byTag], [[tag, 'late']]);
    assert.deepEqual(calls, [
      'journalsBetween 2026-04-01..2026-04-03',
      'journalsBetween 2026-06-01..2026-06-30',
    ]);
  });

  test('wide: every window stretched to its accounting periods first, one listing per distinct span', () => {
    const { client, calls } = fakeClient(journals, []);
    const byTag = mfLookup(client).journalsByTag(
      [
        { start: '2026-04-05', end: '2026-04-05' },
        { start: '2026-08-01', end: '2026-08-01' },
        { start: '2024-01-01', end: '2025-05-01' },
      ],
      true,
    );
    assert.equal(byTag.get(tag), 'late');
    assert.equal(byTag.get(remoteTagOf('evt:b')), 'elsewhere');
    assert.deepEqual(calls, [
      'periodOf 2026-04-05',
      'periodOf 2026-04-05',
      'periodOf 2026-08-01',
      'periodOf 2026-08-01',
      'periodOf 2024-01-01',
      'periodOf 2025-05-01',
      'journalsBetween 2026-04-01..2027-03-31',
      // A date outside every period stays as it is.
      'journalsBetween 2024-01-01..2026-03-31',
    ]);
  });
});

test('statement lines: one listing per window, in order', () => {
  const { client, calls } = fakeClient(
    [],
    [line('a', '2026-05-01', 'none'), line('b', '2026-07-01', 'none')],
  );
  const got = mfLookup(client).statementLines([
    { start: '2026-07-01', end: '2026-07-01' },
    { start: '2026-05-01', end: '2026-05-02' },
  ]);
  assert.deepEqual(
    got.map((t) => t.id),
    ['b', 'a'],
  );
  assert.deepEqual(calls, [
    'listTransactions 2026-07-01..2026-07-01',
    'listTransactions 2026-05-01..2026-05-02',
  ]);
});

test('the daily check: one journal by id, one call each; null when MF has none', () => {
  const { client, calls } = fakeClient([journal('j1', '2026-05-01')], []);
  const lookup = mfLookup(client);
  assert.equal(lookup.journal('j1')?.id, 'j1');
  assert.equal(lookup.journal('gone'), null);
  assert.deepEqual(calls, ['journal j1', 'journal gone']);
});

describe('reconcile: lookUp(candidates)', () => {
  const candidate = (key: string, date: string, lineId = ''): ReconcileCandidate => ({
    key,
    rowNumber: 2,
    record: { ...emptyRecord(), キー: key, 取引日: date, 明細ID: lineId },
  });

  test('an MF row by its line, a CSV row by its tag, a row outside every period apart', () => {
    const csv = csvKey('カード', '2026-05-03', -1200, 'SHOP', 1);
    const mfRow = candidate(mfKey('L1'), '2026-05-01', 'L1');
    const lost = candidate(mfKey('L2'), '2026-05-01', 'L2');
    const csvRow = candidate(csv, '2026-05-03');
    const outside = candidate(mfKey('L3'), '2020-01-01', 'L3');
    const { client, calls } = fakeClient(
      [journal('j1', '2026-05-01', [], 'L1'), journal('jc', '2026-05-03', [remoteTagOf(csv)])],
      [line('L2', '2026-05-01', 'none')],
    );
    const got = mfLookup(client, { start: '2026-04-01', end: '2026-06-30' }).lookUp([
      mfRow,
      lost,
      csvRow,
      outside,
    ]);
    assert.deepEqual(got.get(mfRow), { kind: 'found', journalId: 'j1' });
    assert.deepEqual(got.get(lost), { kind: 'absent' });
    assert.deepEqual(got.get(csvRow), { kind: 'found', journalId: 'jc' });
    assert.deepEqual(got.get(outside), { kind: 'outside-period' });
    assert.deepEqual(calls, [
      'periods',
      'listJournals 2026-05-01..2026-05-01 ids=L1,L2',
      'listTransactions 2026-05-01..2026-05-01',
      'journalsBetween 2026-05-03..2026-05-03',
    ]);
  });
});

test('nearby windows: dates within 31 days share one; what is no date is left out', () => {
  assert.deepEqual(
    nearbyWindows(['2026-05-20', '2026-05-01', 'x', '2026-05-01', '2026-06-20', '2026-08-01']),
    [
      { start: '2026-05-01', end: '2026-06-20' },
      { start: '2026-08-01', end: '2026-08-01' },
    ],
  );
  assert.deepEqual(nearbyWindows([]), []);
});
