import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type CoerceOptions,
  coerceUserEntered,
  dateToSerial,
  displayValue,
  evaluateFormula,
  formatNumber,
  generalNumber,
  isAutomaticFormat,
  type Stored,
  serialToDate,
} from '../../sim/gas/lib/coerce';

const TZ = 'Asia/Tokyo';
const opts: CoerceOptions = { timeZone: TZ, plainTextStopsFormulas: false };
const c = (input: unknown, o: Partial<CoerceOptions> = {}): Stored =>
  coerceUserEntered(input, { ...opts, ...o });
const jst = (y: number, m: number, d: number, h = 0, mi = 0, s = 0): Date =>
  new Date(Date.UTC(y, m - 1, d, h - 9, mi, s));

describe('coerceUserEntered: non-strings', () => {
  it('stores null/undefined as an empty cell', () => {
    assert.deepEqual(c(null), { value: '' });
    assert.deepEqual(c(undefined), { value: '' });
  });

  it('keeps numbers, booleans and Dates (copying the Date)', () => {
    assert.deepEqual(c(42), { value: 42 });
    assert.deepEqual(c(-0), { value: 0 });
    assert.ok(Object.is(c(-0).value, 0));
    assert.deepEqual(c(true), { value: true });
    const d = new Date();
    const stored = c(d);
    assert.ok(stored.value instanceof Date && stored.value !== d && stored.value.getTime() === d.getTime());
    assert.equal(stored.numberFormat, undefined);
  });

  it('rejects NaN, Infinity and invalid Dates, or stores #NUM! when configured', () => {
    assert.throws(() => c(Number.NaN), /Invalid argument: NaN/);
    assert.throws(() => c(Number.POSITIVE_INFINITY), /Invalid argument: Infinity/);
    assert.throws(() => c(new Date(Number.NaN)), /Invalid argument/);
    assert.deepEqual(c(Number.NaN, { nonFiniteNumbers: 'error-value' }), { value: '#NUM!' });
  });

  it('stringifies other objects, then parses them like typed text', () => {
    assert.deepEqual(c({}), { value: '[object Object]' });
    assert.deepEqual(c(12n), { value: 12 });
  });
});

describe('coerceUserEntered: strings', () => {
  it('treats a leading apostrophe as "text" and strips it', () => {
    assert.deepEqual(c("'=1+2"), { value: '=1+2' });
    assert.deepEqual(c("'007"), { value: '007' });
    assert.deepEqual(c("'TRUE"), { value: 'TRUE' });
    assert.deepEqual(c("''x"), { value: "'x" });
    assert.deepEqual(c("'"), { value: '' });
  });

  it("in an '@' cell keeps the apostrophe as a character by default, strips it when switched", () => {
    // Undocumented either way (reference/gas-platform.md §2.4); 'kept' is the default world.
    assert.deepEqual(c("'2026-10-01", { numberFormat: '@' }), { value: "'2026-10-01" });
    assert.deepEqual(c("'mf:abc", { numberFormat: '@', plainTextApostrophe: 'kept' }), { value: "'mf:abc" });
    assert.deepEqual(c("'=1+2", { numberFormat: '@', plainTextApostrophe: 'kept' }), { value: "'=1+2" });
    assert.deepEqual(c("'2026-10-01", { numberFormat: '@', plainTextApostrophe: 'stripped' }), {
      value: '2026-10-01',
    });
    assert.deepEqual(c("'=1+2", { numberFormat: '@', plainTextApostrophe: 'stripped' }), { value: '=1+2' });
    // The automatic format strips it in both worlds (documented).
    assert.deepEqual(c("'007", { plainTextApostrophe: 'kept' }), { value: '007' });
    assert.deepEqual(c("'007", { numberFormat: '0.###############', plainTextApostrophe: 'kept' }), {
      value: '007',
    });
  });

  it('turns =... into a formula with an evaluated value', () => {
    assert.deepEqual(c('=1+2*3'), { value: 7, formula: '=1+2*3' });
    assert.deepEqual(c('=HYPERLINK("https://example.com/x","明細")'), {
      value: '明細',
      formula: '=HYPERLINK("https://example.com/x","明細")',
    });
    assert.deepEqual(c('=A1'), { value: '#NAME?', formula: '=A1' });
    assert.deepEqual(c('='), { value: '=' });
  });

  it('keeps text as is in an @ (plain text) cell, except formulas unless configured', () => {
    for (const s of ['007', '2026-10-01', 'TRUE', '50%', '1,234', '¥1,200', ' 42 ']) {
      assert.deepEqual(c(s, { numberFormat: '@' }), { value: s });
    }
    assert.deepEqual(c('=1+2', { numberFormat: '@' }), { value: 3, formula: '=1+2' });
    assert.deepEqual(c('=1+2', { numberFormat: '@', plainTextStopsFormulas: true }), { value: '=1+2' });
  });

  it('parses booleans in any case', () => {
    assert.deepEqual(c('TRUE'), { value: true });
    assert.deepEqual(c('false'), { value: false });
    assert.deepEqual(c('True'), { value: true });
    assert.deepEqual(c('yes'), { value: 'yes' });
  });

  it('parses number-looking text', () => {
    const cases: Array<[string, number, string | undefined]> = [
      ['42', 42, undefined],
      ['-3.5', -3.5, undefined],
      ['+7', 7, undefined],
      ['007', 7, undefined],
      ['.5', 0.5, undefined],
      ['1.', 1, undefined],
      [' 42 ', 42, undefined],
      ['-0', 0, undefined],
      ['1,234,567', 1234567, '#,##0'],
      ['-1,234.5', -1234.5, '#,##0.00'],
      ['1e3', 1000, '0.00E+00'],
      ['2.5E-3', 0.0025, '0.00E+00'],
      ['¥1,200', 1200, '"¥"#,##0'],
      ['-¥1,200', -1200, '"¥"#,##0'],
      ['¥-5', -5, '"¥"#,##0'],
      ['$100.15', 100.15, '"$"#,##0.00'],
      ['$100', 100, '"$"#,##0.00'],
      ['50%', 0.5, '0%'],
      ['-5%', -0.05, '0%'],
      ['12.5%', 0.125, '0.00%'],
      ['0.07%', 0.0007, '0.00%'],
      ['1,000%', 10, '0%'],
    ];
    for (const [s, value, numberFormat] of cases) {
      const want: Stored = numberFormat === undefined ? { value } : { value, numberFormat };
      assert.deepEqual(c(s), want, s);
    }
  });

  it('does not override a format the cell already has', () => {
    assert.deepEqual(c('50%', { numberFormat: '0.00' }), { value: 0.5 });
    assert.deepEqual(c('2026-10-01', { numberFormat: '#,##0' }), { value: jst(2026, 10, 1) });
    assert.deepEqual(c('50%', { numberFormat: '0.###############' }), { value: 0.5, numberFormat: '0%' });
  });

  it('parses dates at local midnight (or with time) in the spreadsheet zone', () => {
    const cases: Array<[string, Date, string]> = [
      ['2026-10-01', jst(2026, 10, 1), 'yyyy-mm-dd'],
      ['2026/10/01', jst(2026, 10, 1), 'yyyy/mm/dd'],
      ['2026/1/5', jst(2026, 1, 5), 'yyyy/m/d'],
      ['2026-10-01 12:34', jst(2026, 10, 1, 12, 34), 'yyyy-mm-dd hh:mm'],
      ['2026-10-01 12:34:56', jst(2026, 10, 1, 12, 34, 56), 'yyyy-mm-dd hh:mm:ss'],
      ['2026/10/01 9:05', jst(2026, 10, 1, 9, 5), 'yyyy/mm/dd h:mm'],
      ['2024-02-29', jst(2024, 2, 29), 'yyyy-mm-dd'],
      ['12:34', jst(1899, 12, 30, 12, 34), 'hh:mm'],
      ['9:05:30', jst(1899, 12, 30, 9, 5, 30), 'h:mm:ss'],
    ];
    for (const [s, value, numberFormat] of cases) assert.deepEqual(c(s), { value, numberFormat }, s);
    assert.deepEqual(c('2026-10-01', { timeZone: 'UTC' }).value, new Date(Date.UTC(2026, 9, 1)));
  });

  it('keeps everything else as text', () => {
    const text = [
      '2026-13-01',
      '2026-02-29',
      '2026-10-01T12:34:56Z',
      '2026-10-01T12:34',
      '12-34-56-78',
      '24:00',
      '12:60',
      'mf:BowM%2B==',
      'ｱﾏｿﾞﾝ',
      '１２３',
      '1 2',
      '1,23',
      '0x1F',
      'Infinity',
      'NaN',
      '-',
      '+',
      '.',
      '$',
      '%',
      '¥-',
      '-$-5',
      '',
      '   ',
      'MF-ID:12345',
    ];
    for (const s of text) assert.deepEqual(c(s), { value: s }, s);
  });

  it('counts a leading apostrophe toward the limit by default; not when switched (undocumented)', () => {
    const text = 'x'.repeat(50_000);
    assert.throws(() => c(`'${text}`), /more than the maximum of 50000/);
    assert.deepEqual(c(`'${text}`, { cellLimitCountsApostrophe: false }), { value: text });
    assert.throws(() => c(`'x${text}`, { cellLimitCountsApostrophe: false }), /more than the maximum/);
  });

  it('the counterfactual automaticApostrophe: kept keeps it even in the automatic format', () => {
    assert.deepEqual(c("'mf:a", { automaticApostrophe: 'kept' }), { value: "'mf:a" });
    assert.deepEqual(c("'mf:a"), { value: 'mf:a' });
  });

  it('enforces the 50,000-character cell limit', () => {
    assert.deepEqual(c('x'.repeat(50_000)), { value: 'x'.repeat(50_000) });
    const msg = 'Your input contains more than the maximum of 50000 characters in a single cell.';
    assert.throws(() => c('x'.repeat(50_001)), { message: msg });
    assert.throws(() => c(`=${'1+'.repeat(25_000)}1`), { message: msg });
  });

  it('strips the apostrophe from any text (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => assert.deepEqual(c(`'${s}`), { value: s })));
  });

  it('reads back String(n) as n for every finite number (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        assert.ok(Object.is(c(String(n)).value, n === 0 ? 0 : n));
      }),
    );
  });

  it('reads back every valid yyyy-mm-dd as that local date (property)', () => {
    fc.assert(
      fc.property(
        // From 1952: Japan kept summer time 1948–1951, which the fixed +09:00 of jst() does not model.
        fc.date({ min: new Date('1952-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
        (d) => {
          const text = d.toISOString().slice(0, 10);
          const [y, m, day] = text.split('-').map(Number);
          const stored = c(text);
          assert.deepEqual(stored.value, jst(y, m, day));
          assert.equal(displayValue(stored.value, stored.numberFormat, TZ), text);
        },
      ),
    );
  });
});

describe('evaluateFormula', () => {
  it('does arithmetic with Sheets precedence', () => {
    assert.equal(evaluateFormula('=1+2*3'), 7);
    assert.equal(evaluateFormula('=(1+2)*3'), 9);
    assert.equal(evaluateFormula('=-2^2'), 4);
    assert.equal(evaluateFormula('=2^3^2'), 64);
    assert.equal(evaluateFormula('=10/4'), 2.5);
    assert.equal(evaluateFormula('=50%'), 0.5);
    assert.equal(evaluateFormula('= 1 +  2 '), 3);
    assert.equal(evaluateFormula('=--3'), 3);
    assert.equal(evaluateFormula('=1e3+1'), 1001);
  });

  it('handles strings, &, comparisons and booleans', () => {
    assert.equal(evaluateFormula('="a"&"b"'), 'ab');
    assert.equal(evaluateFormula('="say ""hi"""'), 'say "hi"');
    assert.equal(evaluateFormula('="n="&1.5&TRUE'), 'n=1.5TRUE');
    assert.equal(evaluateFormula('=1<2'), true);
    assert.equal(evaluateFormula('="A"="a"'), true);
    assert.equal(evaluateFormula('=TRUE+1'), 2);
    assert.equal(evaluateFormula('="3"+1'), 4);
    assert.equal(evaluateFormula('=true'), true);
  });

  it('supports SUM and HYPERLINK', () => {
    assert.equal(evaluateFormula('=SUM(1,2,3)'), 6);
    assert.equal(evaluateFormula('=sum(1,"2",TRUE)'), 4);
    assert.equal(evaluateFormula('=SUM()'), 0);
    assert.equal(evaluateFormula('=HYPERLINK("https://x.example/","label")'), 'label');
    assert.equal(evaluateFormula('=HYPERLINK("https://x.example/")'), 'https://x.example/');
    assert.equal(evaluateFormula('=HYPERLINK()'), '#N/A');
  });

  it('returns Sheets error values instead of throwing', () => {
    assert.equal(evaluateFormula('=1/0'), '#DIV/0!');
    assert.equal(evaluateFormula('="a"+1'), '#VALUE!');
    assert.equal(evaluateFormula('=SUM(1,"x")'), '#VALUE!');
    assert.equal(evaluateFormula('=10^400'), '#NUM!');
    assert.equal(evaluateFormula('=A1'), '#NAME?');
    assert.equal(evaluateFormula('=A1+1'), '#NAME?');
    assert.equal(evaluateFormula('=NOW()'), '#NAME?');
    assert.equal(evaluateFormula('=IMPORTXML("http://evil","//a")'), '#NAME?');
    assert.equal(evaluateFormula("=cmd|' /C calc'!A0"), '#NAME?');
    assert.equal(evaluateFormula('=SUM(A1:B2)'), '#NAME?');
    assert.equal(evaluateFormula('=1+'), '#ERROR!');
    assert.equal(evaluateFormula('=(1'), '#ERROR!');
    assert.equal(evaluateFormula('="open'), '#ERROR!');
    assert.equal(evaluateFormula(`=${'('.repeat(5000)}1${')'.repeat(5000)}`), '#ERROR!');
    assert.equal(evaluateFormula(`=${'-'.repeat(5000)}1`), '#ERROR!');
  });

  it('never throws on hostile input (property)', () => {
    const alphabet = fc.constantFrom(...'=+-*/^&%()",.:;!$\'{}[]<>1aA ZzeE9_|\\\n'.split(''));
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: alphabet, maxLength: 60 })),
        (s) => {
          const v = evaluateFormula(`=${s}`);
          assert.ok(['string', 'number', 'boolean'].includes(typeof v));
          if (typeof v === 'number') assert.ok(Number.isFinite(v));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('displayValue', () => {
  it('shows empty cells, booleans and text as is', () => {
    assert.equal(displayValue('', undefined, TZ), '');
    assert.equal(displayValue(true, undefined, TZ), 'TRUE');
    assert.equal(displayValue(false, '0.00', TZ), 'FALSE');
    assert.equal(displayValue('007', '@', TZ), '007');
    assert.equal(displayValue('text', '#,##0', TZ), 'text');
  });

  it('shows numbers in the automatic format like Sheets', () => {
    const cases: Array<[number, string]> = [
      [3, '3'],
      [3.5, '3.5'],
      [-3.5, '-3.5'],
      [1234567, '1234567'],
      [0, '0'],
      [1 / 3, '0.3333333333'],
      [2 / 3, '0.6666666667'],
      [10 / 3, '3.333333333'],
      [0.1 + 0.2, '0.3'],
      [0.000001, '0.000001'],
      [123456789012, '123456789012'],
      [1e20, '1E+20'],
      [-1.5e-12, '-1.5E-12'],
    ];
    for (const [n, s] of cases) {
      assert.equal(displayValue(n, undefined, TZ), s, String(n));
      assert.equal(generalNumber(n), s);
    }
    assert.equal(displayValue(42, '@', TZ), '42');
    assert.equal(displayValue(0.5, 'General', TZ), '0.5');
    assert.equal(displayValue(0.5, '0.###############', TZ), '0.5');
  });

  it('applies number formats', () => {
    const cases: Array<[number, string, string]> = [
      [1234.5, '0', '1235'],
      [1234.5, '0.00', '1234.50'],
      [1.005, '0.00', '1.01'],
      [-0.001, '0.00', '0.00'],
      [1234567.891, '#,##0', '1,234,568'],
      [1234567.891, '#,##0.00', '1,234,567.89'],
      [-1234.5, '#,##0.00', '-1,234.50'],
      [999.995, '#,##0.00', '1,000.00'],
      [0.125, '0%', '13%'],
      [0.125, '0.00%', '12.50%'],
      [1200, '[$¥-411]#,##0', '¥1,200'],
      [-1200, '[$¥-411]#,##0', '-¥1,200'],
      [1200, '"¥"#,##0', '¥1,200'],
      [100.15, '"$"#,##0.00', '$100.15'],
      [1200, '#,##0"円"', '1,200円'],
      [0.5, '#.##', '.5'],
      [-5, '#,##0;(#,##0)', '(5)'],
      [0, '0.00;-0.00;"zero"', 'zero'],
      [1000, '0.00E+00', '1.00E+03'],
      [0.00025, '0.00E+00', '2.50E-04'],
      [7, '000', '007'],
    ];
    for (const [n, f, s] of cases) assert.equal(displayValue(n, f, TZ), s, `${n} ${f}`);
  });

  it('groups integers like Intl (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), (n) => {
        assert.equal(formatNumber(n, '#,##0'), n.toLocaleString('en-US'));
      }),
    );
  });

  it('formats dates with Sheets date patterns', () => {
    const d = jst(2026, 10, 1, 9, 5, 7);
    const cases: Array<[string, string]> = [
      ['yyyy-mm-dd', '2026-10-01'],
      ['yyyy/mm/dd', '2026/10/01'],
      ['yyyy/m/d', '2026/10/1'],
      ['yyyy-mm-dd hh:mm:ss', '2026-10-01 09:05:07'],
      ['yyyy/MM/dd H:mm:ss', '2026/10/01 9:05:07'],
      ['hh:mm', '09:05'],
      ['mm:ss', '05:07'],
      ['h:mm am/pm', '9:05 午前'],
      ['yy/m/d', '26/10/1'],
      ['yyyy"年"m"月"d"日"(ddd)', '2026年10月1日(木)'],
      ['dddd', '木曜日'],
      ['mmm', '10月'],
      ['hh:mm:ss.000', '09:05:07.000'],
    ];
    for (const [f, s] of cases) assert.equal(displayValue(d, f, TZ), s, f);
    assert.equal(displayValue(d, 'mmm d, yyyy (ddd)', TZ, 'en_US'), 'Oct 1, 2026 (Thu)');
    assert.equal(displayValue(d, 'h:mm AM/PM', TZ, 'en_US'), '9:05 AM');
  });

  it('uses ja_JP defaults for Dates in automatic cells', () => {
    assert.equal(displayValue(jst(2026, 10, 1), undefined, TZ), '2026/10/01');
    assert.equal(displayValue(jst(2026, 10, 1, 12, 4, 5), undefined, TZ), '2026/10/01 12:04:05');
    assert.equal(displayValue(jst(2026, 10, 1, 9, 4, 5), undefined, TZ), '2026/10/01 9:04:05');
    assert.equal(displayValue(jst(2026, 10, 1), undefined, TZ, 'en_US'), '10/1/2026');
    // The same instant is a different day in another spreadsheet zone.
    assert.equal(displayValue(jst(2026, 10, 1), undefined, 'UTC'), '2026/09/30 15:00:00');
  });

  it('shows numbers with date formats and dates with number formats via the serial number', () => {
    assert.equal(displayValue(46296.5, 'yyyy-mm-dd hh:mm', TZ), '2026-10-01 12:00');
    assert.equal(displayValue(jst(2026, 10, 1, 12), '0.00', TZ), '46296.50');
    assert.equal(dateToSerial(jst(1899, 12, 31), TZ), 1);
    assert.equal(serialToDate(46296.5, TZ).getTime(), jst(2026, 10, 1, 12).getTime());
  });

  it('recognises automatic formats', () => {
    for (const f of [undefined, '', 'General', '0.###############']) assert.ok(isAutomaticFormat(f));
    for (const f of ['@', '0', 'yyyy-mm-dd']) assert.ok(!isAutomaticFormat(f));
  });
});
