/**
 * 古い行をアーカイブ as an instance of the exactly-once skeleton (src/core/archive-move.ts), over fake ports
 * and without the emulator: the index entries (the intent) are written, pending, before any copy exists;
 * a copy that does not read back goes back to the 台帳; a row edited meanwhile stays; a run killed between
 * the intent and the copy leaves a state the next run settles and moves once; refusals move nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ARCHIVE_HEADERS,
  ARCHIVE_MSG,
  ARCHIVED_AT,
  type ArchiveIndex,
  emptyIndex,
  formatIndex,
  type IndexTrouble,
} from '../../src/core/archive';
import { copyOutcome, moveOldRows, sameCells } from '../../src/core/archive-move';
import type { ArchiveMovePorts, Grid, MirrorMark } from '../../src/core/archive-ports';
import { SETTLES_TO } from '../../src/core/exactly-once/outcomes';
import { emptyRecord } from '../../src/core/intake';
import { tagDigits } from '../../src/core/keys';
import type { LedgerRecord } from '../../src/core/ledger';
import { DUPLICATE_HEADERS, LEDGER_HEADERS } from '../../src/core/schema';

const CUTOFF = '2026-06-01';
const NOW = '2026-11-01T00:00:00.000Z';

function record(n: number, patch: Partial<LedgerRecord> = {}): LedgerRecord {
  return {
    ...emptyRecord(),
    キー: `mf:A${n}`,
    明細ID: `A${n}`,
    状態: '完了',
    MF仕訳ID: `J${n}`,
    取引日: '2026-01-10',
    金額: 1000 + n,
    初回検知: `2026-01-1${n}T00:00:00.000Z`,
    更新日時: '2026-02-01T00:00:00.000Z',
    完了日時: '2026-02-01T00:00:00.000Z',
    ...patch,
  };
}

const asRow = (r: LedgerRecord): unknown[] => LEDGER_HEADERS.map((h) => r[h]);

function copyIndex(index: ArchiveIndex): ArchiveIndex {
  return { entries: new Map(index.entries), sheetRows: index.sheetRows };
}

/** A workbook in memory: what each port call did, in order, and what the sheets hold. */
class FakeBook {
  ledger: Grid;
  archive: Grid = [[...ARCHIVE_HEADERS]];
  /** The index as last written, and the counts mirror's pending mark. */
  index: ArchiveIndex = emptyIndex();
  cells = 0;
  pending = false;
  trouble: IndexTrouble | null = null;
  duplicateSheet: unknown[][] | null = null;
  calls: string[] = [];
  /** What the index held at each append (the intent must be there before the copy). */
  atAppend: { entries: Set<string>; pending: boolean }[] = [];
  /** Changes what the append wrote before it is read back (a cell Sheets stored otherwise). */
  mangle: ((rows: Grid) => void) | null = null;
  /** Runs just after the append (a person editing the 台帳 meanwhile, or the run killed). */
  afterAppend: (() => void) | null = null;

  constructor(rows: readonly LedgerRecord[]) {
    this.ledger = [[...LEDGER_HEADERS], ...rows.map(asRow)];
  }

  private log<T>(name: string, value: () => T): T {
    this.calls.push(name);
    return value();
  }

  private deleteFrom(grid: Grid, before: Grid, rows: ReadonlySet<number>) {
    assert.deepEqual(grid, before, 'deletes from the grid it just read');
    const after = before.filter((_, i) => !rows.has(i));
    grid.splice(0, grid.length, ...after);
    return { deleted: rows.size, putBack: 0, after: after.map((r) => [...r]) };
  }

  ports(): ArchiveMovePorts {
    return {
      lock: {
        acquire: () => {
          this.calls.push('lock');
          return true;
        },
        flushAndRelease: () => {
          this.calls.push('release');
        },
      },
      index: {
        read: () => {
          this.calls.push('index.read');
          return { index: copyIndex(this.index), cells: this.cells, trouble: this.trouble };
        },
        write: (index: ArchiveIndex, _cells: number, mark?: MirrorMark) => {
          this.calls.push(`index.write${mark?.pending === true ? ' pending' : ''}`);
          this.index = copyIndex(index);
          this.cells = formatIndex(index).length;
          if (mark?.pending !== undefined) this.pending = mark.pending;
        },
        countCopies: () => this.calls.push('index.countCopies'),
        finish: (index: ArchiveIndex) => {
          this.calls.push('index.finish');
          assert.deepEqual(index, this.index, 'the run finishes on the index it wrote');
          this.pending = false;
        },
        unfinished: () => this.log('index.unfinished', () => this.pending),
      },
      ledger: {
        read: () => this.log('ledger.read', () => this.ledger.map((r) => [...r])),
        deleteRows: (before, rows) =>
          this.log('ledger.delete', () => this.deleteFrom(this.ledger, before, rows)),
      },
      openArchive: () => {
        this.calls.push('archive.open');
        return {
          read: () => this.log('archive.read', () => this.archive.map((r) => [...r])),
          deleteRows: (before, rows) =>
            this.log('archive.delete', () => this.deleteFrom(this.archive, before, rows)),
          lastRow: () => this.log('archive.lastRow', () => this.archive.length),
          appendAndReadBack: (rows, width) => {
            this.calls.push('archive.append');
            this.atAppend.push({ entries: new Set(this.index.entries.keys()), pending: this.pending });
            const first = this.archive.length + 1;
            const written = rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ''));
            this.mangle?.(written);
            this.archive.push(...written);
            this.afterAppend?.();
            return { first, back: written.map((r) => [...r]) };
          },
        };
      },
      duplicates: () => this.log('duplicates.read', () => this.duplicateSheet),
      watchDoneRows: () => this.log('watch', () => null),
      recordCounts: () => this.calls.push('counts'),
    };
  }

  keysOn(grid: Grid): string[] {
    return grid.slice(1).map((r) => String(r[0]));
  }
}

describe('the archive move over fake ports', () => {
  test('an old row moves: index entry (pending, flushed) → copy read back → 台帳 row deleted by key', () => {
    const book = new FakeBook([record(1), record(2, { 取引日: '2026-09-01' })]);
    const pass = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.equal(pass.refused, undefined);
    assert.equal(pass.moved, 1);
    assert.equal(pass.messages[0], ARCHIVE_MSG.moved(1, CUTOFF, 1));
    assert.deepEqual(book.keysOn(book.ledger), ['mf:A2']);
    assert.deepEqual(book.keysOn(book.archive), ['mf:A1']);
    assert.equal(book.archive[1][ARCHIVE_HEADERS.indexOf(ARCHIVED_AT)], NOW);
    assert.deepEqual([...book.index.entries], [[tagDigits('mf:A1'), 'm']]);
    assert.equal(book.index.sheetRows, 1);
    assert.equal(book.pending, false);
    // The skeleton's order: claim in one section, act, settle in the next (the lock is the held one).
    assert.deepEqual(book.calls, [
      'index.read',
      'ledger.read',
      'watch',
      'archive.open',
      'index.unfinished',
      'archive.lastRow',
      'duplicates.read',
      'lock',
      'archive.read',
      'index.write pending',
      'release',
      'archive.append',
      'lock',
      'index.countCopies',
      'ledger.read',
      'ledger.delete',
      'release',
      'index.finish',
      'counts',
    ]);
  });

  test('the intent comes first: every copied key is in the written index, marked pending, before the append', () => {
    const book = new FakeBook([record(1), record(2), record(3, { 状態: '除外', MF仕訳ID: '' })]);
    moveOldRows(book.ports(), CUTOFF, NOW);
    assert.equal(book.atAppend.length, 1, 'one append for the batch');
    const [seen] = book.atAppend;
    for (const key of ['mf:A1', 'mf:A2', 'mf:A3'])
      assert.ok(seen.entries.has(tagDigits(key)), `${key} indexed before its copy exists`);
    assert.equal(seen.pending, true, 'the run is marked unfinished before the copy');
    const write = book.calls.indexOf('index.write pending');
    assert.ok(write >= 0 && write < book.calls.indexOf('archive.append'));
  });

  test('a copy that does not read back returns to the 台帳: out of the index, its row stays, the next run moves it', () => {
    const book = new FakeBook([record(1), record(2)]);
    book.mangle = (rows) => {
      rows[1][ARCHIVE_HEADERS.indexOf('金額')] = 'garbled';
    };
    const pass = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.equal(pass.moved, 1);
    assert.ok(pass.messages.includes(ARCHIVE_MSG.notVerified(1)));
    assert.deepEqual(book.keysOn(book.ledger), ['mf:A2']);
    assert.deepEqual([...book.index.entries.keys()], [tagDigits('mf:A1')]);
    // The garbled copy is on the sheet but no entry accounts for it (sheetRows 1, two rows): the next
    // run deletes it as a leftover of its own 台帳 row and moves that row again.
    assert.equal(book.index.sheetRows, 1);
    book.mangle = null;
    const next = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.ok(next.messages.includes(ARCHIVE_MSG.orphansDropped(1)), next.messages.join('\n'));
    assert.equal(next.moved, 1);
    assert.deepEqual(book.keysOn(book.ledger), []);
    assert.deepEqual(book.keysOn(book.archive), ['mf:A1', 'mf:A2']);
    assert.equal(book.index.entries.size, 2);
  });

  test('a row a person edits between the copy and the deletion stays on the 台帳', () => {
    const book = new FakeBook([record(1)]);
    book.afterAppend = () => {
      book.ledger[1][LEDGER_HEADERS.indexOf('メモ')] = '確認済み';
    };
    const pass = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.equal(pass.moved, 0);
    assert.ok(pass.messages.includes(ARCHIVE_MSG.editedMeanwhile(1)));
    assert.deepEqual(book.keysOn(book.ledger), ['mf:A1']);
    // In both places now: the next run keeps the 台帳 copy (with the person's edit) and moves it again.
    book.afterAppend = null;
    const next = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.ok(next.messages.includes(ARCHIVE_MSG.resolved(1)), next.messages.join('\n'));
    assert.equal(next.moved, 1);
    assert.deepEqual(book.keysOn(book.archive), ['mf:A1']);
    assert.equal(book.archive[1][LEDGER_HEADERS.indexOf('メモ')], '確認済み');
  });

  test('killed between the intent and the copy: the next run settles the entry and moves the row once', () => {
    const book = new FakeBook([record(1)]);
    const killed = book.ports();
    killed.openArchive = (header) => {
      const sheet = book.ports().openArchive(header);
      sheet.appendAndReadBack = () => {
        throw new Error('killed');
      };
      return sheet;
    };
    assert.throws(() => moveOldRows(killed, CUTOFF, NOW), /killed/);
    assert.equal(book.pending, true);
    assert.ok(book.index.entries.has(tagDigits('mf:A1')));
    assert.deepEqual(book.keysOn(book.archive), []);
    const next = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.equal(next.moved, 1);
    assert.deepEqual(book.keysOn(book.ledger), []);
    assert.deepEqual(book.keysOn(book.archive), ['mf:A1']);
    assert.equal(book.index.entries.size, 1);
    assert.equal(book.index.sheetRows, 1);
    assert.equal(book.pending, false);
  });

  test('nothing old enough: no section claims, no copy, the run still finishes', () => {
    const book = new FakeBook([record(1, { 取引日: '2026-09-01' })]);
    const pass = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.deepEqual(pass, { moved: 0, messages: [ARCHIVE_MSG.none(CUTOFF)] });
    assert.ok(!book.calls.includes('archive.append'));
    assert.ok(!book.calls.some((c) => c.startsWith('index.write')));
    assert.deepEqual(book.calls.slice(-2), ['index.finish', 'counts']);
  });

  test('refusals move nothing and write nothing: an untrusted index, 重複点検 without its headers', () => {
    const book = new FakeBook([record(1)]);
    book.trouble = { kind: 'short', declared: 3, found: 1 };
    const refused = moveOldRows(book.ports(), CUTOFF, NOW);
    assert.ok(refused.refused);
    assert.deepEqual(book.calls, ['index.read']);

    const other = new FakeBook([record(1)]);
    other.duplicateSheet = [DUPLICATE_HEADERS.filter((h) => h !== '状態'), DUPLICATE_HEADERS.map(() => 'x')];
    const pass = moveOldRows(other.ports(), CUTOFF, NOW);
    assert.ok(pass.refused?.includes('重複点検'), pass.refused);
    assert.ok(!other.calls.includes('archive.append'));
    assert.ok(!other.calls.includes('index.finish'));
    assert.deepEqual(other.keysOn(other.ledger), ['mf:A1']);
  });

  test('a read-back is done when every cell but アーカイブ日時 matches, else the claim returns to open', () => {
    const header = ['キー', '金額', ARCHIVED_AT];
    assert.ok(sameCells(header, ['mf:A1', 1000, 'a'], ['mf:A1', 1000, 'b']));
    assert.ok(!sameCells(header, ['mf:A1', 1000, 'a'], ['mf:A1', '1000', 'a']));
    assert.equal(SETTLES_TO[copyOutcome(true)], 'done');
    assert.equal(SETTLES_TO[copyOutcome(false)], 'open');
  });
});
