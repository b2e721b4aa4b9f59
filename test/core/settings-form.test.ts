import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SETTING_DEFAULTS } from '../../src/core/settings';
import { problemsOf, settingFields } from '../../src/core/settings-form';

const rows = [
  { item: '取込開始日', value: new Date(2026, 3, 1), rowNumber: 2 },
  { item: '1回の送信上限', value: 200, rowNumber: 3 },
  { item: 'メモ書き', value: 'people may add rows', rowNumber: 4 },
];

test('fields follow the sheet, then the items it lacks, each with its kind', () => {
  const fields = settingFields(rows);
  assert.deepEqual(
    fields.slice(0, 2).map((f) => [f.item, f.value, f.kind]),
    [
      ['取込開始日', '2026-04-01', 'date'],
      ['1回の送信上限', '200', 'int'],
    ],
  );
  assert.equal(fields.length, SETTING_DEFAULTS.length, 'unknown rows are not fields; every known item is');
  assert.deepEqual(fields.find((f) => f.item === '照合間隔（分）')?.options, ['5', '10', '15', '30']);
});

test('problems of proposed values, by item, from the same parser the runs use', () => {
  assert.deepEqual(problemsOf(rows, {}), {});
  const p = problemsOf(rows, { '1回の送信上限': '0', 自動実行: 'たぶん', 取込終了日: '2026-03-01' });
  assert.match(p['1回の送信上限'], /1〜1000/);
  assert.match(p.自動実行, /オン・オフ/);
  assert.match(p.取込終了日, /取込開始日（2026-04-01）より前/);
  assert.equal(Object.keys(p).length, 3);
});
