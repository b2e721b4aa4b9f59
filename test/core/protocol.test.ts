/** The posting protocol over in-memory ports: phases, outcomes, budget and guards. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { STOP_CLAIMING_AT_MS } from '../../src/core/budget';
import { applyChanges, type LedgerTable, parseLedger, type RowChange } from '../../src/core/ledger';
import type { Masters } from '../../src/core/masters';
import type { Claimed, SendResult } from '../../src/core/posting';
import { type PostingInput, postApproved } from '../../src/core/protocol';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { canMove, isLedgerState, TRANSITIONS } from '../../src/core/states';

const MASTERS: Masters = {
  accounts: [{ id: 'acc1', name: '消耗品費', available: true, subAccounts: [] }],
  taxes: [],
  partners: [],
  connectedAccounts: [],
  fetchedAt: '2026-11-30T00:00:00Z',
};

/** An `mf:` row's 明細ID is its key's id unless a test says otherwise (DESIGN §2: the key fits the row). */
function mfId(r: Record<string, unknown>, h: string): unknown {
  const key = String(r.キー ?? '');
  return h === '明細ID' && key.startsWith('mf:') ? key.slice(3) : '';
}

function table(rows: Record<string, unknown>[]): LedgerTable {
  return parseLedger([
    LEDGER_HEADERS.slice(),
    ...rows.map((r) => LEDGER_HEADERS.map((h) => r[h] ?? mfId(r, h))),
  ]);
}

function world(
  rows: Record<string, unknown>[],
  send: (c: Claimed) => SendResult,
  opts: Partial<PostingInput> = {},
) {
  let current = table(rows);
  let t = 0;
  let locked = false;
  const sent: string[] = [];
  const writes: RowChange[][] = [];
  const input: PostingInput = {
    ledger: {
      read: () => current,
      write: (_tbl, changes) => {
        assert.ok(locked, 'writes happen under the lock');
        writes.push([...changes]);
        for (const c of changes) {
          const before = current.rows.find((r) => r.rowNumber === c.rowNumber);
          if (
            before &&
            isLedgerState(before.record.状態) &&
            typeof c.patch.状態 === 'string' &&
            isLedgerState(c.patch.状態)
          ) {
            // One write may merge two steps (承認 then the claim), so allow a path of two moves.
            const from = before.record.状態;
            const to = c.patch.状態;
            assert.ok(
              canMove(from, to) || TRANSITIONS[from].some((mid) => canMove(mid, to)),
              `${from} → ${to}`,
            );
          }
        }
        current = applyChanges(current, changes);
      },
    },
    lock: {
      acquire: () => {
        assert.ok(!locked);
        locked = true;
        return true;
      },
      flushAndRelease: () => {
        locked = false;
      },
    },
    sender: {
      send: (c) => {
        assert.ok(!locked, 'the lock is never held across a send');
        sent.push(c.key);
        t += 400;
        return send(c);
      },
    },
    clock: { now: () => t, sleep: (ms) => (t += ms), iso: () => new Date(t).toISOString() },
    masters: MASTERS,
    who: 'alice@example.com',
    startedAt: 0,
    batchLimit: 200,
    ...opts,
  };
  return {
    input,
    sent,
    writes,
    state: () => new Map(current.rows.map((r) => [String(r.record.キー), r.record])),
    reorder: () => {
      current = { ...current, rows: [...current.rows].reverse().map((r, i) => ({ ...r, rowNumber: i + 2 })) };
    },
  };
}

const approved = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    キー: `mf:${i}`,
    状態: '送信待ち',
    勘定科目: '消耗品費',
    試行回数: 0,
  }));
const created = (c: Claimed): SendResult => ({ kind: 'created', journalId: `j-${c.key}`, fingerprint: 'f' });

describe('postApproved protocol', () => {
  test('claims, sends and settles every approved row once', () => {
    const w = world(approved(5), created);
    const s = postApproved(w.input);
    assert.equal(s.posted, 5);
    assert.deepEqual(w.sent, ['mf:0', 'mf:1', 'mf:2', 'mf:3', 'mf:4']);
    for (const r of w.state().values()) {
      assert.equal(r.状態, '完了');
      assert.equal(r.試行回数, 1);
      assert.equal(r.MF仕訳ID, `j-${r.キー}`);
    }
    const again = postApproved(w.input);
    assert.equal(again.claimed, 0);
  });

  test('each outcome lands in the right state (DESIGN §5 step 4)', () => {
    const outcomes: Record<string, SendResult> = {
      'mf:0': { kind: 'created', journalId: 'j', fingerprint: 'f' },
      'mf:1': { kind: 'unknown', reason: 'Timeout' },
      'mf:2': {
        kind: 'rejected',
        status: 400,
        code: 'invalid_request_body_value',
        message: 'The specified account is inactive.',
        explanation: '勘定科目が MF で使えない設定になっています。 [invalid_request_body_value]',
      },
      'mf:3': { kind: 'rate-limited', retryAfterMs: 2000 },
      'mf:4': { kind: 'invalid', problems: ['勘定科目が空です。'] },
      'mf:5': { kind: 'found', journalId: 'j5', fingerprint: 'f' },
    };
    const w = world(approved(6), (c) => outcomes[c.key]);
    postApproved(w.input);
    const s = w.state();
    assert.deepEqual(
      [...s.values()].map((r) => [r.状態, r.試行回数]),
      [
        ['完了', 1],
        ['不明', 1],
        ['失敗', 1],
        ['送信待ち', 0],
        ['要確認', 0],
        ['完了', 1],
      ],
    );
    // メモ is MF's refusal in Japanese with its code in brackets, never MF's English text.
    assert.match(
      String(s.get('mf:2')?.メモ),
      /勘定科目が MF で使えない設定になっています。 \[invalid_request_body_value\]/,
    );
    assert.doesNotMatch(String(s.get('mf:2')?.メモ), /The specified account/);
  });

  test('an auth failure stops the run: the rest return to 送信待ち unsent', () => {
    const w = world(approved(4), (c) =>
      c.key === 'mf:1' ? { kind: 'unauthorized', message: 'no' } : created(c),
    );
    const s = postApproved(w.input);
    assert.equal(s.stoppedBy, 'unauthorized');
    assert.deepEqual(w.sent, ['mf:0', 'mf:1']);
    assert.deepEqual(
      [...w.state().values()].map((r) => r.状態),
      ['完了', '送信待ち', '送信待ち', '送信待ち'],
    );
  });

  test('claiming stops at 4.5 minutes; no send starts after 5; nothing is left 送信中', () => {
    // The run started 4.5 minutes minus 10 seconds ago.
    const w = world(approved(200), created, { startedAt: -(STOP_CLAIMING_AT_MS - 10_000) });
    const s = postApproved(w.input);
    assert.ok(s.claimed < 200 && s.claimed > 0, `claimed ${s.claimed}`);
    assert.ok([...w.state().values()].every((r) => r.状態 !== '送信中'));
  });

  test('rows re-sorted between claim and settle keep their own results', () => {
    let w: ReturnType<typeof world>;
    let reordered = false;
    w = world(approved(6), (c) => {
      if (!reordered) {
        reordered = true;
        w.reorder();
      }
      return created(c);
    });
    postApproved(w.input);
    for (const [key, r] of w.state()) assert.equal(r.MF仕訳ID, `j-${key}`);
  });

  test('pending 操作 are applied and cleared first; 除外 rows are never sent', () => {
    const rows: Record<string, unknown>[] = approved(3);
    rows[1] = { ...rows[1], 状態: '要確認', 操作: '除外' };
    rows[2] = { ...rows[2], 状態: '要確認', 操作: '承認' };
    const w = world(rows, created);
    postApproved(w.input);
    const s = w.state();
    assert.equal(s.get('mf:1')?.状態, '除外');
    assert.equal(s.get('mf:2')?.状態, '完了');
    assert.deepEqual(w.sent, ['mf:0', 'mf:2']);
    assert.ok([...s.values()].every((r) => r.操作 === ''));
  });

  test('property: whatever the outcomes, no row is sent twice and none is left 送信中', () => {
    const kinds: SendResult[] = [
      { kind: 'created', journalId: 'j', fingerprint: 'f' },
      { kind: 'unknown', reason: 'x' },
      { kind: 'rejected', status: 400, code: 'c', message: 'm' },
      { kind: 'rate-limited', retryAfterMs: 10 },
    ];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 5 }),
        (picks, runs) => {
          let i = 0;
          const history = new Map<string, SendResult['kind'][]>();
          const w = world(approved(picks.length), (c) => {
            const result = kinds[picks[i++ % picks.length]];
            history.set(c.key, [...(history.get(c.key) ?? []), result.kind]);
            return result;
          });
          for (let r = 0; r < runs; r++) postApproved(w.input);
          // A row is sent again only after MF said 429 (nothing was created); never after created or unknown.
          for (const [key, kindsSent] of history) {
            assert.ok(
              kindsSent.slice(0, -1).every((k) => k === 'rate-limited'),
              `${key}: ${kindsSent}`,
            );
          }
          assert.ok([...w.state().values()].every((r) => r.状態 !== '送信中'));
        },
      ),
      { numRuns: 100 },
    );
  });
});
