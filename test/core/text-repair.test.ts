/** planTextRepair: an earlier version's '@' columns back to automatic, and their values as meant. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fingerprint } from '../../src/core/fingerprint';
import { csvKey } from '../../src/core/keys';
import { parseLedger } from '../../src/core/ledger';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { describeTextRepair, planTextRepair } from '../../src/core/text-repair';

const H: string[] = [...LEDGER_HEADERS];
const col = (h: string) => H.indexOf(h);

function row(fields: Record<string, unknown>): unknown[] {
  return H.map((h) => fields[h] ?? '');
}

/** Formats as getNumberFormats gives them: '@' on the six columns the earlier version formatted. */
function legacyFormats(rows: number): string[][] {
  const plain = new Set(['キー', '明細ID', '摘要', 'MF仕訳ID', '指紋', '取引日']);
  return Array.from({ length: rows }, () => H.map((h) => (plain.has(h) ? '@' : '0.###############')));
}

/** Applies a plan to a copy of the values, as the sheet would hold them after the writes. */
function applied(values: unknown[][], plan: ReturnType<typeof planTextRepair>): unknown[][] {
  const out = values.map((r) => r.slice());
  for (const w of plan.writes) {
    for (const [i, v] of w.values.entries()) out[w.firstRow - 1 + i][w.column] = v[0];
  }
  return out;
}

const source = '○○銀行';

describe('planTextRepair', () => {
  test('kept: every leading apostrophe of kicho’s cells goes (one per earlier write), formats back to automatic', () => {
    const values = [
      H,
      row({
        キー: "'mf:a%2Fb",
        明細ID: "'a%2Fb",
        取引日: "''2026-01-08",
        摘要: "''ﾃｽｳﾘﾖｳ",
        状態: '送信待ち',
        金額: 440,
      }),
      row({
        キー: "'mf:c",
        明細ID: "'c",
        取引日: "'2026-01-09",
        摘要: "'=HYPERLINK(1)",
        状態: '要確認',
        金額: 1,
      }),
    ];
    const plan = planTextRepair(values, legacyFormats(10), 'kept');
    const after = parseLedger(applied(values, plan)).rows.map((r) => r.record);
    assert.deepEqual(
      after.map((r) => [r.キー, r.明細ID, r.取引日, r.摘要]),
      [
        ['mf:a%2Fb', 'a%2Fb', '2026-01-08', 'ﾃｽｳﾘﾖｳ'],
        ['mf:c', 'c', '2026-01-09', '=HYPERLINK(1)'],
      ],
    );
    // The formatted rows below the data (where later rows are appended) are cleared too.
    assert.deepEqual(
      plan.clears.find((c) => c.column === col('キー')),
      { column: col('キー'), firstRow: 2, lastRow: 11 },
    );
    assert.deepEqual(plan.headers.sort(), ['キー', '明細ID', '摘要', 'MF仕訳ID', '指紋', '取引日'].sort());
    assert.equal(plan.apostrophes, 8);
    assert.match(describeTextRepair(plan), /8 か所で外しました/);
  });

  test('only the runs of plain-text cells are cleared (a date format on a typed date stays)', () => {
    const values = [H, row({ キー: 'mf:a' }), row({ キー: 'mf:b' }), row({ キー: 'mf:c' })];
    const formats = legacyFormats(3);
    formats[1][col('取引日')] = 'yyyy/mm/dd';
    const plan = planTextRepair(values, formats, 'stripped');
    assert.deepEqual(
      plan.clears.filter((c) => c.column === col('取引日')),
      [
        { column: col('取引日'), firstRow: 2, lastRow: 2 },
        { column: col('取引日'), firstRow: 4, lastRow: 4 },
      ],
    );
    assert.equal(plan.headers.filter((h) => h === '取引日').length, 1);
  });

  test('stripped: the values are right already; only the formats go back', () => {
    const values = [
      H,
      row({ キー: 'mf:a', 明細ID: 'a', 摘要: "'24年度 会費", 取引日: '2026-01-08', 金額: 5 }),
    ];
    const plan = planTextRepair(values, legacyFormats(3), 'stripped');
    assert.equal(plan.writes.length, 0);
    assert.equal(plan.apostrophes, 0);
    assert.equal(plan.clears.length, 6);
    assert.doesNotMatch(describeTextRepair(plan), /外しました/);
  });

  test('no plain-text cells: nothing to do, nothing said', () => {
    const values = [H, row({ キー: "'x" })];
    const formats = [H.map(() => '0.###############')];
    const plan = planTextRepair(values, formats, 'kept');
    assert.deepEqual([plan.clears, plan.writes, describeTextRepair(plan)], [[], [], '']);
  });

  test('a CSV description that really began with an apostrophe keeps it: its own キー says so', () => {
    const desc = "'24年度 会費";
    const key = csvKey(source, '2026-02-10', 3000, desc, 1);
    const plain = csvKey(source, '2026-02-10', 550, 'ｺﾋﾟｰﾖｳｼ', 1);
    const values = [
      H,
      // Written twice by the earlier version where Sheets kept the apostrophes: `'` + `'` + its own.
      row({ キー: `'${key}`, 取引日: "'2026-02-10", 金額: 3000, 摘要: `''${desc}`, 口座: source }),
      row({ キー: `'${plain}`, 取引日: "'2026-02-10", 金額: 550, 摘要: "''ｺﾋﾟｰﾖｳｼ", 口座: source }),
    ];
    const plan = planTextRepair(values, legacyFormats(2), 'kept');
    const after = parseLedger(applied(values, plan)).rows.map((r) => r.record.摘要);
    assert.deepEqual(after, [desc, 'ｺﾋﾟｰﾖｳｼ']);
    assert.equal(plan.keptApostrophes, 1);
  });

  test('a 指紋 taken over the old reading is taken again; one that did not match stays as it was', () => {
    const record = {
      取引日: '2026-01-08',
      入出金: '出金',
      金額: 440,
      摘要: 'ﾃｽｳﾘﾖｳ',
      勘定科目: '支払手数料',
    };
    const asOldRead = {
      ...record,
      取引日: "'2026-01-08",
      摘要: "'ﾃｽｳﾘﾖｳ",
      補助科目: '',
      税区分: '',
      取引先: '',
    };
    const oldPrint = fingerprint(asOldRead);
    const values = [
      H,
      row({ キー: "'mf:a", ...record, 取引日: "'2026-01-08", 摘要: "'ﾃｽｳﾘﾖｳ", 指紋: `'${oldPrint}` }),
      row({ キー: "'mf:b", ...record, 取引日: "'2026-01-08", 摘要: "'ﾃｽｳﾘﾖｳ", 指紋: "'edited-elsewhere" }),
    ];
    const plan = planTextRepair(values, legacyFormats(2), 'kept');
    const after = parseLedger(applied(values, plan)).rows.map((r) => r.record);
    assert.equal(after[0].指紋, fingerprint(after[0]));
    assert.equal(after[1].指紋, 'edited-elsewhere');
    assert.equal(plan.fingerprints, 1);
  });

  test('other: nothing is stripped (the caller does not repair then)', () => {
    const values = [H, row({ キー: "'mf:a" })];
    assert.equal(planTextRepair(values, legacyFormats(1), 'other').apostrophes, 0);
  });
});
