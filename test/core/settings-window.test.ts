/** The import window's date bounds, the 説明 of each 設定 item, and 初期設定 putting back a renamed header (issue 25). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { planHeaderRestore } from '../../src/core/ledger-shape';
import { BALANCE_HEADERS, LEDGER_HEADERS } from '../../src/core/schema';
import {
  CHOICE_ITEMS,
  dateText,
  INT_ITEMS,
  importWindow,
  parseSettings,
  SETTING_DEFAULTS,
  type SettingRow,
  settingRange,
  WINDOW_DATES,
} from '../../src/core/settings';

const rows = (values: Record<string, unknown>): SettingRow[] =>
  SETTING_DEFAULTS.map(([item, value], i) => ({ item, value: values[item] ?? value, rowNumber: i + 2 }));

describe('取込開始日 / 取込終了日', () => {
  test('years are four digits whatever the input; 0001 is not read as 1901', () => {
    assert.equal(dateText('0001-01-01'), '0001-01-01');
    assert.equal(dateText('1-01-01'), null);
    assert.equal(dateText(new Date(Date.UTC(2026, 3, 1, 3))), '2026-04-01');
    const year1 = new Date(0);
    year1.setFullYear(1, 0, 1);
    assert.equal(dateText(year1), '0001-01-01');
  });

  test('outside 2000-01-01〜2099-12-31 is an error naming the cell, and the window’s problem for every run', () => {
    for (const [item, typed] of [
      ['取込開始日', '1900-01-01'],
      ['取込開始日', '0001-01-01'],
      ['取込開始日', '1999-12-31'],
      ['取込終了日', '2100-01-01'],
    ]) {
      const { settings, problems } = parseSettings(rows({ [item]: typed }));
      const p = problems.find((x) => x.item === item);
      assert.ok(p, typed);
      assert.equal(p.cell, `設定 B${SETTING_DEFAULTS.findIndex(([i]) => i === item) + 2}`);
      assert.match(p.message, /2000-01-01〜2099-12-31/);
      const w = importWindow(settings, '2026-11-30');
      assert.equal(w.problem, `${p.cell} ${p.message}`);
    }
    for (const typed of [WINDOW_DATES.min, WINDOW_DATES.max, '2026-04-01']) {
      const { problems } = parseSettings(rows({ 取込開始日: typed, 取込終了日: WINDOW_DATES.max }));
      assert.deepEqual(problems, [], typed);
    }
  });
});

describe('説明: what may be typed for each item', () => {
  test('every item has one, and it states exactly the bounds parseSettings enforces', () => {
    for (const [item] of SETTING_DEFAULTS) assert.notEqual(settingRange(item), '', item);
    for (const [item, [fallback, min, max]] of Object.entries(INT_ITEMS)) {
      assert.ok(settingRange(item).includes(`${min}〜${max} の整数`), item);
      if (item !== 'アーカイブまでの月数') assert.ok(settingRange(item).includes(`空なら ${fallback}`), item);
    }
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(INT_ITEMS)),
        fc.integer({ min: -20, max: 20_000 }),
        (item, n) => {
          const [, min, max] = INT_ITEMS[item as keyof typeof INT_ITEMS];
          const accepted = !parseSettings(rows({ [item]: String(n) })).problems.some((p) => p.item === item);
          return accepted === (n >= min && n <= max);
        },
      ),
    );
    for (const [item, options] of Object.entries(CHOICE_ITEMS)) {
      for (const o of options) assert.ok(settingRange(item).includes(o), `${item} ${o}`);
      assert.ok(parseSettings(rows({ [item]: 'ほか' })).problems.some((p) => p.item === item));
    }
  });
});

describe('初期設定 puts back a header typed over on 残高照合', () => {
  const header = [...BALANCE_HEADERS] as string[];
  const data = ['A', '普通預金', '', '2026-04-30', 1, '', '約120万円', '', ''];

  test('the renamed column between its neighbours, or still holding the header’s words, gets it back', () => {
    for (const renamed of ['通帳残高（手入力）', 'passbook']) {
      const h = header.slice();
      h[6] = renamed;
      const plan = planHeaderRestore('残高照合', [h, data]);
      assert.deepEqual(plan.place, [{ column: 6, header: '通帳残高', replaced: renamed }], renamed);
      assert.deepEqual(plan.append, []);
    }
    // Moved away from its neighbours but still named: found by its words.
    const moved = [
      '口座',
      '勘定科目',
      '補助科目',
      '月末',
      'MFの残高',
      '明細の残高',
      '差額',
      '説明',
      '通帳残高 手入力',
    ];
    assert.deepEqual(planHeaderRestore('残高照合', [moved]).place, [
      { column: 8, header: '通帳残高', replaced: '通帳残高 手入力' },
    ]);
  });

  test('a column of the person’s own elsewhere is not taken; the 台帳 keeps its stricter rule', () => {
    const h = header.filter((x) => x !== '通帳残高');
    h.push('メモ');
    const plan = planHeaderRestore('残高照合', [h]);
    assert.deepEqual(plan.place, []);
    assert.deepEqual(plan.append, ['通帳残高']);
    // On the 台帳 a renamed column is relabelled only on the remembered layout's word (ledger-shape.ts).
    const ledger = [...LEDGER_HEADERS] as string[];
    ledger[ledger.indexOf('摘要')] = '摘要メモ';
    assert.deepEqual(planHeaderRestore('台帳', [ledger]).place, []);
  });
});
