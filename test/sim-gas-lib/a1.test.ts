import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  columnToLetters,
  lettersToColumn,
  MAX_COLUMNS,
  parseA1,
  quoteSheetName,
  toA1,
} from '../../sim/gas/lib/a1';

describe('columnToLetters / lettersToColumn', () => {
  it('maps the bijective base-26 boundaries', () => {
    const cases: Array<[number, string]> = [
      [1, 'A'],
      [26, 'Z'],
      [27, 'AA'],
      [52, 'AZ'],
      [53, 'BA'],
      [702, 'ZZ'],
      [703, 'AAA'],
      [MAX_COLUMNS, 'ZZZ'],
    ];
    for (const [n, s] of cases) {
      assert.equal(columnToLetters(n), s);
      assert.equal(lettersToColumn(s), n);
      assert.equal(lettersToColumn(s.toLowerCase()), n);
    }
  });

  it('rejects non-positive or fractional columns and non-letters', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) assert.throws(() => columnToLetters(n), RangeError);
    for (const s of ['', 'A1', 'Ä', ' A']) assert.throws(() => lettersToColumn(s), RangeError);
  });

  it('round-trips every column number (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (n) => lettersToColumn(columnToLetters(n)) === n),
    );
  });
});

describe('parseA1', () => {
  const ok: Array<[string, object]> = [
    ['A1', { row: 1, col: 1, numRows: 1, numCols: 1 }],
    ['a1', { row: 1, col: 1, numRows: 1, numCols: 1 }],
    ['$B$2', { row: 2, col: 2, numRows: 1, numCols: 1 }],
    ['B$2', { row: 2, col: 2, numRows: 1, numCols: 1 }],
    ['A1:C3', { row: 1, col: 1, numRows: 3, numCols: 3 }],
    ['C3:A1', { row: 1, col: 1, numRows: 3, numCols: 3 }],
    ['A3:C1', { row: 1, col: 1, numRows: 3, numCols: 3 }],
    ['A:A', { row: 1, col: 1, numRows: null, numCols: 1 }],
    ['C:A', { row: 1, col: 1, numRows: null, numCols: 3 }],
    ['B2:B', { row: 2, col: 2, numRows: null, numCols: 1 }],
    ['B:B2', { row: 2, col: 2, numRows: null, numCols: 1 }],
    ['1:3', { row: 1, col: 1, numRows: 3, numCols: null }],
    ['5:2', { row: 2, col: 1, numRows: 4, numCols: null }],
    ['A2:3', { row: 2, col: 1, numRows: 2, numCols: null }],
    ['ZZZ10000000', { row: 10_000_000, col: MAX_COLUMNS, numRows: 1, numCols: 1 }],
    ['Sheet1!A1:B2', { sheetName: 'Sheet1', row: 1, col: 1, numRows: 2, numCols: 2 }],
    ["'シート 1'!A1", { sheetName: 'シート 1', row: 1, col: 1, numRows: 1, numCols: 1 }],
    ["'it''s'!B:C", { sheetName: "it's", row: 1, col: 2, numRows: null, numCols: 2 }],
    ["'a!b'!A1", { sheetName: 'a!b', row: 1, col: 1, numRows: 1, numCols: 1 }],
    ['台帳!$A$2:$F', { sheetName: '台帳', row: 2, col: 1, numRows: null, numCols: 6 }],
  ];
  for (const [a1, expected] of ok) {
    it(`parses ${a1}`, () => assert.deepEqual(parseA1(a1), expected));
  }

  it("throws Apps Script's 'Range not found' for anything else", () => {
    const bad = [
      '',
      'A',
      '3',
      'A0',
      'A-1',
      'AAAA1',
      'A10000001',
      'A1:B2:C3',
      'A1:',
      ':A1',
      'A:3',
      '$A$',
      '$$A1',
      'A1 ',
      ' A1',
      'Sheet 1!A1',
      '!A1',
      "'x!A1",
      "''!A1",
      "'x'A1",
      'Sheet1!',
      'R1C1',
      'MyNamedRange',
      'A1.5',
    ];
    for (const a1 of bad) assert.throws(() => parseA1(a1), { message: 'Range not found' }, a1);
  });

  it('round-trips toA1 output, including open-ended ranges (property)', () => {
    const size = fc.option(fc.integer({ min: 1, max: 500 }), { nil: null });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 2000 }),
        size,
        size,
        (r, c, nr, nc) => {
          fc.pre(nr !== null || nc !== null);
          const a1 = toA1(r, c, nr, nc);
          const p = parseA1(a1);
          // An open-ended range starting at row/column 1 is written as `A:C` / `2:5`, which reads back the same.
          assert.deepEqual(p, { row: r, col: c, numRows: nr, numCols: nc });
        },
      ),
    );
  });

  it('reads back a sheet name after quoteSheetName (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }), (name) => {
        const p = parseA1(`${quoteSheetName(name)}!B3`);
        assert.equal(p.sheetName, name);
        assert.equal(p.row, 3);
      }),
    );
  });
});

describe('toA1', () => {
  it('formats single cells, blocks and open-ended ranges', () => {
    assert.equal(toA1(1, 1), 'A1');
    assert.equal(toA1(2, 3, 4, 5), 'C2:G5');
    assert.equal(toA1(10, 28, 1, 1), 'AB10');
    assert.equal(toA1(1, 1, 1, 3), 'A1:C1');
    assert.equal(toA1(1, 1, null, 3), 'A:C');
    assert.equal(toA1(2, 2, null, 1), 'B2:B');
    assert.equal(toA1(2, 1, 4, null), '2:5');
    assert.equal(toA1(2, 2, 1, null), 'B2:2');
  });

  it('rejects invalid coordinates', () => {
    assert.throws(() => toA1(0, 1), RangeError);
    assert.throws(() => toA1(1, 1, 0, 1), RangeError);
    assert.throws(() => toA1(1, 1, null, null), RangeError);
  });

  it('quotes sheet names only when needed', () => {
    assert.equal(quoteSheetName('Sheet1'), 'Sheet1');
    assert.equal(quoteSheetName('シート 1'), "'シート 1'");
    assert.equal(quoteSheetName("it's"), "'it''s'");
  });
});
