import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { columnWrites, type LedgerTable, parseLedger, type RowChange } from '../../src/core/ledger';
import { repairChanges, rowsMoved } from '../../src/core/ledger-repair';
import { LEDGER_HEADERS } from '../../src/core/schema';

const STATES = ['未判定', '送信待ち', '送信中', '完了', '要確認'] as const;

function grid(rows: Record<string, unknown>[]): unknown[][] {
  return [LEDGER_HEADERS.slice(), ...rows.map((r) => LEDGER_HEADERS.map((h) => r[h] ?? ''))];
}

/** Applies column writes to a grid positionally, as setValues would. */
function applyWrites(g: unknown[][], table: LedgerTable, changes: readonly RowChange[]): void {
  for (const w of columnWrites(table, changes)) {
    w.values.forEach((row, i) => {
      row.forEach((v, j) => {
        g[w.firstRow - 1 + i][w.column - 1 + j] = v;
      });
    });
  }
}

function byKey(t: LedgerTable): Map<string, Record<string, unknown>> {
  return new Map(t.rows.map((r) => [String(r.record.キー), r.record]));
}

describe('repairing a write that rows moved under', () => {
  test('rowsMoved compares each read row with the キー column as it is now', () => {
    const t = parseLedger(grid([{ キー: 'a' }, { キー: 'b' }]));
    assert.equal(rowsMoved(t, ['a', 'b', 'c']), false, 'rows added below do not count');
    assert.equal(rowsMoved(t, ['b', 'a']), true);
    assert.equal(rowsMoved(t, ['a']), true, 'a deleted row counts');
  });

  test('whether the sort came before or after the write landed, every key ends with what was meant', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...STATES), { minLength: 2, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...STATES), fc.string({ maxLength: 3 })), {
          maxLength: 8,
        }),
        fc.array(fc.nat()),
        fc.boolean(),
        (states, picks, order, sortFirst) => {
          const rows = states.map((s, i) => ({ キー: `k${i}`, 状態: s, 勘定科目: `科目${i}`, メモ: '' }));
          const before = parseLedger(grid(rows));
          const changes: RowChange[] = picks.map(([n, s, memo]) => {
            const r = before.rows[n % before.rows.length];
            return { key: String(r.record.キー), rowNumber: r.rowNumber, patch: { 状態: s, メモ: memo } };
          });
          // A person's sort: a permutation of the data rows.
          const perm = rows.map((_, i) => i).sort((a, b) => (order[a] ?? a) - (order[b] ?? b) || a - b);
          const g = grid(rows);
          const permute = () => {
            const data = g.slice(1);
            perm.forEach((from, to) => {
              g[to + 1] = data[from];
            });
          };
          if (sortFirst) permute();
          applyWrites(g, before, changes);
          if (!sortFirst) permute();
          const now = parseLedger(g);
          applyWrites(g, now, repairChanges(before, changes, now));
          const after = byKey(parseLedger(g));
          const patch = new Map<string, Record<string, unknown>>();
          for (const c of changes) patch.set(c.key, { ...patch.get(c.key), ...c.patch });
          for (const r of rows) {
            const want = { ...r, ...patch.get(r.キー) };
            const got = after.get(r.キー);
            assert.ok(got);
            for (const h of ['状態', 'メモ', '勘定科目'] as const)
              assert.equal(String(got[h]), String(want[h]), `${r.キー} ${h}`);
          }
        },
      ),
    );
  });

  test('rows already right are not rewritten', () => {
    const before = parseLedger(
      grid([
        { キー: 'a', 状態: '送信待ち' },
        { キー: 'b', 状態: '完了' },
      ]),
    );
    const changes = [{ key: 'a', rowNumber: 2, patch: { 状態: '送信中' as const } }];
    const now = parseLedger(
      grid([
        { キー: 'b', 状態: '完了' },
        { キー: 'a', 状態: '送信中' },
      ]),
    );
    assert.deepEqual(repairChanges(before, changes, now), []);
  });
});
