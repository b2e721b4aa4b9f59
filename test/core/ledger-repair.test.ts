import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { columnWrites, type LedgerTable, parseLedger, type RowChange } from '../../src/core/ledger';
import { OVERWRITTEN_MEMO, repairChanges, rowsMoved, WriteRepair } from '../../src/core/ledger-repair';
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

  test('a row a person re-keyed in place under the write stays that row: nothing of it is made safe, its キー stays as the person typed it (simulation seed 981564)', () => {
    const line = (k: string, id: string, s: string, d: string) => ({
      キー: k,
      状態: s,
      明細ID: id,
      取引日: d,
      入出金: '出金',
      金額: 980,
      摘要: 'ｽﾀｰﾊﾞｯｸｽ',
      口座: '三井住友銀行',
    });
    const before = parseLedger(
      grid([line('mf:id1', 'id1', '送信待ち', '2026-05-07'), line('mf:id2', 'id2', '完了', '2026-05-08')]),
    );
    const changes = [{ key: 'mf:id1', rowNumber: 2, patch: { 状態: '送信中' as const, 明細ID: 'id1' } }];
    // The claim landed, and the person's slip on the キー landed with it.
    const now = parseLedger(
      grid([line('mf:id1X', 'id1', '送信中', '2026-05-07'), line('mf:id2', 'id2', '完了', '2026-05-08')]),
    );
    assert.deepEqual(repairChanges(before, changes, now, 'now'), []);
    // A row the blocks meant for another line (its line cells differ) is still made safe.
    const stranger = parseLedger(
      grid([line('mf:id9', 'id1', '送信中', '2026-05-01'), line('mf:id2', 'id2', '完了', '2026-05-08')]),
    );
    const fixed = repairChanges(before, changes, stranger, 'now');
    assert.equal(fixed.length, 1);
    assert.equal(fixed[0].patch.状態, '');
    assert.equal(fixed[0].patch.明細ID, 'id9');
    assert.equal(fixed[0].patch.メモ, OVERWRITTEN_MEMO);
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

  test('a narrow read: rows it never read (outside its span, or added since) that a sort put under it hold no cell of another line after the repair', () => {
    // Simulation seed 91833: the settle read rows 2–6; two event rows appended since were sorted into them.
    const SCANNED = ['キー', '状態', '操作', 'MF仕訳ID'] as const;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...STATES), { minLength: 3, maxLength: 10 }),
        fc.nat(),
        fc.nat(),
        fc.nat({ max: 3 }),
        fc.array(fc.nat()),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...STATES)), { minLength: 1, maxLength: 6 }),
        (states, a, b, added, order, picks) => {
          const line = (i: number, s: string, kind: 'mf' | 'evt') => ({
            キー: kind === 'mf' ? `mf:id${i}` : `evt:shop:o${i}`,
            状態: s,
            明細ID: kind === 'mf' ? `id${i}` : '',
            MF仕訳ID: s === '完了' ? `j${i}` : '',
            試行回数: s === '完了' ? 1 : 0,
            更新日時: `2026-05-0${1 + (i % 9)}T00:00:00.000Z`,
            メモ: `memo ${i}`,
            指紋: s === '完了' ? `f${i}` : '',
          });
          const rows: Record<string, unknown>[] = states.map((s, i) => line(i, s, 'mf'));
          const first = 2 + (a % rows.length);
          const last = first + (b % (rows.length + 2 - first));
          // The read: whole rows first..last, only the scanned columns elsewhere (ledger-scan.ts).
          const read = parseLedger(grid(rows));
          const before = {
            ...read,
            rows: read.rows.map((r) =>
              r.rowNumber >= first && r.rowNumber <= last
                ? r
                : {
                    ...r,
                    record: {
                      ...parseLedger(grid([Object.fromEntries(SCANNED.map((h) => [h, r.record[h]]))])).rows[0]
                        .record,
                    },
                  },
            ),
            partial: { first, last },
          };
          // Rows another execution appended after the read.
          for (let n = 0; n < added; n++) rows.push(line(rows.length, '未判定', 'evt'));
          const spanRows = before.rows.filter((r) => r.rowNumber >= first && r.rowNumber <= last);
          const changes: RowChange[] = picks.map(([n, s]) => {
            const r = spanRows[n % spanRows.length];
            return {
              key: String(r.record.キー),
              rowNumber: r.rowNumber,
              patch: { 状態: s, MF仕訳ID: `new${n}`, 指紋: `p${n}`, 更新日時: '2026-06-01T00:00:00.000Z' },
            };
          });
          // The person sorts before the write lands.
          const perm = rows.map((_, i) => i).sort((x, y) => (order[x] ?? x) - (order[y] ?? y) || x - y);
          const g = grid(perm.map((i) => rows[i]));
          const writes = columnWrites(before, changes);
          const repair = new WriteRepair(before, changes);
          repair.wrote(before, writes);
          for (const w of writes)
            w.values.forEach((row, i) => {
              row.forEach((v, j) => {
                g[w.firstRow - 1 + i][w.column - 1 + j] = v;
              });
            });
          const now = parseLedger(g);
          applyWrites(g, now, repair.repairs(now, '2026-06-02T00:00:00.000Z'));
          const after = byKey(parseLedger(g));
          const meant = new Map<string, Record<string, unknown>>();
          for (const c of changes) meant.set(c.key, { ...meant.get(c.key), ...c.patch });
          rows.forEach((own, i) => {
            const key = String(own.キー);
            const got = after.get(key);
            assert.ok(got, key);
            const inSpan = i + 2 >= first && i + 2 <= last && i < states.length;
            if (inSpan) {
              const want = { ...own, ...meant.get(key) };
              for (const h of ['状態', 'MF仕訳ID', '明細ID', '指紋', 'メモ'] as const)
                assert.equal(String(got[h]), String(want[h]), `${key} ${h}`);
              return;
            }
            // Never another line's identity or journal; a 状態 not its own only when cleared for reconcile.
            assert.ok(got.明細ID === own.明細ID, `${key} 明細ID ${got.明細ID}`);
            assert.ok(
              got.MF仕訳ID === own.MF仕訳ID || got.MF仕訳ID === '',
              `${key} MF仕訳ID ${got.MF仕訳ID}`,
            );
            assert.ok(got.指紋 === own.指紋 || got.指紋 === '', `${key} 指紋 ${got.指紋}`);
            if (got.状態 !== own.状態) {
              assert.equal(got.状態, '', `${key} 状態 ${got.状態}`);
              assert.equal(got.メモ, OVERWRITTEN_MEMO);
            }
            // A row no block landed on keeps every cell.
            if (got.メモ !== OVERWRITTEN_MEMO)
              for (const h of LEDGER_HEADERS)
                assert.equal(String(got[h]), String(own[h] ?? (h === '試行回数' ? 0 : '')), `${key} ${h}`);
          });
        },
      ),
    );
  });
});
