/**
 * The settle write's decisions without the emulator (src/core/settle-plan.ts): each test reads a 台帳
 * as a grid, moves or types in it as a person would between the run's read and its write, and checks
 * what the plan says to write.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mfKey } from '../../src/core/keys';
import {
  type ColumnWrite,
  columnWrites,
  type LedgerTable,
  parseLedger,
  type RowChange,
} from '../../src/core/ledger';
import { LEDGER_HEADERS } from '../../src/core/schema';
import {
  blockColumns,
  debrisWrites,
  keyRound,
  keysAndPeopleBox,
  keysWanted,
  MoveBack,
  moveBackAgain,
  movedUnderWrite,
  ownKey,
  peopleStep,
  planYield,
  REPAIR_ROUNDS,
  readBackBox,
  SORTED_TOO_OFTEN,
  unlikeWritten,
  withFreshPeople,
  withoutKeys,
  writtenSpan,
} from '../../src/core/settle-plan';

type Row = Record<string, unknown>;

function grid(rows: readonly Row[]): unknown[][] {
  return [LEDGER_HEADERS.slice(), ...rows.map((r) => LEDGER_HEADERS.map((h) => r[h] ?? ''))];
}

const col = (h: string) => LEDGER_HEADERS.indexOf(h as (typeof LEDGER_HEADERS)[number]) + 1;

/** Writes blocks into a grid by position, as setValues does. */
function apply(g: unknown[][], writes: readonly ColumnWrite[]): void {
  for (const w of writes)
    w.values.forEach((line, i) => {
      line.forEach((v, j) => {
        g[w.firstRow - 1 + i][w.column - 1 + j] = v;
      });
    });
}

/** The rectangle `box` of a grid, as getValues returns it. */
function readBox(g: unknown[][], box: { row: number; column: number; rows: number; columns: number }) {
  const out = g
    .slice(box.row - 1, box.row - 1 + box.rows)
    .map((line) => line.slice(box.column - 1, box.column - 1 + box.columns));
  return { grid: out, row: box.row, column: box.column };
}

const byKey = (t: LedgerTable, k: string) => t.rows.find((r) => r.record.キー === k)?.record;

const rows: Row[] = [
  { キー: 'mf:a', 明細ID: 'a', 状態: '要確認', 勘定科目: '', 摘要: 'A' },
  { キー: 'mf:b', 明細ID: 'b', 状態: '要確認', 勘定科目: '', 摘要: 'B' },
  { キー: 'mf:c', 明細ID: 'c', 状態: '要確認', 勘定科目: '', 摘要: 'C' },
];

/** Classify's decision for rows a and b: a 勘定科目 (people-owned) and 送信待ち (system-owned). */
function classify(table: LedgerTable): RowChange[] {
  return ['mf:a', 'mf:b'].map((key) => ({
    key,
    rowNumber: table.rows.find((r) => r.record.キー === key)?.rowNumber as number,
    patch: { 勘定科目: '消耗品費', 状態: '送信待ち' },
  }));
}

describe('yielding to people', () => {
  test('a change that writes people-owned cells is always checked; one of system cells only when asked', () => {
    const table = parseLedger(grid(rows));
    const people: RowChange = { key: 'mf:a', rowNumber: 2, patch: { 勘定科目: '消耗品費' } };
    const system: RowChange = { key: 'mf:b', rowNumber: 3, patch: { 状態: '送信中' } };
    const rowsOf = (s: ReturnType<typeof peopleStep>) =>
      s.kind === 'check' ? s.rows.map((c) => c.key) : s.kind;
    assert.deepEqual(rowsOf(peopleStep(table, [people, system], false, true)), ['mf:a']);
    assert.deepEqual(rowsOf(peopleStep(table, [people, system], true, true)), ['mf:a', 'mf:b']);
    assert.deepEqual(rowsOf(peopleStep(table, [system], (c) => c.key === 'mf:b', true)), ['mf:b']);
    assert.equal(rowsOf(peopleStep(table, [system], false, true)), 'none');
    // The build without the yield (src/core/safety.ts) writes people's cells without a look.
    const blind = peopleStep(table, [people], false, false);
    assert.equal(blind.kind, 'blind');
  });

  test('a row a person typed in since the read keeps their input, and its whole change is held back', () => {
    const g = grid(rows);
    const table = parseLedger(g);
    const changes = classify(table);
    apply(g, columnWrites(table, changes));
    // The person approves row a with their own 勘定科目 while the run writes.
    g[1][col('勘定科目') - 1] = '旅費交通費';
    const box = keysAndPeopleBox(table, changes, null);
    assert.ok(box);
    const view = withFreshPeople(table, changes, readBox(g, box));
    assert.ok(view, 'no row moved');
    assert.equal(byKey(view, 'mf:a')?.勘定科目, '旅費交通費', 'the re-read sees what the person typed');
    const plan = planYield(table, changes, changes, view, false);
    assert.deepEqual(
      plan.withheld.map((c) => c.key),
      ['mf:a'],
    );
    assert.deepEqual(
      plan.applied.map((c) => c.key),
      ['mf:b'],
    );
    assert.deepEqual(plan.leftToPeople, [{ key: 'mf:a', rowNumber: 2, columns: ['勘定科目'] }]);
    // Row b's 勘定科目 is written; row a's is not.
    for (const w of plan.people) {
      if (w.kind === 'run') assert.equal(w.firstRow, 3);
      else assert.deepEqual(w.rows, [3]);
    }
    assert.equal(plan.people.length, 1);
    // Row a's 送信待ち went out a moment before: the plan puts its 状態 back as read.
    assert.ok(plan.restore);
    apply(g, plan.restore);
    for (const w of plan.people) if (w.kind === 'run') apply(g, [{ ...w, values: w.values.map((v) => [v]) }]);
    const after = parseLedger(g);
    assert.equal(byKey(after, 'mf:a')?.状態, '要確認');
    assert.equal(byKey(after, 'mf:a')?.勘定科目, '旅費交通費');
    assert.equal(byKey(after, 'mf:b')?.状態, '送信待ち');
    assert.equal(byKey(after, 'mf:b')?.勘定科目, '消耗品費');
    assert.equal(plan.verified, false);
  });

  test('nothing typed: the re-read was the read-back, unless people-owned cells are still to be written', () => {
    const table = parseLedger(grid(rows));
    const system: RowChange[] = [{ key: 'mf:a', rowNumber: 2, patch: { 状態: '送信中' } }];
    const plan = planYield(table, system, system, table, false);
    assert.deepEqual(plan.withheld, []);
    assert.equal(plan.restore, null);
    assert.equal(plan.verified, true);
    const people = classify(table);
    assert.equal(planYield(table, people, people, table, false).verified, false);
  });
});

describe('moving rows back', () => {
  /** Rows a and b swapped by a person's sort (c stays). */
  const sorted = () => {
    const g = grid(rows);
    [g[1], g[2]] = [g[2], g[1]];
    return g;
  };

  test('a row that no longer holds its key where the re-read looks means rows moved', () => {
    const table = parseLedger(grid(rows));
    const changes = classify(table);
    const g = sorted();
    const box = keysAndPeopleBox(table, changes, null);
    assert.ok(box);
    assert.equal(withFreshPeople(table, changes, readBox(g, box)), null);
  });

  /** Rows a and c get a 勘定科目 and a メモ of their own; the block spans b, written back as read. */
  function settle(_table: LedgerTable): RowChange[] {
    return [
      { key: 'mf:a', rowNumber: 2, patch: { 勘定科目: '消耗品費', 状態: '送信待ち', メモ: 'for a' } },
      { key: 'mf:c', rowNumber: 4, patch: { 勘定科目: '消耗品費', 状態: '送信待ち', メモ: 'for c' } },
    ];
  }

  test('after a sort, people-owned cells go to the row now holding the key, and the rest is put back by key', () => {
    const table = parseLedger(grid(rows));
    const changes = settle(table);
    const g = sorted();
    // The sort landed before the write: by position, b's row got a's cells and a's row b's as read.
    const first = columnWrites(table, changes);
    apply(g, first);
    assert.equal(byKey(parseLedger(g), 'mf:b')?.メモ, 'for a');
    const view = parseLedger(g);
    const plan = planYield(table, changes, changes, view, true);
    assert.equal(plan.moveBack, true);
    assert.equal(plan.restore, null);
    const peopleRows = plan.people.flatMap((w) =>
      w.kind === 'run' ? w.values.map((_, i) => w.firstRow + i) : w.rows,
    );
    assert.deepEqual(peopleRows, [3, 4], 'a is on row 3 now, c on row 4');
    const moveBack = new MoveBack(table);
    moveBack.wrote(table, first);
    apply(g, moveBack.plan(view, plan.applied, true, '2025-01-01T00:00:00.000Z').blocks);
    const after = parseLedger(g);
    assert.equal(byKey(after, 'mf:a')?.状態, '送信待ち');
    assert.equal(byKey(after, 'mf:a')?.メモ, 'for a');
    assert.equal(byKey(after, 'mf:b')?.状態, '要確認', 'b, which the block covered by position, is as read');
    assert.equal(byKey(after, 'mf:b')?.メモ, '');
    assert.equal(byKey(after, 'mf:c')?.メモ, 'for c');
  });

  test('a row held back for a person is put back as read, not as the change meant it', () => {
    const table = parseLedger(grid(rows));
    const changes = settle(table);
    const g = sorted();
    const first = columnWrites(table, changes);
    apply(g, first);
    g[2][col('勘定科目') - 1] = '会議費'; // row 3 holds a now: the person typed in a
    const view = parseLedger(g);
    const plan = planYield(table, changes, changes, view, true);
    assert.deepEqual(
      plan.withheld.map((c) => c.key),
      ['mf:a'],
    );
    const moveBack = new MoveBack(table);
    moveBack.wrote(table, first);
    apply(g, moveBack.plan(view, plan.applied, true, '').blocks);
    const after = parseLedger(g);
    assert.equal(byKey(after, 'mf:a')?.状態, '要確認');
    assert.equal(byKey(after, 'mf:a')?.メモ, '');
    assert.equal(byKey(after, 'mf:a')?.勘定科目, '会議費');
    assert.equal(byKey(after, 'mf:c')?.状態, '送信待ち');
  });

  test('rows moving again round after round stop the run', () => {
    assert.equal(moveBackAgain(0, false), false);
    assert.equal(moveBackAgain(REPAIR_ROUNDS - 1, true), true);
    assert.throws(() => moveBackAgain(REPAIR_ROUNDS, true), { message: SORTED_TOO_OFTEN });
    assert.equal(moveBackAgain(REPAIR_ROUNDS, false), false);
  });

  test('rows a write left below rows deleted under it are cleared; lines are not', () => {
    const g = grid([...rows, { キー: '', 状態: '送信待ち', 更新日時: 'x' }]);
    const writes = debrisWrites(parseLedger(g));
    assert.ok(writes);
    apply(g, writes);
    const after = parseLedger(g);
    assert.equal(after.rows.length, 3);
    assert.equal(byKey(after, 'mf:a')?.状態, '要確認');
    assert.equal(debrisWrites(parseLedger(grid(rows))), null);
  });
});

describe('reading back', () => {
  test('the キー column read back over the written span: a moved row shows, an unmoved span does not', () => {
    const table = parseLedger(grid(rows));
    const changes = [{ key: 'mf:b', rowNumber: 3, patch: { 状態: '送信中' as const } }];
    const span = writtenSpan(table, changes);
    assert.deepEqual(span.span, { first: 3, last: 3 });
    const box = readBackBox(span, span.span, null);
    assert.deepEqual(box, { row: 3, column: col('キー'), rows: 1, columns: 1 });
    assert.equal(movedUnderWrite(span, readBox(grid(rows), box)), false);
    const g = grid(rows);
    [g[2], g[3]] = [g[3], g[2]];
    assert.equal(movedUnderWrite(span, readBox(g, box)), true);
    // Rows moved outside the span did not receive our cells: not a move under this write.
    const h = grid(rows);
    [h[1], h[3]] = [h[3], h[1]];
    assert.equal(movedUnderWrite(span, readBox(h, box)), false);
  });

  test('the read-back widens to blocks written on reused formats, and finds text a "@" cell changed', () => {
    const table = parseLedger(grid(rows));
    const blocks = [{ row: 2, column: col('メモ'), cells: [["'=1"]] }];
    const reused = blockColumns(blocks);
    const box = readBackBox(table, { first: 2, last: 2 }, reused);
    assert.ok(box);
    assert.ok(box.column <= col('メモ') && box.column + box.columns - 1 >= col('メモ'));
    const g = grid(rows);
    g[1][col('メモ') - 1] = '=1';
    assert.deepEqual(unlikeWritten(blocks, readBox(g, box)), [], 'read back as written (apostrophe gone)');
    g[1][col('メモ') - 1] = "'=1";
    assert.deepEqual(unlikeWritten(blocks, readBox(g, box)), blocks, 'the apostrophe kept: written again');
    assert.deepEqual(unlikeWritten(blocks, { grid: [], row: 2, column: 1 }), blocks, 'not read: not fine');
  });
});

describe('restoring keys', () => {
  test('the key goes back on the row holding the key it replaces, when it fits that row', () => {
    const g = grid([...rows.slice(0, 2), { ...rows[2], キー: 'typo' }]);
    const wanted = [{ from: 'typo', to: 'mf:c' }];
    const round = keyRound(parseLedger(g), wanted);
    assert.deepEqual([...round.writes], [[4, 'mf:c']]);
    assert.equal(round.restored, 0);
    g[3][col('キー') - 1] = 'mf:c';
    const next = keyRound(parseLedger(g), wanted);
    assert.equal(next.writes.size, 0);
    assert.equal(next.restored, 1);
    // A key that does not fit the row (another line's 明細ID) is not written there.
    assert.equal(keyRound(parseLedger(g), [{ from: 'mf:a', to: 'mf:z' }]).writes.size, 0);
  });

  test('a row a sort put under a key write gets its own key back', () => {
    // The write of mf:c landed on row 2 after a sort: row 2 is line a's (明細ID a) holding mf:c.
    const g = grid([{ ...rows[0], キー: 'mf:c' }, rows[1], { ...rows[2], キー: 'typo' }]);
    const round = keyRound(parseLedger(g), [{ from: 'typo', to: 'mf:c' }]);
    assert.equal(round.writes.get(2), mfKey('a'));
    assert.equal(round.writes.get(4), 'mf:c');
  });

  test('keys of rows left to people are not given back; the other fields go first, without the key', () => {
    const changes: RowChange[] = [
      { key: 'typo', rowNumber: 4, patch: { キー: 'mf:c', 状態: '要確認' } },
      { key: 'x', rowNumber: 5, patch: { キー: 'mf:d' } },
    ];
    assert.deepEqual(withoutKeys(changes), [{ key: 'typo', rowNumber: 4, patch: { 状態: '要確認' } }]);
    assert.deepEqual(keysWanted(changes, []), [
      { from: 'typo', to: 'mf:c' },
      { from: 'x', to: 'mf:d' },
    ]);
    assert.deepEqual(keysWanted(changes, [changes[0]]), [{ from: 'x', to: 'mf:d' }]);
  });

  test('a CSV row’s own key is the first occurrence no other row holds', () => {
    const record = parseLedger(
      grid([{ キー: 'x', 口座: 'カード', 取引日: '2025-01-02', 金額: 100, 摘要: 'A' }]),
    ).rows[0].record;
    const first = ownKey(record, new Map());
    assert.ok(first?.startsWith('csv:'));
    const second = ownKey(record, new Map([[first as string, true]]));
    assert.ok(second && second !== first);
    assert.equal(ownKey({ ...record, 金額: 'abc' }, new Map()), null);
  });
});
