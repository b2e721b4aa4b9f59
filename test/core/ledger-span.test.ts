/** The narrow reads' rules (src/core/ledger-span.ts), without the emulator. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type LedgerRow, parseLedger } from '../../src/core/ledger';
import {
  columnScanRow,
  isScannedRow,
  movedSinceScan,
  postingSpan,
  spanStillHolds,
  stillKeyed,
} from '../../src/core/ledger-span';
import { LEDGER_HEADERS } from '../../src/core/schema';

function rows(list: readonly Record<string, unknown>[]): LedgerRow[] {
  return parseLedger([LEDGER_HEADERS.slice(), ...list.map((r) => LEDGER_HEADERS.map((h) => r[h] ?? ''))])
    .rows;
}

test('the posting span runs from the first to the last row the loop may act on', () => {
  const r = rows([
    { キー: 'a', 状態: '完了' },
    { キー: 'b', 状態: '送信待ち' },
    { キー: 'c', 状態: '完了' },
    { キー: 'd', 状態: '完了', 操作: '除外' },
    { キー: 'e', 状態: '完了' },
  ]);
  assert.deepEqual(postingSpan(r), { first: 3, last: 5 });
  assert.deepEqual(postingSpan(rows([{ キー: 'a', 状態: '完了' }])), { first: 0, last: -1 });
  // A key on two rows makes both part of it (the duplicate-key guard marks them).
  const twins = rows([
    { キー: 'a', 状態: '完了' },
    { キー: 'b', 状態: '完了' },
    { キー: 'a', 状態: '完了' },
  ]);
  assert.deepEqual(postingSpan(twins), { first: 2, last: 4 });
  // So does a row whose key a person cleared.
  assert.deepEqual(
    postingSpan(
      rows([
        { キー: 'a', 状態: '完了' },
        { キー: '', 状態: '完了' },
      ]),
    ),
    { first: 3, last: 3 },
  );
  for (const state of ['送信中', '不明'])
    assert.deepEqual(postingSpan(rows([{ キー: 'a', 状態: state }])), { first: 2, last: 2 });
});

test('rows moved between a scan and a later read show as keys no longer where they were', () => {
  const scanned = rows([
    { キー: 'a', 状態: '完了' },
    { キー: 'b', 状態: '完了' },
  ]);
  const swapped = rows([
    { キー: 'b', 状態: '完了' },
    { キー: 'a', 状態: '完了' },
  ]);
  assert.equal(spanStillHolds(scanned, scanned, 2, 3), true);
  assert.equal(spanStillHolds(scanned, swapped, 2, 3), false);
  assert.equal(spanStillHolds(scanned, scanned.slice(0, 1), 2, 3), false, 'a row deleted');
  assert.equal(movedSinceScan(scanned, scanned, 2, 3), false);
  assert.equal(movedSinceScan(scanned, swapped, 2, 3), true);
  const added = rows([
    { キー: 'a', 状態: '完了' },
    { キー: 'b', 状態: '完了' },
    { キー: 'n', 状態: '' },
  ]);
  assert.equal(movedSinceScan(scanned, added, 2, 4), true, 'a row blank at the scan has a key now');
  const changes = [
    { key: 'a', rowNumber: 2, patch: {} },
    { key: 'b', rowNumber: 3, patch: {} },
  ];
  assert.deepEqual(
    stillKeyed(changes, swapped).map((c) => c.key),
    [],
  );
  assert.deepEqual(
    stillKeyed(changes, scanned).map((c) => c.key),
    ['a', 'b'],
  );
});

test('which scanned rows are rows', () => {
  const [blank] = rows([{ キー: '', 状態: '', 明細ID: 'x' }]);
  assert.equal(isScannedRow(blank.record), false);
  assert.equal(isScannedRow({ ...blank.record, 状態: '完了' }), true);
  assert.equal(columnScanRow(['キー', '明細ID'])(blank.record), true);
  assert.equal(columnScanRow(['キー', '状態'])(blank.record), false);
  assert.equal(
    columnScanRow(['摘要'])({ ...blank.record, 摘要: 'memo' }),
    true,
    'no identity column: any cell',
  );
});
