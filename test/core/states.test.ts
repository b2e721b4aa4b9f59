/**
 * The state table (DESIGN §4) and the one check every 状態 change kicho makes goes through. Each code path
 * that moves a row is run twice: with the table as it is (the move is made), and with that one move taken
 * out of the table — then it must throw, which shows the path asks transition() and does not set 状態 by
 * itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AiPolicy, outcomeOf } from '../../src/core/ai/answer';
import { guardArchivedKeys } from '../../src/core/archive';
import { classifyRows } from '../../src/core/classify';
import { ledgerChangesForDeleted } from '../../src/core/duplicates/deletion-ledger';
import type { RecordedMember } from '../../src/core/duplicates/record';
import { planIntake, type StatementLine } from '../../src/core/intake';
import { findingPatch } from '../../src/core/journal-check';
import { guardKeys } from '../../src/core/key-check';
import { type LedgerRecord, type LedgerRow, parseLedger } from '../../src/core/ledger';
import type { Masters } from '../../src/core/masters';
import { applyOperations } from '../../src/core/operations';
import {
  type Claimed,
  guardDuplicateKeys,
  planClaim,
  type SendResult,
  settlePatch,
} from '../../src/core/posting';
import { type LookupResult, reconcilePatch } from '../../src/core/reconcile';
import { LEDGER_HEADERS } from '../../src/core/schema';
import {
  checkMove,
  FROM_NO_STATE,
  type LedgerState,
  STATES,
  TRANSITIONS,
  TransitionError,
  transition,
} from '../../src/core/states';

const NOW = '2026-11-30T00:00:00.000Z';
const NOW_MS = Date.parse(NOW);

/** DESIGN §4's "next" column, written out again here so a change to the table must change this too. */
const EXPECTED: Record<LedgerState, readonly LedgerState[]> = {
  未判定: ['要確認', '送信待ち', '除外', '完了'],
  要確認: ['送信待ち', '除外', '完了'],
  送信待ち: ['送信中', '除外', '要確認', '完了'],
  送信中: ['完了', '不明', '失敗', '送信待ち', '要確認'],
  完了: ['除外', '要確認'],
  不明: ['完了', '送信待ち', '要確認', '除外'],
  失敗: ['送信待ち', '除外', '要確認', '完了'],
  除外: [],
};

describe('the state table', () => {
  test('every pair of states is allowed or refused as DESIGN §4 says', () => {
    for (const from of STATES) {
      for (const to of STATES) {
        const allowed = from === to || EXPECTED[from].includes(to);
        if (allowed) assert.equal(transition(from, to, 'test'), to, `${from} → ${to}`);
        else assert.throws(() => transition(from, to, 'test'), TransitionError, `${from} → ${to}`);
      }
    }
    for (const from of STATES) assert.deepEqual([...TRANSITIONS[from]].sort(), [...EXPECTED[from]].sort());
  });

  test('from a cell with no state (cleared, or a word a person typed) only 完了, 要確認 and 除外', () => {
    for (const from of ['', '  ', '済み']) {
      for (const to of STATES) {
        if (['完了', '要確認', '除外'].includes(to)) assert.equal(transition(from, to, 'test'), to);
        else assert.throws(() => transition(from, to, 'test'), TransitionError, `「${from}」 → ${to}`);
      }
    }
  });

  test('a state padded with spaces is that state', () => {
    assert.equal(transition(' 未判定 ', '送信待ち', 'test'), '送信待ち');
    assert.throws(() => transition(' 完了', '送信中', 'test'), TransitionError);
  });

  test('the error names both states and the step, in Japanese', () => {
    assert.throws(
      () => transition('除外', '送信待ち', '操作 承認'),
      (e: unknown) =>
        e instanceof TransitionError &&
        e.from === '除外' &&
        e.to === '送信待ち' &&
        /内部エラー/.test(e.message) &&
        /「除外」から「送信待ち」/.test(e.message) &&
        /操作 承認/.test(e.message),
    );
    assert.throws(() => transition('', '送信中', 'claim'), /「（空）」から「送信中」/);
  });

  test('checkMove: a patch without 状態 passes as it is; a 状態 that is no state is refused', () => {
    const patch: { 状態?: string; メモ: string } = { メモ: 'x' };
    assert.equal(checkMove('除外', patch, 'test'), patch);
    const moved = { 状態: '送信待ち', メモ: 'y' };
    assert.equal(checkMove('要確認', moved, 'test'), moved);
    assert.throws(() => checkMove('除外', { 状態: '送信待ち' }, 'test'), TransitionError);
    assert.throws(() => checkMove('要確認', { 状態: '済み' }, 'test'), TransitionError);
  });
});

// --- every code path that moves a row, with the move it makes ---

const MASTERS: Masters = {
  accounts: [{ id: 'a1', name: '消耗品費', available: true, subAccounts: [] }],
  taxes: [{ id: 't1', name: '課税仕入 10%', available: true }],
  partners: [],
  connectedAccounts: [],
  fetchedAt: NOW,
};

function rows(list: Record<string, unknown>[]): LedgerRow[] {
  return parseLedger([
    LEDGER_HEADERS.slice(),
    ...list.map((r) =>
      LEDGER_HEADERS.map(
        (h) => r[h] ?? (h === '明細ID' && String(r.キー).startsWith('mf:') ? String(r.キー).slice(3) : ''),
      ),
    ),
  ]).rows;
}

function row(state: string, extra: Record<string, unknown> = {}): LedgerRow {
  return rows([
    {
      キー: 'mf:L1',
      状態: state,
      取引日: '2026-11-01',
      入出金: '出金',
      金額: 1000,
      摘要: 'テスト',
      勘定科目: '消耗品費',
      税区分: '課税仕入 10%',
      更新日時: new Date(NOW_MS - 86_400_000).toISOString(),
      試行回数: 1,
      ...extra,
    },
  ])[0];
}

function claimed(): Claimed {
  const r = row('送信待ち');
  return { key: r.record.キー, rowNumber: r.rowNumber, record: r.record, attemptsBefore: 0 };
}

const POLICY = { nowMs: NOW_MS, now: NOW, graceMs: 0, maxAttempts: 3 };

function line(id: string, status: string): StatementLine {
  return {
    id,
    date: '2026-11-01',
    value: -1000,
    side: 'EXPENSE',
    content: 'テスト',
    journalizing_status: status,
    connected_account_id: 'c1',
    connected_sub_account_id: null,
  };
}

function member(id: string, keys: string[]): RecordedMember {
  return { id, group: 'g1', keys } as unknown as RecordedMember;
}

/** The 状態 the path wrote, or undefined when it wrote none. */
type Path = () => string | undefined;

const only = <T extends { patch: Partial<LedgerRecord> }>(changes: readonly T[]) => {
  assert.equal(changes.length, 1, 'the path makes one change');
  return changes[0].patch.状態;
};

const SETTLES: [SendResult, LedgerState][] = [
  [{ kind: 'created', journalId: 'J1', fingerprint: 'f' }, '完了'],
  [{ kind: 'unknown', reason: 'timeout' }, '不明'],
  [{ kind: 'rejected', status: 400, code: 'E', message: 'no' }, '失敗'],
  [{ kind: 'rate-limited', retryAfterMs: null }, '送信待ち'],
  [{ kind: 'invalid', problems: ['x'] }, '要確認'],
];

const PATHS: { site: string; from: string; to: LedgerState; run: Path }[] = [
  {
    site: 'claim',
    from: '送信待ち',
    to: '送信中',
    run: () => only(planClaim([row('送信待ち')], 5, NOW).changes),
  },
  ...SETTLES.map(([result, to]) => ({
    site: `settle ${result.kind}`,
    from: '送信中',
    to,
    run: () => settlePatch(claimed(), result, NOW).状態,
  })),
  ...(['未判定', '要確認'] as const).map((from) => ({
    site: '操作 承認',
    from,
    to: '送信待ち' as const,
    run: () => only(applyOperations([row(from, { 操作: '承認' })], MASTERS, 'a', NOW)),
  })),
  ...(['未判定', '要確認', '送信待ち', '失敗'] as const).map((from) => ({
    site: '操作 除外',
    from,
    to: '除外' as const,
    run: () => only(applyOperations([row(from, { 操作: '除外' })], MASTERS, 'a', NOW)),
  })),
  {
    site: '操作 再試行',
    from: '失敗',
    to: '送信待ち',
    run: () => only(applyOperations([row('失敗', { 操作: '再試行' })], MASTERS, 'a', NOW)),
  },
  ...(['未判定', '送信待ち', '失敗'] as const).map((from) => ({
    site: 'duplicate-key guard',
    from,
    to: '要確認' as const,
    run: () => {
      const two = rows([
        { キー: 'mf:D', 状態: from, 取引日: '2026-11-01', 金額: 1 },
        { キー: 'mf:D', 状態: '除外', 取引日: '2026-11-01', 金額: 1 },
      ]);
      return only(guardDuplicateKeys(two, NOW));
    },
  })),
  {
    site: 'key guard',
    from: '送信待ち',
    to: '要確認',
    run: () => only(guardKeys([row('送信待ち', { キー: 'なにか' })], NOW)),
  },
  {
    site: 'archived-key guard',
    from: '送信待ち',
    to: '要確認',
    run: () => only(guardArchivedKeys([row('送信待ち')], NOW, () => true)),
  },
  ...(['未判定', '要確認', '送信待ち', '失敗'] as const).flatMap((from) => [
    {
      site: 'import: journalized in MF',
      from,
      to: '完了' as const,
      run: () =>
        only(
          planIntake(
            { columns: new Map(), width: 0, rows: [row(from)] },
            [],
            [line('L1', 'journalized')],
            MASTERS,
            NOW,
          ).changes,
        ),
    },
    {
      site: 'import: 対象外 in MF',
      from,
      to: '除外' as const,
      run: () =>
        only(
          planIntake(
            { columns: new Map(), width: 0, rows: [row(from)] },
            [],
            [line('L1', 'excluded')],
            MASTERS,
            NOW,
          ).changes,
        ),
    },
  ]),
  ...(
    [
      ['不明', { kind: 'found', journalId: 'J1' }, '完了'],
      ['不明', { kind: 'absent' }, '送信待ち'],
      ['不明', { kind: 'excluded' }, '要確認'],
      ['送信中', { kind: 'found', journalId: 'J1' }, '完了'],
      ['送信中', { kind: 'absent' }, '送信待ち'],
      ['', { kind: 'found', journalId: 'J1' }, '完了'],
      ['', { kind: 'absent' }, '要確認'],
    ] as [string, LookupResult, LedgerState][]
  ).map(([from, result, to]) => ({
    site: `reconcile: ${result.kind}`,
    from,
    to,
    run: () => {
      const r = row(from);
      return reconcilePatch({ key: r.record.キー, rowNumber: r.rowNumber, record: r.record }, result, POLICY)
        ?.状態;
    },
  })),
  ...(['失敗', '要確認', '送信待ち'] as const).map((from) => ({
    // A person changed the キー; MF holds the line's journal: the key comes back and the row is 完了.
    site: 'reconcile: key restored',
    from,
    to: '完了' as const,
    run: () => {
      const r = row(from, { キー: 'mf:L1x', 明細ID: 'L1' });
      return reconcilePatch(
        { key: r.record.キー, rowNumber: r.rowNumber, record: r.record },
        { kind: 'found', journalId: 'J1' },
        POLICY,
      )?.状態;
    },
  })),
  {
    site: 'journal check: journal gone',
    from: '完了',
    to: '要確認',
    run: () => findingPatch({ kind: 'lookup', row: row('完了', { MF仕訳ID: 'J1' }) }, NOW, NOW, true).状態,
  },
  {
    site: '判定 by rules',
    from: '未判定',
    to: '要確認',
    run: () => only(classifyRows([row('未判定', { 勘定科目: '' })], [], MASTERS, NOW)),
  },
  {
    site: 'AI 判定 unreadable',
    from: '未判定',
    to: '要確認',
    run: () => {
      const policy: AiPolicy = { model: 'm', threshold: 0.8, autoApprove: false };
      const out = outcomeOf({ kind: 'malformed', reason: 'x' }, row('未判定').record, MASTERS, policy);
      return out.kind === 'judged' ? out.patch.状態 : undefined;
    },
  },
  ...(['完了', '不明', '失敗', ''] as const).map((from) => ({
    site: '重複を削除: its journal deleted',
    from,
    to: '除外' as const,
    run: () => {
      const t = { columns: new Map(), width: 0, rows: [row(from, { MF仕訳ID: 'J1' })] };
      const deleted = [{ id: 'J1', member: member('J1', ['mf:L1']), claimKeys: [] }];
      return only(ledgerChangesForDeleted(t, deleted, new Map(), 'a', NOW, NOW).changes);
    },
  })),
  ...(['不明', '失敗'] as const).map((from) => ({
    site: '重複を削除: relinked to a surviving journal',
    from,
    to: '完了' as const,
    run: () => {
      const t = { columns: new Map(), width: 0, rows: [row(from)] };
      const deleted = [{ id: 'J1', member: member('J1', ['mf:L1']), claimKeys: [] }];
      const alive = new Map([['g1', [member('J2', ['mf:L1'])]]]);
      return only(ledgerChangesForDeleted(t, deleted, alive, 'a', NOW, NOW).changes);
    },
  })),
];

/** Runs `fn` with the move from → to taken out of the table (FROM_NO_STATE for a cell with no state). */
function withoutMove<T>(from: string, to: LedgerState, fn: () => T): T {
  const list = (
    from === '' ? FROM_NO_STATE : (TRANSITIONS as Record<LedgerState, LedgerState[]>)[from as LedgerState]
  ) as LedgerState[];
  const at = list.indexOf(to);
  assert.ok(at >= 0, `${from || '（空）'} → ${to} is in the table`);
  list.splice(at, 1);
  try {
    return fn();
  } finally {
    list.splice(at, 0, to);
  }
}

describe('every move kicho makes goes through transition()', () => {
  for (const p of PATHS) {
    test(`${p.site}: ${p.from || '（空）'} → ${p.to}`, () => {
      assert.equal(p.run(), p.to, 'with the table as it is, the path makes the move');
      withoutMove(p.from, p.to, () =>
        assert.throws(p.run, TransitionError, 'without the move in the table, the path must refuse it'),
      );
      assert.equal(p.run(), p.to, 'the table is restored');
    });
  }

  test('every move in the table is made by some path above', () => {
    const made = new Set(PATHS.map((p) => `${p.from}→${p.to}`));
    const missing: string[] = [];
    for (const from of STATES)
      for (const to of TRANSITIONS[from]) if (!made.has(`${from}→${to}`)) missing.push(`${from}→${to}`);
    assert.deepEqual(missing, []);
  });
});
