/** The daily check that 完了 rows' journals are still in MF (src/core/journal-check.ts), on hand-made rows. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonical } from '../../src/core/duplicates/facts';
import {
  checkDue,
  emptySeen,
  findingPatch,
  findings,
  journalWentMissing,
  monthsToCheck,
  monthWindow,
} from '../../src/core/journal-check';
import { remoteTagOf } from '../../src/core/keys';
import type { LedgerRow } from '../../src/core/ledger';
import { applyOperations } from '../../src/core/operations';
import { canMove } from '../../src/core/states';
import { ledgerRecord } from '../helpers/fixtures';

function row(n: number, over: Parameters<typeof ledgerRecord>[0]): LedgerRow {
  return { rowNumber: n, record: ledgerRecord({ 状態: '完了', ...over }) };
}

describe('journal check', () => {
  const rows = [
    row(2, { キー: 'mf:A', 明細ID: 'A', 取引日: '2026-03-05', MF仕訳ID: 'JA%3D' }),
    row(3, { キー: 'mf:B', 明細ID: 'B', 取引日: '2026-04-05', MF仕訳ID: 'JB%3D' }),
    row(4, { キー: 'csv:c', 取引日: '2026-05-05', MF仕訳ID: 'JC%3D' }),
    row(5, { キー: 'csv:d', 取引日: '2026-05-06', MF仕訳ID: 'JD%3D' }),
    row(6, { キー: 'mf:E', 明細ID: 'E', 取引日: '2026-05-07', MF仕訳ID: '', 状態: '完了' }),
    row(7, { キー: 'mf:F', 明細ID: 'F', 取引日: '2026-02-07', MF仕訳ID: 'JF%3D', 状態: '除外' }),
  ];

  test('months: the duplicate audit’s first, then the ones checked longest ago, latest first', () => {
    const marks = { at: 1, months: { '2026-05': 100, '2026-04': 50 } };
    assert.deepEqual(
      monthsToCheck(rows, marks, () => false),
      ['2026-03', '2026-04', '2026-05'],
    );
    assert.deepEqual(
      monthsToCheck(rows, marks, (r) => r.キー === 'csv:c'),
      ['2026-05', '2026-03', '2026-04'],
    );
    assert.deepEqual(monthWindow('2026-02'), { start: '2026-02-01', end: '2026-02-28' });
    assert.ok(checkDue({ at: 0, months: {} }, 10));
    assert.ok(!checkDue({ at: 1_000, months: {} }, 1_000 + 3_600_000));
    assert.ok(checkDue({ at: 1_000, months: {} }, 1_000 + 24 * 3_600_000));
  });

  test('findings: seen → nothing; its tag or its line on another journal → relink; else a lookup by id', () => {
    const seen = emptySeen();
    seen.ids.add(canonical('JA%3D'));
    seen.byLine.set('B', 'OTHER-B');
    seen.byTag.set(remoteTagOf('csv:c'), 'OTHER-C');
    const found = findings(rows, new Set(['2026-03', '2026-04', '2026-05']), seen, canonical);
    assert.deepEqual(
      found.map((f) => [f.row.record.キー, f.kind, f.kind === 'relink' ? f.journalId : '']),
      [
        ['mf:B', 'relink', 'OTHER-B'],
        ['csv:c', 'relink', 'OTHER-C'],
        ['csv:d', 'lookup', ''],
      ],
    );
    // A row completed within 照合猶予 may not be listed yet: nothing is decided about it.
    const fresh = rows.map((r) =>
      r.record.キー === 'csv:d' ? { ...r, record: { ...r.record, 完了日時: '2026-12-01T10:00:00.000Z' } } : r,
    );
    const freshAfter = Date.parse('2026-12-01T09:50:00.000Z');
    assert.ok(
      !findings(fresh, new Set(['2026-05']), seen, canonical, freshAfter).some(
        (f) => f.row.record.キー === 'csv:d',
      ),
    );
    // A month not listed says nothing about its rows.
    assert.deepEqual(findings(rows, new Set(['2026-03']), emptySeen(), canonical).length, 1);
    const gone = findingPatch(found[2], 'now', '2026-12-01 10:00', false);
    assert.equal(gone.状態, '要確認');
    assert.equal(gone.MF仕訳ID, undefined, 'the journal it had stays named');
    assert.match(String(gone.メモ), /MF の仕訳 JD%3D が MF にありません.*「承認」.*「除外」/);
    assert.ok(canMove('完了', '要確認'));
  });

  test('a row found gone may be sent again by 承認 or 再試行; another 要確認 row only by 承認', () => {
    const masters = {
      accounts: [{ id: 'acc1', name: '消耗品費', available: true, subAccounts: [] }],
      taxes: [],
      partners: [],
      connectedAccounts: [],
      fetchedAt: '2026-11-30T00:00:00Z',
    };
    const gone = row(2, {
      キー: 'csv:g',
      状態: '要確認',
      MF仕訳ID: 'JG',
      勘定科目: '消耗品費',
      操作: '再試行',
    });
    const plain = row(3, { キー: 'csv:h', 状態: '要確認', 勘定科目: '消耗品費', 操作: '再試行' });
    assert.ok(journalWentMissing(gone.record) && !journalWentMissing(plain.record));
    const [a, b] = applyOperations([gone, plain], masters, 'who', 'now');
    assert.equal(a.patch.状態, '送信待ち');
    assert.equal(b.patch.状態, undefined);
  });
});
