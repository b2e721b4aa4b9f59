/** Pure pieces of issue 14: ledger shape and header restoration, key checks, redaction, 設定 sheet problems, people-cell writes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { implausibleDate, readCsv } from '../../src/core/csv/intake';
import { detectDelimiter, parseCsv } from '../../src/core/csv/parse';
import { guardKeys, keyProblem } from '../../src/core/key-check';
import { csvKey } from '../../src/core/keys';
import { parseLedger, peopleWrites, type RowChange } from '../../src/core/ledger';
import { looksLikeLedger, planHeaderRestore, shapeProblems } from '../../src/core/ledger-shape';
import { reconcileCandidates, reconcilePatch, strayState } from '../../src/core/reconcile';
import { redactSecrets, secretForms } from '../../src/core/redact';
import { reviewItems } from '../../src/core/review';
import { LEDGER_HEADERS } from '../../src/core/schema';
import {
  blockingProblems,
  closestItem,
  SETTING_DEFAULTS,
  settingsSheetProblems,
} from '../../src/core/settings';
import { statementEdits } from '../../src/core/statement-check';
import { ledgerRecord } from '../helpers/fixtures';

function grid(rows: Record<string, unknown>[], headers: readonly string[] = LEDGER_HEADERS): unknown[][] {
  return [headers.slice(), ...rows.map((r) => headers.map((h) => r[h] ?? ''))];
}

const ROWS = [
  {
    キー: 'mf:a',
    状態: '完了',
    取引日: '2026-05-01',
    入出金: '出金',
    金額: 1200,
    摘要: 'x',
    明細ID: 'a',
    試行回数: 1,
    更新日時: '2026-05-01T00:00:00Z',
    指紋: 'f'.repeat(64),
  },
  {
    キー: 'mf:b',
    状態: '送信待ち',
    取引日: '2026-05-02',
    入出金: '入金',
    金額: 55000,
    摘要: 'y',
    明細ID: 'b',
    試行回数: 0,
    更新日時: '2026-05-02T00:00:00Z',
  },
];

describe('ledger shape', () => {
  test('a missing sheet, a missing header, and a renamed 台帳 are told apart', () => {
    const found = new Map<string, readonly unknown[] | undefined>([
      ['台帳', undefined],
      ['設定', ['項目']],
    ]);
    const problems = shapeProblems(['台帳', '設定'], found, ['台帳 (1)']);
    assert.deepEqual(problems, [
      { kind: 'missing-sheet', sheet: '台帳', lookalikes: ['台帳 (1)'] },
      { kind: 'missing-headers', sheet: '設定', headers: ['値'] },
    ]);
    assert.ok(looksLikeLedger('台帳 (1)', LEDGER_HEADERS));
    assert.ok(
      !looksLikeLedger('台帳バックアップ 2026-11-29', LEDGER_HEADERS),
      'a backup is not a renamed 台帳',
    );
    assert.ok(!looksLikeLedger('ルール', ['優先度', 'キーワード']));
  });

  test('a cleared header goes back over the column that holds its data, never as a new column', () => {
    const g = grid(ROWS);
    g[0][0] = '';
    const plan = planHeaderRestore('台帳', g);
    assert.deepEqual(plan.place, [{ column: 0, header: 'キー', replaced: '' }]);
    assert.deepEqual(plan.append, []);
    assert.deepEqual(plan.orphans, []);
  });

  test('the whole row cleared: every header back at its place (default order), by content where it can tell', () => {
    const g = grid(ROWS);
    g[0] = g[0].map(() => '');
    const plan = planHeaderRestore('台帳', g);
    const placed = new Map(plan.place.map((p) => [p.column, p.header]));
    LEDGER_HEADERS.forEach((h, i) => {
      assert.equal(placed.get(i), h, h);
    });
    assert.deepEqual(plan.append, []);
  });

  test('the remembered layout wins over the default order; content that does not fit is not labelled', () => {
    const headers = [...LEDGER_HEADERS];
    const swapped = headers.slice();
    const a = swapped.indexOf('金額');
    const b = swapped.indexOf('摘要');
    [swapped[a], swapped[b]] = [swapped[b], swapped[a]];
    const g = grid(ROWS, swapped);
    g[0][a] = '';
    g[0][b] = '';
    const plan = planHeaderRestore('台帳', g, swapped);
    const placed = new Map(plan.place.map((p) => [p.column, p.header]));
    assert.equal(placed.get(a), '摘要');
    assert.equal(placed.get(b), '金額');
    // Without memory the content still tells 金額 (numbers) from 摘要 (text).
    const plan2 = planHeaderRestore('台帳', g, null);
    assert.equal(new Map(plan2.place.map((p) => [p.column, p.header])).get(b), '金額');
  });

  test('a renamed header is relabelled only on the remembered layout and a content match; someone’s own column is left alone', () => {
    const g = grid(ROWS);
    const c = LEDGER_HEADERS.indexOf('金額');
    g[0][c] = '金額(円)';
    assert.deepEqual(planHeaderRestore('台帳', g, LEDGER_HEADERS.slice()).place, [
      { column: c, header: '金額', replaced: '金額(円)' },
    ]);
    const own = grid(ROWS).map((r) => [...r, '']);
    own[0][c] = '備考';
    own[1][c] = 'メモ書き';
    const plan = planHeaderRestore('台帳', own, LEDGER_HEADERS.slice());
    assert.deepEqual(plan.place, []);
  });

  test('two blank columns with data it cannot tell apart: nothing is added and both are reported', () => {
    const g = grid(ROWS);
    const a = LEDGER_HEADERS.indexOf('摘要');
    const b = LEDGER_HEADERS.indexOf('口座');
    g[0][a] = '';
    g[0][b] = '';
    // Move them away from their default places, with no memory of where they were.
    const shifted = g.map((r) => [...r, r[a], r[b]]);
    for (const r of shifted) {
      r[a] = r === shifted[0] ? 'X' : r[a];
    }
    shifted[0][a] = '勝手な列';
    shifted[0][b] = '別の列';
    shifted[1][b] = 'text';
    shifted[0][shifted[0].length - 2] = '';
    shifted[0][shifted[0].length - 1] = '';
    shifted[1][shifted[0].length - 1] = '三井住友銀行';
    shifted[1][shifted[0].length - 2] = 'ｱﾏｿﾞﾝ';
    const plan = planHeaderRestore('台帳', shifted, null);
    assert.deepEqual(plan.append, []);
    assert.equal(plan.orphans.length, 2);
    assert.deepEqual(plan.undecided.sort(), ['口座', '摘要'].sort());
  });
});

describe('keys that no longer fit their rows', () => {
  test('mf: id must be the 明細ID; csv: must come from its own 口座/取引日/金額/摘要; other forms never', () => {
    assert.equal(keyProblem(ledgerRecord({ キー: 'mf:tx-1', 明細ID: 'tx-1' })), null);
    assert.match(
      String(keyProblem(ledgerRecord({ キー: 'mf:tx-2', 明細ID: 'tx-1' }))),
      /明細ID「tx-1」と合いません/,
    );
    const base = { 口座: '○○銀行', 取引日: '2026-05-01', 金額: 220, 摘要: 'ﾃｽｳﾘﾖｳ', 明細ID: '' };
    const k2 = csvKey('○○銀行', '2026-05-01', 220, 'ﾃｽｳﾘﾖｳ', 2);
    assert.equal(keyProblem(ledgerRecord({ ...base, キー: k2 }), 2), null, 'the second twin');
    assert.match(String(keyProblem(ledgerRecord({ ...base, キー: k2, 金額: 221 }), 2)), /合いません/);
    assert.match(String(keyProblem(ledgerRecord({ ...base, キー: `${k2.slice(0, -1)}x` }))), /形/);
    assert.match(String(keyProblem(ledgerRecord({ キー: 'tx-1' }))), /形/);
    assert.match(String(keyProblem(ledgerRecord({ キー: '', 明細ID: 'tx-1' }))), /形/);
  });

  test('the guard stops only 送信待ち rows, with the reason', () => {
    const t = parseLedger(
      grid([
        { キー: 'mf:a', 明細ID: 'a', 状態: '送信待ち' },
        { キー: 'mf:b', 明細ID: 'x', 状態: '送信待ち' },
        { キー: 'mf:c', 明細ID: 'y', 状態: '要確認' },
        { キー: '', 明細ID: 'z', 状態: '送信待ち' },
      ]),
    );
    const g = guardKeys(t.rows, 'N');
    assert.deepEqual(
      g.map((c) => [c.rowNumber, c.patch.状態]),
      [
        [3, '要確認'],
        [5, '要確認'],
      ],
    );
  });
});

describe('状態 a person left unusable', () => {
  test('cleared or typed 状態, and 完了 without MF仕訳ID, are looked up and listed; never straight back to 送信待ち', () => {
    const rows = parseLedger(
      grid([
        { キー: 'mf:a', 明細ID: 'a', 状態: '', 更新日時: '2026-05-01T00:00:00Z' },
        { キー: 'mf:b', 明細ID: 'b', 状態: '済み', 更新日時: '2026-05-01T00:00:00Z' },
        { キー: 'mf:c', 明細ID: 'c', 状態: '完了', 更新日時: '2026-05-01T00:00:00Z' },
        { キー: 'mf:d', 明細ID: 'd', 状態: '完了', MF仕訳ID: 'j', 更新日時: '2026-05-01T00:00:00Z' },
      ]),
    );
    assert.deepEqual(
      rows.rows.map((r) => strayState(r.record)),
      [true, true, true, false],
    );
    const nowMs = Date.parse('2026-05-02T00:00:00Z');
    const candidates = reconcileCandidates(rows.rows, nowMs);
    assert.deepEqual(
      candidates.map((c) => c.key),
      ['mf:a', 'mf:b', 'mf:c'],
    );
    const policy = { nowMs, now: 'N', graceMs: 15 * 60_000, maxAttempts: 3 };
    assert.equal(reconcilePatch(candidates[0], { kind: 'absent' }, policy)?.状態, '要確認');
    assert.equal(reconcilePatch(candidates[1], { kind: 'found', journalId: 'j9' }, policy)?.MF仕訳ID, 'j9');
    const young = { ...policy, nowMs: Date.parse('2026-05-01T00:05:00Z') };
    assert.equal(reconcilePatch(candidates[2], { kind: 'absent' }, young), null, 'a send may be in flight');
    const items = reviewItems(rows, nowMs, 15 * 60_000);
    assert.deepEqual(
      items.map((i) => i.record.キー),
      ['mf:a', 'mf:b', 'mf:c'],
    );
  });
});

describe('redaction of secrets, whole or in part', () => {
  const token = 'tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0ZZ';

  test('a prefix, a percent-encoded and a base64 copy (at any alignment) lose the secret', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const texts = [
      `token ${token.slice(0, 12)}… rejected`,
      `echo ${encodeURIComponent(`${token}/x`)}`,
      `basic ${b64(`user:${token}`)}`,
      `basic ${b64(`u:${token}`)}`,
      `basic ${b64(`us:${token}`)}`,
      `url-safe ${b64(`user:${token}`).replace(/\+/g, '-').replace(/\//g, '_')}`,
    ];
    for (const text of texts) {
      const out = redactSecrets(text, [token]);
      assert.ok(!out.includes(token.slice(0, 8)), out);
      for (const f of secretForms(token)) {
        for (let i = 0; i + 8 <= f.length; i++)
          assert.ok(!out.includes(f.slice(i, i + 8)), `${text} → ${out}`);
      }
    }
  });

  test('property: any piece of 8 characters or more of the secret is gone; text without it is unchanged', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 20 }),
        fc.nat(),
        fc.integer({ min: 8, max: token.length }),
        (around, at, len) => {
          const start = at % (token.length - len + 1);
          const piece = token.slice(start, start + len);
          const out = redactSecrets(`${around}${piece}${around}`, [token]);
          assert.ok(!out.includes(piece));
        },
      ),
    );
    assert.equal(
      redactSecrets('MFが登録を拒否しました（400 bad_request）', [token]),
      'MFが登録を拒否しました（400 bad_request）',
    );
  });
});

describe('設定 sheet problems', () => {
  const rows = (items: [string, string][]) =>
    items.map(([item, value], i) => ({ item, value, rowNumber: i + 2 }));
  const all = SETTING_DEFAULTS.map(([i, v]) => [i, v] as [string, string]);

  test('a complete sheet has none; a repeated item is an error naming both rows; an unknown one names the closest', () => {
    assert.deepEqual(settingsSheetProblems(rows(all)), []);
    const twice = settingsSheetProblems(rows([...all, ['取込開始日', '2026-05-01']]));
    assert.equal(twice.length, 1);
    assert.equal(twice[0].severity, 'error');
    assert.equal(twice[0].cell, `設定 A2・A${all.length + 2}`);
    const typo = settingsSheetProblems(rows([...all, ['照合猶予', '10']]));
    assert.match(typo[0].message, /「照合猶予（分）」のことなら/);
    assert.equal(typo[0].severity, 'warning');
    assert.equal(closestItem('まったく違う言葉です'), null);
    // Half-width brackets are the same item (NFKC), not an unknown one.
    assert.deepEqual(
      settingsSheetProblems(rows(all.map(([i, v]) => [i.replace('（', '(').replace('）', ')'), v]))),
      [],
    );
  });

  test('a missing row: 取込開始日 stops the import; another is said with the default used', () => {
    const problems = settingsSheetProblems(
      rows(all.filter(([i]) => i !== '取込開始日' && i !== '最大試行回数')),
    );
    assert.deepEqual(
      problems.map((p) => [p.item, p.severity]),
      [
        ['取込開始日', 'error'],
        ['最大試行回数', 'warning'],
      ],
    );
    assert.equal(blockingProblems(problems, ['取込開始日', '取込終了日']).length, 1);
    assert.equal(blockingProblems(problems, ['最大試行回数']).length, 0);
  });
});

describe('CSV shapes', () => {
  test('tab, semicolon and comma files are told apart; quoted separators do not count', () => {
    assert.equal(detectDelimiter('日付\t摘要\t金額\n2026/05/01\tA, B\t100\n2026/05/02\tC\t200'), '\t');
    assert.equal(detectDelimiter('日付;摘要;金額\n2026/05/01;"A; B";100'), ';');
    assert.equal(detectDelimiter('日付,摘要,金額\n2026/05/01,"A\tB",100'), ',');
    assert.deepEqual(
      parseCsv('a\tb\n1\t"2\t3"').records.map((r) => r.fields),
      [
        ['a', 'b'],
        ['1', '2\t3'],
      ],
    );
  });

  test('a date more than a month ahead or seven years back is noticed, not refused', () => {
    assert.equal(implausibleDate('2026-12-15', '2026-11-30'), null);
    assert.match(String(implausibleDate('2027-01-15', '2026-11-30')), /先の日付/);
    assert.match(String(implausibleDate('2019-11-29', '2026-11-30')), /7 年以上前/);
    const reading = readCsv(
      '日付,摘要,金額\n2099/01/01,x,-100\n2026/11/01,y,-100',
      'S',
      undefined,
      '2026-11-30',
    );
    assert.equal(reading.lines.length, 2);
    assert.deepEqual(
      reading.notices.map((n) => n.line),
      [2],
    );
  });
});

describe('people-owned cells', () => {
  test('only the cells a change means are written: runs of rows, or one range list per value when scattered', () => {
    const t = parseLedger(grid(Array.from({ length: 30 }, (_, i) => ({ キー: `mf:${i}`, 明細ID: `${i}` }))));
    const col = LEDGER_HEADERS.indexOf('操作') + 1;
    const scattered: RowChange[] = [2, 9, 15, 22, 30].map((n) => ({
      key: `mf:${n - 2}`,
      rowNumber: n,
      patch: { 操作: '' },
    }));
    assert.deepEqual(peopleWrites(t, scattered), [
      { kind: 'list', column: col, rows: [2, 9, 15, 22, 30], value: '' },
    ]);
    const adjacent: RowChange[] = [5, 6, 7].map((n, i) => ({
      key: `mf:${n - 2}`,
      rowNumber: n,
      patch: { 勘定科目: `科目${i}` },
    }));
    assert.deepEqual(peopleWrites(t, adjacent), [
      {
        kind: 'run',
        column: LEDGER_HEADERS.indexOf('勘定科目') + 1,
        firstRow: 5,
        values: ['科目0', '科目1', '科目2'],
      },
    ]);
  });
});

describe('MF statement fields', () => {
  test('each field that differs from MF’s line is named with both values', () => {
    const facts = { 取引日: '2026-05-01', 入出金: '出金' as const, 金額: 1200, 口座: '三井住友銀行' };
    const r = ledgerRecord({ 取引日: '2026-05-01', 入出金: '出金', 金額: 12000, 口座: '三井住友銀行' });
    assert.deepEqual(statementEdits(r, facts), ['金額: MF 1,200 円 / 台帳 12,000 円']);
    assert.deepEqual(statementEdits({ ...r, 金額: 1200 }, facts), []);
  });
});
