/** Reconcile as a phase over in-memory ports (DESIGN §5): lookup outside the lock, settle under it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type LedgerTable, parseLedger, type RowChange } from '../../src/core/ledger';
import type { LookupPort } from '../../src/core/ports';
import {
  awaitingLookup,
  type LookupResult,
  lookupResultOf,
  RECONCILE_MSG,
  type ReconcileInput,
  reconcileLedger,
} from '../../src/core/reconcile';
import { LEDGER_HEADERS } from '../../src/core/schema';

const T0 = Date.parse('2026-11-30T00:00:00Z');
const HOUR = 3_600_000;

function table(rows: Record<string, unknown>[]): LedgerTable {
  return parseLedger([
    LEDGER_HEADERS.slice(),
    ...rows.map((r) =>
      LEDGER_HEADERS.map(
        (h) => r[h] ?? (h === '明細ID' && String(r.キー).startsWith('mf:') ? String(r.キー).slice(3) : ''),
      ),
    ),
  ]);
}

/** A 不明 row last touched two hours before T0. */
function unknownRow(id: string, extra: Record<string, unknown> = {}) {
  return {
    キー: `mf:${id}`,
    状態: '不明',
    取引日: '2026-11-01',
    金額: 1000,
    更新日時: new Date(T0 - 2 * HOUR).toISOString(),
    試行回数: 1,
    ...extra,
  };
}

function world(
  rows: Record<string, unknown>[],
  answer: (id: string) => LookupResult,
  opts: { lockFree?: boolean; duringLookup?: (t: LedgerTable) => LedgerTable } = {},
) {
  let current = table(rows);
  let locked = false;
  const looked: string[][] = [];
  const writes: RowChange[][] = [];
  const told: RowChange[][] = [];
  const lookup: LookupPort = {
    lookUp: (candidates) => {
      assert.ok(!locked, 'MF is never asked under the lock');
      looked.push(candidates.map((c) => c.key));
      if (opts.duringLookup) current = opts.duringLookup(current);
      return new Map(candidates.map((c) => [c, answer(String(c.record.明細ID))]));
    },
  };
  const input: ReconcileInput = {
    ledger: {
      read: () => current,
      write: (_t, changes) => {
        assert.ok(locked, 'writes happen under the lock');
        writes.push([...changes]);
        const byRow = new Map(changes.map((c) => [c.rowNumber, c.patch]));
        current = {
          ...current,
          rows: current.rows.map((r) =>
            byRow.has(r.rowNumber) ? { ...r, record: { ...r.record, ...byRow.get(r.rowNumber) } } : r,
          ),
        };
        return undefined;
      },
    },
    lock: {
      acquire: () => {
        if (opts.lockFree === false) return false;
        assert.ok(!locked);
        locked = true;
        return true;
      },
      flushAndRelease: () => {
        locked = false;
      },
    },
    lookup,
    clock: { now: () => T0, sleep: () => {}, iso: () => new Date(T0).toISOString() },
    graceMs: 30 * 60_000,
    maxAttempts: 3,
    written: (_t, changes) => {
      assert.ok(locked, 'the after-write notes run under the lock');
      told.push([...changes]);
    },
  };
  const state = (key: string) => current.rows.find((r) => r.record.キー === key)?.record;
  return { input, looked, writes, told, state };
}

describe('reconcileLedger', () => {
  test('nothing to look up: MF is not asked and nothing is written', () => {
    const w = world([{ キー: 'mf:a', 状態: '送信待ち', 取引日: '2026-11-01' }], () => ({ kind: 'absent' }));
    assert.deepEqual(reconcileLedger(w.input), { kind: 'nothing' });
    assert.deepEqual(w.looked, []);
    assert.deepEqual(w.writes, []);
  });

  test('one lookup for every candidate, then one write: found → 完了, absent → 送信待ち, lag → waits', () => {
    const results: Record<string, LookupResult> = {
      a: { kind: 'found', journalId: 'J1' },
      b: { kind: 'absent' },
      c: { kind: 'pending' },
    };
    const w = world([unknownRow('a'), unknownRow('b'), unknownRow('c')], (id) => results[id]);
    const out = reconcileLedger(w.input);
    assert.equal(out.kind, 'settled');
    if (out.kind !== 'settled') return;
    assert.deepEqual(w.looked, [['mf:a', 'mf:b', 'mf:c']]);
    assert.equal(w.writes.length, 1);
    assert.equal(w.told.length, 1);
    assert.deepEqual([out.found, out.resend, out.review, out.waiting], [1, 1, 0, 1]);
    assert.equal(w.state('mf:a')?.状態, '完了');
    assert.equal(w.state('mf:a')?.MF仕訳ID, 'J1');
    assert.equal(w.state('mf:b')?.状態, '送信待ち');
    assert.equal(w.state('mf:c')?.状態, '不明');
    assert.equal(
      RECONCILE_MSG.summary(out),
      '照合: 3 件を確認し、完了 1 件、再送待ち 1 件、要確認 0 件、1 件は次の照合で確かめます。',
    );
  });

  test('a row changed by another run during the lookup is left alone (re-located under the lock)', () => {
    const w = world([unknownRow('a'), unknownRow('b')], () => ({ kind: 'absent' }), {
      duringLookup: (t) => ({
        ...t,
        rows: t.rows.map((r) =>
          r.record.キー === 'mf:a' ? { ...r, record: { ...r.record, 状態: '完了', 更新日時: 'later' } } : r,
        ),
      }),
    });
    const out = reconcileLedger(w.input);
    assert.equal(out.kind === 'settled' && out.waiting, 1);
    assert.equal(w.state('mf:a')?.状態, '完了', 'the other run’s 完了 stays');
    assert.equal(w.state('mf:b')?.状態, '送信待ち');
  });

  test('rows re-located by key when a person sorted the 台帳 during the lookup', () => {
    const w = world([unknownRow('a'), unknownRow('b')], (id) =>
      id === 'a' ? { kind: 'found', journalId: 'J1' } : { kind: 'absent' },
    );
    w.input.lookup = {
      lookUp: (cs) => {
        const map = new Map(cs.map((c) => [c, lookupResultOf(c.key === 'mf:a' ? 'J1' : undefined, 'none')]));
        const t = w.input.ledger.read();
        const sorted = { ...t, rows: [...t.rows].reverse().map((r, i) => ({ ...r, rowNumber: i + 2 })) };
        w.input.ledger.read = () => sorted;
        return map;
      },
    };
    reconcileLedger(w.input);
    const [changes] = w.writes;
    assert.deepEqual(
      changes.map((c) => [c.key, c.rowNumber, c.patch.状態]),
      [
        ['mf:a', 3, '完了'],
        ['mf:b', 2, '送信待ち'],
      ],
    );
  });

  test('another run holds the lock: busy, nothing written', () => {
    const w = world([unknownRow('a')], () => ({ kind: 'found', journalId: 'J1' }), { lockFree: false });
    assert.deepEqual(reconcileLedger(w.input), { kind: 'busy', candidates: 1 });
    assert.deepEqual(w.writes, []);
    assert.equal(w.state('mf:a')?.状態, '不明');
  });

  test('a key given back is not written when another row already holds it', () => {
    // Row 2's キー was changed by a person; its 明細ID still names line a, whose key row 3 holds.
    const w = world(
      [
        { ...unknownRow('a'), キー: 'mf:typed', 明細ID: 'a', 状態: '完了', MF仕訳ID: '' },
        { キー: 'mf:a', 状態: '送信待ち', 取引日: '2026-11-01' },
      ],
      () => ({ kind: 'found', journalId: 'J1' }),
    );
    const out = reconcileLedger(w.input);
    assert.equal(out.kind === 'settled' && out.changes.length, 0);
    assert.equal(w.state('mf:typed')?.状態, '完了');
    assert.equal(w.state('mf:a')?.状態, '送信待ち');
  });

  test('a key given back when no row holds it', () => {
    const w = world([{ ...unknownRow('a'), キー: 'mf:typed', 明細ID: 'a' }], () => ({
      kind: 'found',
      journalId: 'J1',
    }));
    reconcileLedger(w.input);
    assert.equal(w.state('mf:a')?.状態, '完了');
    assert.equal(w.state('mf:a')?.MF仕訳ID, 'J1');
  });

  test('the grace period: a send younger than 照合猶予 is not sent again', () => {
    const young = unknownRow('a', { 更新日時: new Date(T0 - 60_000).toISOString() });
    const w = world([young], () => ({ kind: 'absent' }));
    const out = reconcileLedger(w.input);
    assert.equal(out.kind === 'settled' && out.waiting, 1);
    assert.equal(w.state('mf:a')?.状態, '不明');
  });
});

test('lookupResultOf: a journal wins; else the line’s status decides', () => {
  assert.deepEqual(lookupResultOf('J', 'none'), { kind: 'found', journalId: 'J' });
  assert.deepEqual(lookupResultOf(undefined, 'none'), { kind: 'absent' });
  assert.deepEqual(lookupResultOf(undefined, 'excluded'), { kind: 'excluded' });
  assert.deepEqual(lookupResultOf(undefined, 'journalized'), { kind: 'pending' });
  assert.deepEqual(lookupResultOf(undefined, undefined), { kind: 'missing' });
});

describe('awaitingLookup: what a posting run leaves to 照合 (issue 25)', () => {
  test('送信中 within the lease, past it, and 不明 are counted apart; the earliest lease end is when 照合 takes them', () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const t = table([
      unknownRow('u1'),
      { キー: 'mf:s1', 状態: '送信中', 更新日時: at(T0 - 2 * 60_000) },
      { キー: 'mf:s2', 状態: '送信中', 更新日時: at(T0 - 5 * 60_000) },
      { キー: 'mf:s3', 状態: '送信中', 更新日時: at(T0 - 11 * 60_000) },
      { キー: 'mf:w1', 状態: '送信待ち', 更新日時: at(T0) },
    ]);
    assert.deepEqual(awaitingLookup(t.rows, T0), {
      sending: 2,
      stale: 1,
      unknown: 1,
      lookupFromMs: T0 - 5 * 60_000 + 10 * 60_000,
    });
    assert.deepEqual(awaitingLookup([], T0), { sending: 0, stale: 0, unknown: 0, lookupFromMs: null });
  });
});
