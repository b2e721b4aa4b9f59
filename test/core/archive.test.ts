import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ARCHIVED_KEY_MEMO,
  archiveCutoff,
  archivedJournal,
  archivedKind,
  countsOf,
  deletionBlocks,
  ENTRIES_PER_CELL,
  emptyIndex,
  formatIndex,
  guardArchivedKeys,
  indexFromArchive,
  indexTrouble,
  isArchived,
  kindOf,
  lostRows,
  oldEnough,
  parseCounts,
  parseIndex,
  planArchive,
  removableReimport,
  sameRow,
  stopsLookups,
} from '../../src/core/archive';
import { deletionHold } from '../../src/core/duplicates/sheet';
import { fingerprint } from '../../src/core/fingerprint';
import { emptyRecord } from '../../src/core/intake';
import { csvKey, mfKey, remoteTag, tagDigits } from '../../src/core/keys';
import type { LedgerRecord, LedgerTable } from '../../src/core/ledger';
import type { LedgerState } from '../../src/core/states';

describe('the key index', () => {
  test('200,000 keys pack into cells under the 50,000-character limit and read back whole', () => {
    const index = emptyIndex();
    for (let i = 0; i < 200_000; i++) index.entries.set(tagDigits(mfKey(`T${i}`)), i % 4 === 0 ? 'x' : 'm');
    index.sheetRows = 200_000;
    const cells = formatIndex(index);
    assert.ok(cells.length <= 1 + Math.ceil(200_000 / ENTRIES_PER_CELL), `${cells.length} cells`);
    assert.ok(cells.length <= 73);
    for (const c of cells) assert.ok(c.length < 49_999, `${c.length} characters`);
    const { index: back, problems } = parseIndex(cells.map((c) => [c]));
    assert.equal(problems, 0);
    assert.equal(back.entries.size, 200_000);
    assert.equal(back.sheetRows, 200_000);
    assert.ok(isArchived(back, mfKey('T123456')));
    assert.ok(!isArchived(back, mfKey('T200000')));
    assert.deepEqual(countsOf(back), { rows: 200_000, mf: 150_000, csv: 0 });
  });

  test('the entry is the remote tag without kc-, so restore and CSV imports meet it by tag', () => {
    const key = csvKey('○○銀行', '2026-05-01', 220, 'ﾃｽｳﾘﾖｳ', 1);
    assert.equal(`kc-${tagDigits(key)}`, remoteTag(key));
  });

  test('a cell a person typed into is counted as a problem, not read as keys', () => {
    const cells = formatIndex(emptyIndex());
    const { problems } = parseIndex([[cells[0]], ['メモ'], ['t:0123456789abcdefm']]);
    assert.equal(problems, 1);
    assert.equal(parseIndex([['not json']]).problems, 1);
  });

  test('what a row was: sent MF line, sent CSV or event line, 完了 without a journal, 除外', () => {
    const r = (キー: string, 状態: LedgerState, MF仕訳ID = '') => ({ キー, 状態, MF仕訳ID });
    assert.equal(kindOf(r('mf:a', '完了', 'j1')), 'm');
    assert.equal(kindOf(r('csv:0123', '完了', 'j1')), 'c');
    assert.equal(kindOf(r('evt:shop:1', '完了', 'j1')), 'c');
    assert.equal(kindOf(r('mf:a', '完了')), 'd');
    assert.equal(kindOf(r('mf:a', '除外', 'j1')), 'x');
  });

  test('an unreadable counts mirror counts nothing', () => {
    assert.deepEqual(parseCounts('{"rows":3,"mf":2,"csv":1}'), { rows: 3, mf: 2, csv: 1 });
    assert.deepEqual(parseCounts('oops'), { rows: 0, mf: 0, csv: 0 });
    assert.deepEqual(parseCounts(null), { rows: 0, mf: 0, csv: 0 });
  });
});

describe('which rows move', () => {
  test('the cutoff is calendar months back (the month’s last day when shorter); 0 months is tomorrow', () => {
    assert.equal(archiveCutoff('2026-11-30', 3), '2026-08-30');
    assert.equal(archiveCutoff('2026-05-31', 3), '2026-02-28');
    assert.equal(archiveCutoff('2026-02-15', 14), '2024-12-15');
    assert.equal(archiveCutoff('2026-12-31', 0), '2027-01-01');
  });

  const row = (patch: Partial<LedgerRecord>): LedgerRecord => ({
    ...emptyRecord(),
    MF仕訳ID: 'J1',
    キー: 'mf:A1',
    明細ID: 'A1',
    状態: '完了',
    取引日: '2026-01-10',
    更新日時: '2026-02-01T00:00:00.000Z',
    完了日時: '2026-02-01T00:00:00.000Z',
    ...patch,
  });

  test('完了 and 除外 only, nothing in 操作, and both the 取引日 and the last update before the cutoff', () => {
    const cutoff = '2026-06-01';
    assert.ok(oldEnough(row({}), cutoff));
    assert.ok(oldEnough(row({ 状態: '除外', 完了日時: '' }), cutoff));
    for (const state of ['未判定', '要確認', '送信待ち', '送信中', '不明', '失敗', ''] as const)
      assert.ok(!oldEnough(row({ 状態: state }), cutoff), state);
    assert.ok(!oldEnough(row({ 操作: '再試行' }), cutoff));
    assert.ok(!oldEnough(row({ 取引日: '2026-06-01' }), cutoff));
    assert.ok(!oldEnough(row({ 更新日時: '2026-06-10T00:00:00.000Z' }), cutoff));
    // 2026-05-31T15:30Z is 2026-06-01 in Tokyo: not before the cutoff.
    assert.ok(!oldEnough(row({ 更新日時: '2026-05-31T15:30:00.000Z' }), cutoff));
    assert.ok(!oldEnough(row({ 取引日: '2026/01/10' }), cutoff));
    // Edited after posting (指紋 differs): listed on 要確認, so it stays; with its own 指紋 it moves.
    const posted = row({ 勘定科目: '消耗品費' });
    assert.ok(oldEnough({ ...posted, 指紋: fingerprint(posted) }, cutoff));
    assert.ok(!oldEnough({ ...posted, 指紋: fingerprint(posted), 勘定科目: '会議費' }, cutoff));
    // 完了 without MF仕訳ID (a person typed 完了): reconcile must look it up first.
    assert.ok(!oldEnough(row({ MF仕訳ID: '' }), cutoff));
  });

  test('a key on two rows, a broken key, an indexed key and the limit per run keep rows on the 台帳', () => {
    const rows = [
      row({ キー: 'mf:A1', 明細ID: 'A1' }),
      row({ キー: 'mf:A2', 明細ID: 'A2' }),
      row({ キー: 'mf:A2', 明細ID: 'A2' }),
      row({ キー: 'mf:A3', 明細ID: 'XX' }),
      row({ キー: 'mf:A4', 明細ID: 'A4' }),
      row({ キー: 'mf:A5', 明細ID: 'A5' }),
      row({ キー: 'mf:A6', 明細ID: 'A6' }),
    ];
    const table: LedgerTable = {
      columns: new Map(),
      width: 0,
      rows: rows.map((record, i) => ({ rowNumber: i + 2, record })),
    };
    const tags = rows.map((r) => tagDigits(String(r.キー)));
    const index = emptyIndex();
    index.entries.set(tagDigits('mf:A5'), 'm');
    const plan = planArchive(table, tags, index, '2026-06-01', 2);
    assert.deepEqual(
      plan.move.map((r) => r.record.キー),
      ['mf:A1', 'mf:A4'],
    );
    assert.equal(plan.deferred, 1);
    // A key the index still holds after the settle (a line imported again beside its archived row)
    // never moves onto its archived row: not moved, not deferred.
    assert.deepEqual(
      plan.inBoth.map((r) => r.record.キー),
      ['mf:A5'],
    );
  });

  test('a row whose journal 重複を削除 is deleting (削除中 / 不明 on 重複点検) waits for the settle', () => {
    const rows = [
      row({ キー: 'mf:B1', 明細ID: 'B1', MF仕訳ID: 'JB1' }),
      row({ キー: 'mf:B2', 明細ID: 'B2', MF仕訳ID: 'JB2' }),
      row({ キー: 'mf:B3', 明細ID: 'B3', MF仕訳ID: 'JB3' }),
      row({ キー: 'mf:B4', 明細ID: 'B4', MF仕訳ID: 'JB4' }),
    ];
    const table: LedgerTable = {
      columns: new Map(),
      width: 0,
      rows: rows.map((record, i) => ({ rowNumber: i + 2, record })),
    };
    const sheet = [
      ['グループ', '仕訳ID', '操作', '状態', '台帳のキー'],
      ['G-1', 'JB1', '削除', '削除中', 'mf:B1'],
      ['G-1', 'JX9', '削除', '不明', 'mf:B2, mf:Z9'],
      ['G-2', 'JB3', '削除', '削除済み', 'mf:B3'],
    ];
    const found = deletionHold(sheet);
    assert.ok(found.hold);
    const plan = planArchive(
      table,
      rows.map((r) => tagDigits(String(r.キー))),
      emptyIndex(),
      '2026-06-01',
      10,
      found.hold,
    );
    assert.deepEqual(
      plan.move.map((r) => r.record.キー),
      ['mf:B3', 'mf:B4'],
    );
    assert.equal(plan.held, 2);
    // Found by journal alone too (a row whose key the claim did not name).
    const byJournal = deletionHold([sheet[0], ['G-1', 'JB4', '削除', '削除中', '']]);
    assert.ok(byJournal.hold?.journals.has('JB4'));
    // No sheet, or a header row only: nothing held. Rows under a renamed header: refused, named.
    assert.equal(deletionHold(null).hold?.keys.size, 0);
    assert.equal(deletionHold([sheet[0]]).hold?.keys.size, 0);
    assert.deepEqual(deletionHold([['グループ', '仕訳', '操作', '状態', '台帳のキー'], sheet[1]]).missing, [
      '仕訳ID',
    ]);
  });
});

describe('deleting rows', () => {
  test('blocks of consecutive rows, bottom first', () => {
    assert.deepEqual(deletionBlocks([2, 3, 4, 7, 9, 10]), [
      { start: 9, count: 2 },
      { start: 7, count: 1 },
      { start: 2, count: 3 },
    ]);
    assert.deepEqual(deletionBlocks([]), []);
  });

  test('rows a deletion took by mistake are found by key (others by their cells)', () => {
    const before = [
      ['mf:1', 'a'],
      ['mf:2', 'b'],
      ['', 'note'],
      ['mf:3', 'c'],
    ];
    // Meant to go: mf:2. A sort made the deletion take mf:3 and the note instead.
    const after = [
      ['mf:1', 'a edited'],
      ['mf:2', 'b'],
    ];
    assert.deepEqual(lostRows(before, after, new Set([1]), 0), [
      ['', 'note'],
      ['mf:3', 'c'],
    ]);
    assert.deepEqual(lostRows(before, before, new Set([1]), 0), []);
  });
});

describe('the index lost (issue 25)', () => {
  const rec = (patch: Partial<LedgerRecord>): LedgerRecord => ({ ...emptyRecord(), ...patch });
  const facts = (cells: string[], archiveRows: number, mirrorRows: number, archiveSheet = true) => ({
    indexSheet: cells.length > 0,
    cells: cells.map((c) => [c]),
    archiveSheet,
    archiveRows: () => archiveRows,
    mirrorRows: () => mirrorRows,
  });
  const indexOf = (...entries: [string, 'm' | 'c' | 'd' | 'x'][]) => {
    const index = emptyIndex();
    for (const [key, kind] of entries) index.entries.set(tagDigits(key), kind);
    return formatIndex(index);
  };

  test('what stops a lookup: missing or emptied while the archive has rows, unreadable, cut short, both gone', () => {
    const cells = indexOf(['mf:A', 'x'], ['mf:B', 'm']);
    assert.equal(indexTrouble(facts(cells, 2, 2)), null);
    assert.equal(indexTrouble(facts([], 0, 0)), null, 'nothing ever archived');
    assert.equal(indexTrouble(facts([], 0, 0, false)), null);
    assert.deepEqual(indexTrouble(facts([], 2, 2)), { kind: 'missing', sheet: false, archiveRows: 2 });
    assert.equal(indexTrouble({ ...facts([], 2, 2), indexSheet: true })?.kind, 'missing');
    assert.equal(indexTrouble(facts([cells[0], 'メモ'], 2, 2))?.kind, 'unreadable');
    assert.deepEqual(indexTrouble(facts([cells[0]], 2, 2)), { kind: 'short', declared: 2, found: 0 });
    assert.deepEqual(indexTrouble(facts([], 0, 5, false)), { kind: 'lost', archived: 5 });
    const archiveGone = indexTrouble(facts(cells, 0, 2, false));
    assert.deepEqual(archiveGone, { kind: 'no-archive', entries: 2 });
    assert.ok(!stopsLookups(archiveGone), 'the index still answers lookups');
    for (const t of ['missing', 'unreadable', 'short', 'lost'] as const)
      assert.ok(stopsLookups({ kind: t } as never), t);
    // An empty index (every row brought back) with the archive gone is not a trouble.
    assert.equal(indexTrouble(facts(indexOf(), 0, 0, false)), null);
  });

  test('a healthy index costs no look at the archive rows or the mirror', () => {
    let asked = 0;
    const f = {
      ...facts(indexOf(['mf:A', 'x']), 0, 0),
      archiveRows: () => ++asked,
      mirrorRows: () => ++asked,
    };
    assert.equal(indexTrouble(f), null);
    assert.equal(asked, 0);
  });

  test('rebuilt from the archive: every kind, an edited key found by its 明細ID, a cleared key named', () => {
    const csv = csvKey('○○銀行', '2026-05-01', 220, 'ﾃｽｳﾘﾖｳ', 1);
    const rows = [
      rec({ キー: 'mf:A', 明細ID: 'A', 状態: '完了', MF仕訳ID: 'J1' }),
      rec({ キー: csv, 口座: '○○銀行', 状態: '完了', MF仕訳ID: 'J2', 摘要: '書き換えた' }),
      rec({ キー: 'evt:shop:o1', 状態: '除外' }),
      rec({ キー: 'mf:D', 明細ID: 'D', 状態: '完了' }),
      rec({ キー: 'mf:edited', 明細ID: 'E', 状態: '除外' }),
      rec({ キー: '', 明細ID: 'F', 状態: '完了', MF仕訳ID: 'J3' }),
      rec({ キー: '', 状態: '除外' }),
      rec({ キー: 'csv:not-hex', 状態: '除外' }),
    ].map((record, i) => ({ rowNumber: i + 2, record }));
    const { index, unindexed } = indexFromArchive(rows, rows.length);
    assert.equal(archivedKind(index, 'mf:A'), 'm');
    assert.equal(archivedKind(index, csv), 'c');
    assert.equal(archivedKind(index, 'evt:shop:o1'), 'x');
    assert.equal(archivedKind(index, 'mf:D'), 'd');
    assert.equal(archivedKind(index, 'mf:E'), 'x');
    assert.equal(archivedKind(index, 'mf:edited'), 'x');
    assert.equal(archivedKind(index, 'mf:F'), 'm');
    assert.deepEqual(unindexed, [8, 9]);
    assert.equal(index.sheetRows, rows.length);
    // Two rows with one key: the kind with a journal wins.
    const twice = indexFromArchive(
      [
        { rowNumber: 2, record: rec({ キー: 'mf:T', 明細ID: 'T', 状態: '除外' }) },
        { rowNumber: 3, record: rec({ キー: 'mf:T', 明細ID: 'T', 状態: '完了', MF仕訳ID: 'J' }) },
        { rowNumber: 4, record: rec({ キー: 'mf:T', 明細ID: 'T', 状態: '除外' }) },
      ],
      3,
    );
    assert.equal(archivedKind(twice.index, 'mf:T'), 'm');
  });

  test('one row in two places, or a line imported again beside its archived row', () => {
    const archivedRow = rec({ 初回検知: '2026-01-01T00:00:00Z', 状態: '除外' });
    assert.ok(sameRow(rec({ 初回検知: '2026-01-01T00:00:00Z', 状態: '除外' }), archivedRow));
    // A bring-back a person then acted on is still the same row.
    assert.ok(sameRow(rec({ 初回検知: '2026-01-01T00:00:00Z', 状態: '完了' }), archivedRow));
    assert.ok(!sameRow(rec({ 初回検知: '2026-11-30T00:00:00Z', 状態: '未判定' }), archivedRow));
    assert.ok(!sameRow(rec({ 初回検知: '2026-11-30T00:00:00Z', 状態: '除外' }), archivedRow));
    // 台帳を復元 rebuilds a 完了 row from its journal with a new 初回検知.
    const done = rec({ 初回検知: '2026-01-01T00:00:00Z', 状態: '完了', MF仕訳ID: 'J1' });
    assert.ok(sameRow(rec({ 初回検知: 'later', 状態: '完了', MF仕訳ID: 'J1' }), done));
    assert.ok(!sameRow(rec({ 初回検知: 'later', 状態: '完了', MF仕訳ID: 'J2' }), done));
    // Only a row never sent and with nothing pending may leave the 台帳.
    for (const state of ['未判定', '要確認', '送信待ち', '除外'] as const)
      assert.ok(removableReimport(rec({ 状態: state })), state);
    for (const state of ['送信中', '不明', '完了', '失敗'] as const)
      assert.ok(!removableReimport(rec({ 状態: state })), state);
    assert.ok(!removableReimport(rec({ 状態: '送信待ち', 試行回数: 1 })));
    assert.ok(!removableReimport(rec({ 状態: '要確認', MF仕訳ID: 'J' })));
    assert.ok(!removableReimport(rec({ 状態: '要確認', 操作: '承認' })));
  });

  test('posting guard: a 送信待ち row whose key is archived goes to 要確認, nothing else is touched', () => {
    const rows = [
      rec({ キー: 'mf:A', 状態: '送信待ち' }),
      rec({ キー: 'mf:B', 状態: '送信待ち' }),
      rec({ キー: 'mf:A', 状態: '未判定' }),
    ].map((record, i) => ({ rowNumber: i + 2, record }));
    const archived = (key: string) => key === 'mf:A';
    const changes = guardArchivedKeys(rows, 'now', archived);
    assert.deepEqual(
      changes.map((c) => [c.rowNumber, c.patch.状態]),
      [[2, '要確認']],
    );
    assert.equal(changes[0].patch.メモ, ARCHIVED_KEY_MEMO);
    assert.deepEqual(guardArchivedKeys(rows, 'now', undefined), []);
  });
});

describe('archivedJournal', () => {
  test('a journal whose transaction_id spells its escapes in lower case is still the archived row’s (seed 45)', () => {
    const index = emptyIndex();
    index.entries.set(tagDigits(mfKey('%2BlkDJNl7U7yRiJup5mv4iw%3D%3D')), 'm');
    const held = archivedJournal(index);
    assert.equal(held('', '%2BlkDJNl7U7yRiJup5mv4iw%3D%3D'), true);
    assert.equal(held('', '%2blkDJNl7U7yRiJup5mv4iw%3d%3d'), true);
    assert.equal(held('', '%2BotherLine%3D%3D'), false);
  });
});
