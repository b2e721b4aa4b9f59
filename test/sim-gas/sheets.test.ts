/** SpreadsheetApp as modelled: coercion, formulas, dimensions, formats, validation, finders, protection. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GAS_MESSAGES, GuestError } from '../../sim/gas/index';
import { fixtureEmulator } from '../helpers/emulator';

function withExec<T>(fn: (ev: (src: string) => unknown) => T, options = {}): T {
  const emu = fixtureEmulator('', options);
  const a = emu.open();
  try {
    return fn((src) => a.eval(src));
  } finally {
    a.end();
  }
}

const SH = `var sh = SpreadsheetApp.getActiveSheet();`;

describe('values are stored as if typed (USER_ENTERED)', () => {
  test('numbers, booleans, dates, text, apostrophes', () =>
    withExec((ev) => {
      ev(`${SH} sh.getRange('A1:F1').setValues([['007', 'TRUE', '2026-10-01', "'007", 'ｱﾏｿﾞﾝ', '1,234']])`);
      const row = ev(
        `${SH} sh.getRange('A1:F1').getValues()[0].map(function (v) { return v instanceof Date ? 'date:' + v.getDate() : v; })`,
      );
      assert.deepEqual(row, [7, true, 'date:1', '007', 'ｱﾏｿﾞﾝ', 1234]);
    }));

  test('a leading = makes a formula; an apostrophe keeps it text and is not stored', () =>
    withExec((ev) => {
      ev(
        `${SH} sh.getRange('A1:B1').setValues([['=HYPERLINK("http://example.com","click")', "'=HYPERLINK(1)"]])`,
      );
      assert.deepEqual(ev(`${SH} sh.getRange('A1:B1').getFormulas()[0]`), [
        '=HYPERLINK("http://example.com","click")',
        '',
      ]);
      assert.deepEqual(ev(`${SH} sh.getRange('A1:B1').getValues()[0]`), ['click', '=HYPERLINK(1)']);
    }));

  test("plain text format '@' keeps number-looking text but, by default, not a leading =", () =>
    withExec((ev) => {
      ev(
        `${SH} sh.getRange('A1:B1').setNumberFormat('@'); sh.getRange('A1:B1').setValues([['007', '=1+2']])`,
      );
      assert.deepEqual(ev(`${SH} sh.getRange('A1:B1').getValues()[0]`), ['007', 3]);
      assert.deepEqual(ev(`${SH} sh.getRange('A1:B1').getFormulas()[0]`), ['', '=1+2']);
    }));

  test("with plainTextStopsFormulas the '@' format alone keeps = as text (the undocumented other way)", () =>
    withExec(
      (ev) => {
        ev(`${SH} sh.getRange('A1').setNumberFormat('@'); sh.getRange('A1').setValue('=1+2')`);
        assert.equal(ev(`${SH} sh.getRange('A1').getValue()`), '=1+2');
      },
      { plainTextStopsFormulas: true },
    ));

  test("an apostrophe written into an '@' cell: kept as a character by default, stripped when switched", () => {
    const write = `${SH} sh.getRange('A1:B1').setNumberFormat('@'); sh.getRange('A1:C1').setValues([["'mf:1", "'=1+2", "'007"]])`;
    const read = `${SH} sh.getRange('A1:C1').getValues()[0]`;
    withExec((ev) => {
      ev(write);
      // C1 is in the automatic format: stripped in every world (documented).
      assert.deepEqual(ev(read), ["'mf:1", "'=1+2", '007']);
    });
    withExec(
      (ev) => {
        ev(write);
        assert.deepEqual(ev(read), ['mf:1', '=1+2', '007']);
      },
      { plainTextApostrophe: 'stripped' },
    );
  });

  test('cellLimitCountsApostrophe: false lets a quoted 50,000-character text in (refused by default)', () => {
    const write = `${SH} try { sh.getRange('A1').setValues([["'" + new Array(50001).join('x')]]); 'ok' } catch (e) { e.message }`;
    withExec((ev) => assert.match(String(ev(write)), /maximum of 50000 characters/));
    withExec((ev) => assert.equal(ev(write), 'ok'), { cellLimitCountsApostrophe: false });
  });

  test('display values follow number formats', () =>
    withExec((ev) => {
      ev(
        `${SH} sh.getRange('A1:B1').setValues([[1234567, 0.5]]); sh.getRange('A1').setNumberFormat('#,##0'); sh.getRange('B1').setNumberFormat('0%')`,
      );
      assert.deepEqual(ev(`${SH} sh.getRange('A1:B1').getDisplayValues()[0]`), ['1,234,567', '50%']);
    }));

  test('cells over 50,000 characters are refused with the real message', () =>
    withExec((ev) => {
      assert.equal(
        ev(`${SH} try { sh.getRange('A1').setValue(new Array(50002).join('x')) } catch (e) { e.message }`),
        GAS_MESSAGES.cellTooLong,
      );
    }));
});

describe('ranges', () => {
  test('setValues checks dimensions with the real messages', () =>
    withExec((ev) => {
      assert.equal(
        ev(`${SH} try { sh.getRange(1, 1, 2, 2).setValues([[1, 2]]) } catch (e) { e.message }`),
        GAS_MESSAGES.rowsMismatch(1, 2),
      );
      assert.equal(
        ev(`${SH} try { sh.getRange(1, 1, 1, 2).setValues([[1, 2, 3]]) } catch (e) { e.message }`),
        GAS_MESSAGES.columnsMismatch(3, 2),
      );
    }));

  test('A1 and row/column overloads, getLastRow/Column, getDataRange, offset', () =>
    withExec((ev) => {
      ev(`${SH} sh.getRange('B2:C3').setValues([[1, 2], [3, 4]])`);
      assert.deepEqual(ev(`${SH} [sh.getLastRow(), sh.getLastColumn(), sh.getDataRange().getA1Notation()]`), [
        3,
        3,
        'A1:C3',
      ]);
      assert.deepEqual(ev(`${SH} sh.getRange(2, 2, 2, 2).getValues()`), [
        [1, 2],
        [3, 4],
      ]);
      assert.equal(ev(`${SH} sh.getRange('B2').offset(1, 1).getValue()`), 4);
      assert.equal(ev(`${SH} sh.getRange('C:C').getNumRows()`), 1000);
    }));

  test('ranges outside the sheet are refused; appendRow and insertRowsAfter grow it', () =>
    withExec((ev) => {
      assert.equal(
        ev(`${SH} try { sh.getRange(1001, 1) } catch (e) { e.message }`),
        GAS_MESSAGES.outsideSheet,
      );
      ev(`${SH} sh.insertRowsAfter(1000, 5); sh.getRange(1005, 1).setValue('x')`);
      assert.equal(ev(`${SH} sh.getMaxRows()`), 1005);
      ev(`${SH} sh.appendRow(['y'])`);
      assert.deepEqual(ev(`${SH} [sh.getLastRow(), sh.getMaxRows()]`), [1006, 1006]);
    }));

  test('TextFinder finds whole cells on a sheet', () =>
    withExec((ev) => {
      ev(`${SH} sh.getRange('A1:A4').setValues([['mf:a'], ['mf:ab'], ['mf:a'], ['x']])`);
      const rows = ev(
        `${SH} sh.createTextFinder('mf:a').matchEntireCell(true).findAll().map(function (r) { return r.getRow(); })`,
      );
      assert.deepEqual(rows, [1, 3]);
      assert.equal(ev(`${SH} sh.createTextFinder('mf:').findAll().length`), 3);
    }));

  test('checkboxes, data validation and conditional formats are stored and read back', () =>
    withExec((ev) => {
      ev(`${SH} sh.getRange('A1:A2').insertCheckboxes(); sh.getRange('A1').check();`);
      assert.deepEqual(
        ev(
          `${SH} [sh.getRange('A1').isChecked(), sh.getRange('A2').isChecked(), sh.getRange('A1:A2').isChecked()]`,
        ),
        [true, false, null],
      );
      ev(
        `${SH} sh.getRange('B1:B9').setDataValidation(SpreadsheetApp.newDataValidation().requireValueInList(['承認', '除外', '再試行'], true).setAllowInvalid(false).build())`,
      );
      assert.deepEqual(
        ev(
          `${SH} var v = sh.getRange('B5').getDataValidation(); [v.getCriteriaType(), v.getCriteriaValues()[0], v.getAllowInvalid()]`,
        ),
        ['VALUE_IN_LIST', ['承認', '除外', '再試行'], false],
      );
      ev(
        `${SH} sh.setConditionalFormatRules([SpreadsheetApp.newConditionalFormatRule().whenTextEqualTo('完了').setBackground('#d9ead3').setRanges([sh.getRange('C:C')]).build()])`,
      );
      assert.deepEqual(
        ev(
          `${SH} var r = sh.getConditionalFormatRules()[0]; [r.getBooleanCondition().getCriteriaType(), r.getBooleanCondition().getBackground(), r.getRanges()[0].getA1Notation()]`,
        ),
        ['TEXT_EQUAL_TO', '#d9ead3', 'C1:C1000'],
      );
    }));

  test('frozen rows, bold headers and notes are stored', () =>
    withExec((ev) => {
      ev(
        `${SH} sh.setFrozenRows(1); sh.getRange('A1:C1').setFontWeight('bold'); sh.getRange('A2').setNote('メモ')`,
      );
      assert.deepEqual(
        ev(`${SH} [sh.getFrozenRows(), sh.getRange('B1').getFontWeight(), sh.getRange('A2').getNote()]`),
        [1, 'bold', 'メモ'],
      );
    }));

  test('sorting rows below the header moves whole rows', () =>
    withExec((ev) => {
      ev(
        `${SH} sh.getRange('A1:B4').setValues([['k', 'n'], ['c', 3], ['a', 1], ['b', 2]]); sh.setFrozenRows(1); sh.sort(2, false)`,
      );
      assert.deepEqual(ev(`${SH} sh.getDataRange().getValues()`), [
        ['k', 'n'],
        ['c', 3],
        ['b', 2],
        ['a', 1],
      ]);
    }));
});

describe('spreadsheet and protections', () => {
  test('insertSheet refuses a duplicate name; getSheetByName finds sheets', () =>
    withExec((ev) => {
      ev(`SpreadsheetApp.getActive().insertSheet('台帳')`);
      assert.match(
        String(ev(`try { SpreadsheetApp.getActive().insertSheet('台帳') } catch (e) { e.message }`)),
        /already exists/,
      );
      assert.equal(ev(`SpreadsheetApp.getActive().getSheetByName('台帳').getName()`), '台帳');
      assert.equal(ev(`SpreadsheetApp.getActive().getSheetByName('ない')`), null);
    }));

  test('a fully protected range refuses edits by a non-editor; warning-only does not', () => {
    const emu = fixtureEmulator('', { editors: ['bob@example.com'] });
    const owner = emu.open();
    owner.eval(
      `var p = SpreadsheetApp.getActiveSheet().getRange('A1:A5').protect(); p.setDescription('system'); p.removeEditors(['bob@example.com']);`,
    );
    owner.end();
    const bob = emu.open({ user: 'bob@example.com' });
    assert.throws(
      () => bob.eval(`SpreadsheetApp.getActiveSheet().getRange('A2').setValue('x')`),
      (e: unknown) => e instanceof GuestError && e.message === GAS_MESSAGES.protectedCell,
    );
    bob.eval(`SpreadsheetApp.getActiveSheet().getProtections(SpreadsheetApp.ProtectionType.RANGE).length`);
    bob.end();
    const owner2 = emu.open();
    owner2.eval(`SpreadsheetApp.getActiveSheet().getProtections('RANGE')[0].setWarningOnly(true)`);
    owner2.end();
    const bob2 = emu.open({ user: 'bob@example.com' });
    bob2.eval(`SpreadsheetApp.getActiveSheet().getRange('A2').setValue('x')`);
    assert.equal(bob2.end().status, 'ok');
  });

  test('getUi works in a menu execution and throws the real message in a trigger execution', () => {
    const emu = fixtureEmulator('function ui() { SpreadsheetApp.getUi().alert("hi"); return "shown"; }');
    assert.equal(emu.run('ui', { kind: 'menu' }).value, 'shown');
    const t = emu.run('ui', { kind: 'trigger' });
    assert.equal(t.status, 'error');
    assert.equal(t.error?.message, GAS_MESSAGES.getUiFromTrigger);
    assert.equal(emu.world.ui.events.filter((e) => e.type === 'alert').length, 1);
  });
});

describe('counters', () => {
  test('reads, writes and flushes are counted per execution', () => {
    const emu = fixtureEmulator(`function batch() {
      var sh = SpreadsheetApp.getActiveSheet();
      var v = sh.getRange(1, 1, 100, 3).getValues();
      sh.getRange(1, 1, 100, 3).setValues(v.map(function (r, i) { return [i, 'x', true]; }));
      SpreadsheetApp.flush();
    }`);
    const r = emu.run('batch');
    assert.equal(r.counters.sheetsReads, 1);
    assert.equal(r.counters.sheetsWrites, 1);
    assert.equal(r.counters.flushes, 1);
  });
});

describe('Sheet.copyTo (same spreadsheet)', () => {
  test('copies values, formulas, formats and rules as a new last sheet named "Copy of …", including the caller’s pending writes', () =>
    withExec((ev) => {
      ev(`${SH} sh.setName('台帳'); sh.getRange('A1:B2').setValues([['キー', '金額'], ["'=1+1", 5]]);
          sh.getRange('C2').setFormula('=B2*2'); sh.setFrozenRows(1);`);
      const info =
        ev(`var c = SpreadsheetApp.getActiveSpreadsheet().getSheetByName('台帳').copyTo(SpreadsheetApp.getActiveSpreadsheet());
        c.setName('台帳バックアップ'); c.hideSheet();
        [c.getName(), c.getRange('A1:B2').getValues(), c.getRange('C2').getFormula(), c.getFrozenRows(), c.isSheetHidden(),
         SpreadsheetApp.getActiveSpreadsheet().getSheets().map(function (s) { return s.getName(); })]`);
      assert.deepEqual(info, [
        '台帳バックアップ',
        [
          ['キー', '金額'],
          ['=1+1', 5],
        ],
        '=B2*2',
        1,
        true,
        ['台帳', '台帳バックアップ'],
      ]);
      const second = ev(
        `SpreadsheetApp.getActiveSpreadsheet().getSheetByName('台帳').copyTo(SpreadsheetApp.getActiveSpreadsheet()).getName()`,
      );
      assert.equal(second, 'Copy of 台帳');
      ev(`SpreadsheetApp.getActiveSpreadsheet().getSheetByName('台帳').getRange('B2').setValue(7)`);
      assert.deepEqual(
        ev(`SpreadsheetApp.getActiveSpreadsheet().getSheetByName('Copy of 台帳').getRange('B2').getValue()`),
        5,
        'a copy, not a view',
      );
    }));
});

describe('embedded charts', () => {
  test('built, inserted, read back, updated and removed; ids unique; kept by copyTo', () =>
    withExec((ev) => {
      const id = ev(
        `${SH} var c = sh.newChart().setChartType(Charts.ChartType.COLUMN).addRange(sh.getRange('A1:B4'))
           .setPosition(2, 5, 0, 0).setOption('title', '残高').build();
         if (c.getChartId() !== null) throw new Error('id before insert');
         sh.insertChart(c); c.getChartId()`,
      );
      assert.equal(typeof id, 'number');
      assert.deepEqual(
        ev(
          `${SH} var c = sh.getCharts()[0];
           [sh.getCharts().length, c.getChartId(), c.getRanges()[0].getA1Notation(), c.getOptions().get('title'),
            c.getContainerInfo().getAnchorRow(), c.getContainerInfo().getAnchorColumn(), c.modify().getChartType()]`,
        ),
        [1, id, 'A1:B4', '残高', 2, 5, 'COLUMN'],
      );
      const second = ev(
        `${SH} var c = sh.newChart().asPieChart().addRange(sh.getRange('C1:C3')).build(); sh.insertChart(c); c.getChartId()`,
      );
      assert.notEqual(second, id);
      ev(`${SH} var c = sh.getCharts()[0]; sh.updateChart(c.modify().setOption('title', '新').build())`);
      assert.equal(ev(`${SH} sh.getCharts()[0].getOptions().get('title')`), '新');
      const copied = ev(
        `${SH} var c = sh.copyTo(SpreadsheetApp.getActiveSpreadsheet()); c.getCharts().map(function (x) { return x.getChartId(); })`,
      ) as number[];
      assert.equal(copied.length, 2);
      assert.ok(!copied.includes(id as number), 'a copied chart gets its own id');
      ev(`${SH} sh.removeChart(sh.getCharts()[0])`);
      assert.deepEqual(ev(`${SH} sh.getCharts().map(function (x) { return x.getChartId(); })`), [second]);
    }));

  test('a chart needs a type and a range; removing a chart not on the sheet fails', () =>
    withExec((ev) => {
      assert.throws(
        () => ev(`${SH} sh.newChart().addRange(sh.getRange('A1')).build()`),
        /Chart type must be set/,
      );
      assert.throws(
        () => ev(`${SH} sh.newChart().setChartType(Charts.ChartType.BAR).build()`),
        /at least one data range/,
      );
      assert.throws(
        () =>
          ev(
            `${SH} sh.removeChart(sh.newChart().setChartType(Charts.ChartType.BAR).addRange(sh.getRange('A1')).build())`,
          ),
        /does not exist on this sheet/,
      );
    }));
});

describe('Sheet.getRangeList', () => {
  test('setValue writes every range of the list (coerced as typed), clearContent empties them, other cells untouched', () =>
    withExec((ev) => {
      ev(`${SH} sh.getRange('A1:A6').setValues([['a'],['b'],['c'],['d'],['e'],['f']])`);
      ev(`${SH} sh.getRangeList(['A2', 'A4:A5']).setValue("'007")`);
      assert.deepEqual(ev(`${SH} sh.getRange('A1:A6').getValues().map(function (r) { return r[0]; })`), [
        'a',
        '007',
        'c',
        '007',
        '007',
        'f',
      ]);
      ev(`${SH} sh.getRangeList(['A1', 'A6']).clearContent()`);
      assert.deepEqual(ev(`${SH} sh.getRange('A1:A6').getValues().map(function (r) { return r[0]; })`), [
        '',
        '007',
        'c',
        '007',
        '007',
        '',
      ]);
      assert.equal(ev(`${SH} sh.getRangeList(['B2', 'C3:D4']).getRanges().length`), 2);
    }));

  test('a notation that is not a range is refused like getRange', () =>
    withExec((ev) => {
      assert.throws(() => ev(`${SH} sh.getRangeList(['A1', 'not a range']).setValue(1)`), /Range not found/);
    }));
});
