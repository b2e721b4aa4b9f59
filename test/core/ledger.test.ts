import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { columnWrites, indexByKey, keyCellText, parseLedger } from '../../src/core/ledger';
import { LEDGER_HEADERS } from '../../src/core/schema';

function sheet(rows: Record<string, unknown>[], headers: readonly string[] = LEDGER_HEADERS): unknown[][] {
  return [headers.slice(), ...rows.map((r) => headers.map((h) => r[h] ?? ''))];
}

describe('ledger table', () => {
  test('columns are found by header text in any order; blank rows are skipped', () => {
    const headers = [...LEDGER_HEADERS].reverse();
    const t = parseLedger(
      sheet([{ キー: 'mf:a', 状態: '未判定', 金額: '1,200' }, {}, { キー: 'mf:b', 状態: '完了' }], headers),
    );
    assert.deepEqual(
      t.rows.map((r) => [r.rowNumber, r.record.キー, r.record.状態]),
      [
        [2, 'mf:a', '未判定'],
        [4, 'mf:b', '完了'],
      ],
    );
    assert.equal(t.rows[0].record.金額, 1200);
    assert.equal(t.rows[0].record.試行回数, 0);
  });

  test('a date a person typed is read back as yyyy-MM-dd text', () => {
    const t = parseLedger(sheet([{ キー: 'mf:a', 取引日: new Date(2026, 9, 1) }]));
    assert.equal(t.rows[0].record.取引日, '2026-10-01');
  });

  test('indexByKey keeps every row of a duplicated key', () => {
    const t = parseLedger(sheet([{ キー: 'k' }, { キー: 'j' }, { キー: 'k' }]));
    assert.deepEqual(
      indexByKey(t.rows)
        .get('k')
        ?.map((r) => r.rowNumber),
      [2, 4],
    );
  });

  test('columnWrites: one write per changed column over the changed span, others written back unchanged', () => {
    const t = parseLedger(
      sheet([
        { キー: 'a', 状態: '送信待ち', メモ: 'x' },
        { キー: 'b', 状態: '完了', メモ: 'keep' },
        { キー: 'c', 状態: '送信待ち' },
      ]),
    );
    const writes = columnWrites(t, [
      { key: 'a', rowNumber: 2, patch: { 状態: '送信中', 試行回数: 1 } },
      { key: 'c', rowNumber: 4, patch: { 状態: '送信中', 試行回数: 1 } },
    ]);
    const state = LEDGER_HEADERS.indexOf('状態') + 1;
    const attempts = LEDGER_HEADERS.indexOf('試行回数') + 1;
    assert.deepEqual(writes, [
      { column: state, firstRow: 2, values: [['送信中'], ['完了'], ['送信中']] },
      { column: attempts, firstRow: 2, values: [[1], [0], [1]] },
    ]);
  });

  test('columnWrites calls do not grow with the number of changed rows', () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({ キー: `k${i}`, 状態: '送信待ち' }));
    const t = parseLedger(sheet(rows));
    const changes = t.rows.map((r) => ({
      key: String(r.record.キー),
      rowNumber: r.rowNumber,
      patch: { 状態: '送信中' as const, 更新日時: 'now' },
    }));
    assert.equal(columnWrites(t, changes).length, 2);
  });
});

test('columnWrites bridges gaps through system columns only, never through a column people edit', () => {
  const t = parseLedger(
    sheet([
      { キー: 'a', 状態: '送信中', 初回検知: 'T0', 勘定科目: '消耗品費' },
      { キー: 'b', 状態: '完了', 初回検知: 'T1' },
    ]),
  );
  const writes = columnWrites(t, [
    { key: 'a', rowNumber: 2, patch: { 状態: '完了', MF仕訳ID: 'J', 更新日時: 'N', メモ: '' } },
  ]);
  const col = (h: string) => LEDGER_HEADERS.indexOf(h as never) + 1;
  // 状態 stands alone (people's columns lie between it and the rest); MF仕訳ID..メモ is one block.
  assert.deepEqual(
    writes.map((w) => [w.column, w.values[0].length]),
    [
      [col('状態'), 1],
      [col('MF仕訳ID'), col('メモ') - col('MF仕訳ID') + 1],
    ],
  );
  const block = writes[1].values[0];
  assert.equal(block[0], 'J');
  assert.equal(block[col('初回検知') - col('MF仕訳ID')], 'T0', 'written back as read');
});

describe('reading a 台帳 an earlier version wrote into plain-text cells', () => {
  test('keys, ids, states and timestamps read past leading apostrophes; free text is read as it is', () => {
    const header = ['キー', '状態', '取引日', '摘要', '明細ID', '指紋', '更新日時', 'メモ'];
    const table = parseLedger([
      header,
      [
        "'mf:a%2F",
        "'送信待ち",
        "''2026-01-08",
        "''ﾃｽｳﾘﾖｳ",
        "'a%2F",
        "'abc",
        "'2026-11-30T00:00:00Z",
        "'メモ",
      ],
    ]);
    const r = table.rows[0].record;
    assert.deepEqual(
      [r.キー, r.状態, r.取引日, r.明細ID, r.指紋, r.更新日時],
      ['mf:a%2F', '送信待ち', '2026-01-08', 'a%2F', 'abc', '2026-11-30T00:00:00Z'],
    );
    assert.equal(r.摘要, "''ﾃｽｳﾘﾖｳ");
    assert.equal(r.メモ, "'メモ");
    assert.equal(keyCellText("''mf:b"), 'mf:b');
  });
});

describe('columnWrites over a table read in part (the posting scan)', () => {
  test('refuses a block over rows that were not read whole', () => {
    const t = parseLedger([
      LEDGER_HEADERS.slice(),
      ...[1, 2, 3].map((i) =>
        LEDGER_HEADERS.map((h) => (h === 'キー' ? `mf:${i}` : h === '状態' ? '完了' : '')),
      ),
    ]);
    const partial = { ...t, partial: { first: 3, last: 4 } };
    const change = (rowNumber: number) => ({
      key: `mf:${rowNumber}`,
      rowNumber,
      patch: { 状態: '送信中' as const },
    });
    assert.equal(columnWrites(partial, [change(3), change(4)]).length, 1);
    assert.throws(() => columnWrites(partial, [change(2), change(4)]), /not read whole/);
  });
});
