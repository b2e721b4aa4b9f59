import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planDryRun } from '../../src/core/dry-run';
import { fingerprint } from '../../src/core/fingerprint';
import { planIntake, type StatementLine } from '../../src/core/intake';
import { type LedgerRecord, parseLedger } from '../../src/core/ledger';
import type { Masters } from '../../src/core/masters';
import { applyOperations } from '../../src/core/operations';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { parseSettings } from '../../src/core/settings';

const MASTERS: Masters = {
  accounts: [
    { id: 'a1', name: '消耗品費', available: true, subAccounts: [{ id: 's1', name: '事務用品' }] },
    { id: 'a2', name: '諸会費', available: false, subAccounts: [] },
  ],
  taxes: [{ id: 't1', name: '課税仕入 10%', available: true }],
  partners: [{ code: 'P001', name: '株式会社山田商事', available: true }],
  connectedAccounts: [
    {
      id: 'c1',
      name: '三井住友銀行',
      accountId: 'a9',
      subAccountId: null,
      subs: [{ id: 'cs1', name: '代表口座' }],
    },
  ],
  fetchedAt: '2026-11-30T00:00:00Z',
};

/** An `mf:` row's 明細ID is its key's id unless a test says otherwise (DESIGN §2: the key fits the row). */
function mfId(r: Record<string, unknown>, h: string): unknown {
  const key = String(r.キー ?? '');
  return h === '明細ID' && key.startsWith('mf:') ? key.slice(3) : '';
}

function table(rows: Record<string, unknown>[]) {
  return parseLedger([
    LEDGER_HEADERS.slice(),
    ...rows.map((r) => LEDGER_HEADERS.map((h) => r[h] ?? mfId(r, h))),
  ]);
}

const line = (id: string, status = 'none', content: string | null = 'ｱﾏｿﾞﾝ'): StatementLine => ({
  id,
  date: '2026-10-01',
  value: 1200,
  side: 'EXPENSE',
  content,
  journalizing_status: status,
  connected_account_id: 'c1',
  connected_sub_account_id: 'cs1',
});

describe('intake', () => {
  test('new lines become 未判定 rows keyed mf:<id>, once, with the description as received', () => {
    const plan = planIntake(
      table([{ キー: 'mf:old' }]),
      [line('old'), line('n%2B1', 'none', '=HYPERLINK("x")'), line('n%2B1')],
      [],
      MASTERS,
      'T',
    );
    assert.equal(plan.newRows.length, 1);
    const r = plan.newRows[0];
    assert.deepEqual(
      [r.キー, r.状態, r.入出金, r.金額, r.摘要, r.口座, r.明細ID],
      ['mf:n%2B1', '未判定', '出金', 1200, '=HYPERLINK("x")', '三井住友銀行 代表口座', 'n%2B1'],
    );
  });

  test('an unsent row journalized in MF becomes 完了 (with the journal id); a sent one is left to the reconciler', () => {
    const t = table([
      { キー: 'mf:a', 状態: '要確認' },
      { キー: 'mf:b', 状態: '不明' },
      { キー: 'mf:c', 状態: '送信待ち' },
    ]);
    const plan = planIntake(
      t,
      [],
      [line('a', 'registered'), line('b', 'registered'), line('c', 'excluded')],
      MASTERS,
      'T',
      new Map([['a', 'J1']]),
    );
    assert.deepEqual(
      plan.changes.map((c) => [c.key, c.patch.状態, c.patch.MF仕訳ID ?? null]),
      [
        ['mf:a', '完了', 'J1'],
        ['mf:c', '除外', null],
      ],
    );
  });
});

describe('operations (操作)', () => {
  const rows = table([
    { キー: 'k1', 状態: '要確認', 勘定科目: '消耗品費', 操作: '承認' },
    { キー: 'k2', 状態: '要確認', 勘定科目: 'ないもの', 操作: '承認' },
    { キー: 'k3', 状態: '送信中', 操作: '除外' },
    { キー: 'k4', 状態: '失敗', 勘定科目: '消耗品費', 操作: '再試行' },
    { キー: 'k5', 状態: '要確認', 操作: '再試行' },
    { キー: 'k6', 状態: '未判定', 操作: '除外' },
    { キー: 'k7', 状態: '要確認', 操作: 'はい' },
  ]).rows;
  const changes = new Map(
    applyOperations(rows, MASTERS, 'alice@example.com', 'NOW').map((c) => [c.key, c.patch]),
  );

  test('valid operations move the row and note who and when; every 操作 is cleared', () => {
    assert.equal(changes.get('k1')?.状態, '送信待ち');
    assert.equal(changes.get('k1')?.判定元, '手動');
    assert.match(String(changes.get('k1')?.メモ), /承認: alice@example.com NOW/);
    assert.equal(changes.get('k4')?.状態, '送信待ち');
    assert.equal(changes.get('k6')?.状態, '除外');
    for (const patch of changes.values()) assert.equal(patch.操作, '');
  });

  test('invalid operations are refused with a メモ that says why', () => {
    assert.equal(changes.get('k2')?.状態, '要確認');
    assert.match(String(changes.get('k2')?.メモ), /勘定科目「ないもの」がマスタにありません/);
    assert.equal(changes.get('k3')?.状態, undefined);
    assert.match(String(changes.get('k3')?.メモ), /送信中/);
    assert.match(String(changes.get('k5')?.メモ), /「再試行」は状態が「失敗」の行だけ/);
    assert.match(String(changes.get('k7')?.メモ), /操作「はい」はわかりません/);
  });
});

describe('dry run', () => {
  test('lists what would be sent and warns about identical payloads, edits after posting, lost rows and window changes', () => {
    const done: Record<string, unknown> = {
      キー: 'mf:d1',
      MF仕訳ID: 'j1',
      状態: '完了',
      取引日: '2026-10-01',
      金額: 5,
      摘要: 'x',
      勘定科目: '消耗品費',
    };
    done.指紋 = fingerprint({ ...(done as LedgerRecord), 入出金: '', 補助科目: '', 税区分: '', 取引先: '' });
    const t = table([
      {
        キー: 'mf:k1',
        状態: '送信待ち',
        取引日: '2026-10-01',
        金額: 100,
        摘要: 'テスト',
        勘定科目: '消耗品費',
      },
      {
        キー: 'mf:k2',
        状態: '送信待ち',
        取引日: '2026-10-01',
        金額: 100,
        摘要: 'テスト',
        勘定科目: '消耗品費',
      },
      { キー: 'mf:k3', 状態: '不明' },
      { ...done, 金額: 6 },
    ]);
    const plan = planDryRun(t, {
      masters: MASTERS,
      batchLimit: 200,
      who: 'a',
      now: 'N',
      lastRowCount: 100,
      lastWindow: '2026-01-01..',
      currentWindow: '2026-02-01..',
      taggedJournalsInMf: null,
    });
    assert.deepEqual(plan.toSend, ['mf:k1', 'mf:k2']);
    assert.equal(plan.counts.照合待ち, 1);
    assert.equal(plan.counts.編集済み, 1);
    const text = plan.warnings.join('\n');
    assert.match(text, /同じ内容の送信予定が 2 件/);
    assert.match(text, /大きく減っています/);
    assert.match(text, /取込期間が前回/);
    assert.match(text, /登録後に編集された行が 1 件/);
  });
});

describe('settings', () => {
  test('valid values parse; invalid ones fall back and name their cell', () => {
    const rows = [
      ['取込開始日', new Date(2026, 3, 1)],
      ['取込終了日', '2026/13/01'],
      ['照合間隔（分）', '7'],
      ['1回の送信上限', '５０'],
      ['自動実行', 'オン'],
    ].map(([item, value], i) => ({ item: String(item), value, rowNumber: i + 2 }));
    const { settings, problems } = parseSettings(rows);
    assert.equal(settings.importStart, '2026-04-01');
    assert.equal(settings.importEnd, null);
    assert.equal(settings.reconcileIntervalMinutes, 15);
    assert.equal(settings.batchLimit, 50);
    assert.equal(settings.autoRun, true);
    assert.deepEqual(
      problems.map((p) => p.cell),
      ['設定 B3', '設定 B4'],
    );
    assert.match(problems[1].message, /5・10・15・30 から選んでください/);
  });
});
