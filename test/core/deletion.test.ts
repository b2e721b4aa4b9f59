/**
 * Duplicate deletion as an instance of the exactly-once skeleton (src/core/duplicates/deletion.ts), over
 * fake ports and without the emulator: what each DELETE answer means, which 状態 each outcome writes,
 * what recovery looks up, and a run's claim → act → settle against a sheet that only a flush makes
 * durable and a lock that is checked at every write.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type DeleteAnswer,
  deleteClaimState,
  deleteDuplicates,
  deleteOutcomeKind,
  outcomePatch,
  recoverDeletions,
} from '../../src/core/duplicates/deletion';
import { type MfView, verdicts } from '../../src/core/duplicates/deletion-checks';
import { DELETE_MSG } from '../../src/core/duplicates/deletion-messages';
import type { DeleteResult, DeletionInput } from '../../src/core/duplicates/deletion-ports';
import { findDuplicates, PROPOSAL } from '../../src/core/duplicates/detect';
import { type AuditJournal, canonical, journalFacts, LedgerLinks } from '../../src/core/duplicates/facts';
import { type RecordedMember, RecordView, recordOf } from '../../src/core/duplicates/record';
import {
  auditRecords,
  DELETE_STATE,
  type DuplicateRecord,
  type DuplicateTable,
  type PlannedGroup,
  parseDuplicateSheet,
  planDeletion,
} from '../../src/core/duplicates/sheet';
import { recoverable } from '../../src/core/exactly-once/outcomes';
import { parseLedger } from '../../src/core/ledger';
import { DUPLICATE_HEADERS, LEDGER_HEADERS } from '../../src/core/schema';
import { sha256Hex } from '../../src/core/sha256';

describe('what a DELETE answer means', () => {
  const cases: [DeleteAnswer, string, string][] = [
    [{ kind: 'deleted' }, 'done', DELETE_STATE.deleted],
    [{ kind: 'absent' }, 'done', DELETE_STATE.deleted],
    [{ kind: 'unknown', reason: 'timeout' }, 'unknown', DELETE_STATE.unknown],
    [{ kind: 'rejected', explanation: 'no' }, 'rejected', DELETE_STATE.failed],
    [{ kind: 'still-there' }, 'returned', DELETE_STATE.none],
    [{ kind: 'rate-limited', retryAfterMs: null }, 'returned', DELETE_STATE.none],
    [{ kind: 'unauthorized', message: 'revoked' }, 'returned', DELETE_STATE.none],
    [{ kind: 'not-sent', reason: 'quota' }, 'returned', DELETE_STATE.none],
  ];
  for (const [answer, kind, state] of cases)
    test(`${answer.kind} → ${kind}, settled as 状態「${state}」`, () => {
      const k = deleteOutcomeKind(answer);
      assert.equal(k, kind);
      const patch = outcomePatch({ kind: k, answer: { 結果: 'x', 更新日時: 't' } });
      assert.deepEqual(patch, { 状態: state, 結果: 'x', 更新日時: 't' });
    });

  test('recovery looks up 不明 and a 削除中 past its lease (or with no readable time), nothing else', () => {
    const lease = 600_000;
    const look = (state: string, ageMs: number) => recoverable(deleteClaimState(state), ageMs, lease);
    assert.equal(look(DELETE_STATE.unknown, 0), true);
    assert.equal(look(DELETE_STATE.claimed, lease), true);
    assert.equal(look(DELETE_STATE.claimed, Number.NaN), true);
    assert.equal(look(DELETE_STATE.claimed, lease - 1), false);
    for (const s of [DELETE_STATE.none, DELETE_STATE.deleted, DELETE_STATE.failed, '削除した'])
      assert.equal(look(s, lease * 10), false, s);
  });
});

const BANK = {
  account_id: 'acc-bank',
  account_name: '普通預金',
  sub_account_id: 'sub-smbc',
  sub_account_name: '三井住友銀行',
};
const SUPPLIES = { account_id: 'acc-supplies', account_name: '消耗品費' };

function journal(n: number, transactionId: string): AuditJournal {
  return {
    id: `J${n}%3D`,
    number: n,
    transaction_date: '2026-05-10',
    transaction_id: transactionId,
    tags: [],
    memo: null,
    entered_by: n % 2 === 1 ? 'JOURNAL_TYPE_DATA_LINKAGE' : 'JOURNAL_TYPE_EXTERNAL',
    create_time: `2026-05-1${n % 10}T01:00:00Z`,
    branches: [
      {
        remark: 'ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ',
        debitor: { ...SUPPLIES, value: 1100 * n },
        creditor: { ...BANK, value: 1100 * n },
      },
    ],
  } as AuditJournal;
}

const LEASE = 600_000;
const START = Date.parse('2026-12-01T00:00:00.000Z');

/**
 * Two groups (the same line journalized twice, each), the second journal of each chosen for deletion;
 * a sheet whose writes become durable only at the lock's flush; an MF whose DELETE answers as scripted.
 */
function world(answers: (DeleteResult | 'throw')[] = []) {
  const journals = [journal(1, 'TX1'), journal(2, 'TX1'), journal(3, 'TX3'), journal(4, 'TX3')];
  const facts = journalFacts(journals, new LedgerLinks([]));
  const groups = findDuplicates(facts, {
    days: 3,
    ownAccounts: [{ accountId: 'acc-bank', subId: 'sub-smbc' }],
    csvSources: new Map(),
    accountOfKey: () => undefined,
  });
  assert.equal(groups.length, 2);
  const record = new RecordView(
    recordOf(groups, [], null, { at: '2026-12-01T00:00:00.000Z', start: '2026-04-01', end: '2026-06-30' }),
  );
  const records = auditRecords(groups, []);
  for (const r of records) if (r.仕訳ID === journals[1].id || r.仕訳ID === journals[3].id) r.操作 = '削除';
  let sheet: DuplicateRecord[] = records.map((r) => ({ ...r }));
  let durable = sheet.map((r) => ({ ...r }));
  const mf = new Map(journals.map((j) => [canonical(j.id), j]));
  let now = START;
  let locked = false;
  let busy = 0;
  const events: string[] = [];
  const table = (rows: DuplicateRecord[]): DuplicateTable =>
    parseDuplicateSheet([DUPLICATE_HEADERS.slice(), ...rows.map((r) => DUPLICATE_HEADERS.map((h) => r[h]))]);
  const stateOf = (rows: DuplicateRecord[], id: string) => rows.find((r) => r.仕訳ID === id)?.状態;
  const input: DeletionInput = {
    sheet: {
      read: () => table(sheet),
      write(_t, changes) {
        assert.ok(locked, 'the sheet is written under the lock');
        for (const c of changes) sheet[c.rowNumber - 2] = { ...sheet[c.rowNumber - 2], ...c.patch };
      },
    },
    ledger: {
      read: () => parseLedger([LEDGER_HEADERS.slice()]),
      write: () => {
        assert.ok(locked, 'the 台帳 is written under the lock');
        return { withheld: [] };
      },
    },
    lock: {
      acquire() {
        if (busy > 0) {
          busy--;
          return false;
        }
        locked = true;
        return true;
      },
      flushAndRelease() {
        durable = sheet.map((r) => ({ ...r }));
        locked = false;
      },
    },
    deleter: {
      journal: (id) => {
        events.push(`lookup ${id}`);
        return mf.get(canonical(id)) ?? null;
      },
      journalsIn: (_w, wanted) => new Map([...mf].filter(([cid]) => wanted.has(cid))),
      deleteJournal(id) {
        assert.ok(!locked, `${id}: DELETE sent outside the lock`);
        assert.equal(stateOf(durable, id), DELETE_STATE.claimed, `${id}: DELETE sent after a flushed claim`);
        events.push(`DELETE ${id}`);
        now += 1000;
        const answer = answers.shift() ?? { kind: 'deleted' };
        if (answer === 'throw') throw new Error('MF did not answer');
        if (answer.kind === 'deleted' || (answer.kind === 'unknown' && answer.reason === 'committed'))
          mf.delete(canonical(id));
        return answer.kind === 'unknown' && answer.reason === 'committed'
          ? { kind: 'unknown', reason: 'timeout' }
          : answer;
      },
    },
    clock: {
      now: () => now,
      iso: () => new Date(now).toISOString(),
      sleep: (ms) => {
        now += ms;
      },
      stamp: () => '2026-12-01 09:00',
    },
    record: () => record,
    who: 'owner@example.com',
    startedAt: START,
    digest: (t) => sha256Hex(t).slice(0, 32),
    leaseMs: LEASE,
  };
  const token = () => planDeletion(table(sheet), record, input.digest).token;
  return {
    input,
    token,
    events,
    ids: [journals[1].id, journals[3].id],
    kept: [journals[0].id, journals[2].id],
    state: (id: string) => stateOf(sheet, id),
    row: (id: string) => sheet.find((r) => r.仕訳ID === id),
    inMf: (id: string) => mf.has(canonical(id)),
    advance: (ms: number) => {
      now += ms;
    },
    holdLock: (times: number) => {
      busy = times;
    },
    lookupFails: () => {
      input.deleter.journal = () => {
        throw new Error('MF did not answer');
      };
    },
    edit: (id: string, patch: Partial<DuplicateRecord>) => {
      sheet = sheet.map((r) => (r.仕訳ID === id ? { ...r, ...patch } : r));
    },
  };
}

describe('a deletion run over the skeleton', () => {
  test('claimed and flushed before each DELETE, sent outside the lock, settled 削除済み; the kept journals stay', () => {
    const w = world();
    const s = deleteDuplicates(w.input, w.token());
    assert.deepEqual(s.deleted, w.ids);
    assert.deepEqual(
      w.events,
      w.ids.map((id) => `DELETE ${id}`),
    );
    for (const id of w.ids) {
      assert.equal(w.state(id), DELETE_STATE.deleted);
      assert.ok(!w.inMf(id));
    }
    for (const id of w.kept) assert.ok(w.inMf(id));
    // A second confirmation of the same plan sends nothing: the rows are no longer chosen.
    const again = deleteDuplicates(w.input, w.token());
    assert.equal(again.deleted.length, 0);
    assert.equal(w.events.length, 2);
  });

  test('a timeout is looked up at once: gone → 削除済み, still there → no state and never resent', () => {
    const w = world([
      { kind: 'unknown', reason: 'committed' },
      { kind: 'unknown', reason: 'timeout' },
    ]);
    const s = deleteDuplicates(w.input, w.token());
    assert.deepEqual(s.deleted, [w.ids[0]]);
    assert.equal(s.stillThere, 1);
    assert.equal(w.state(w.ids[0]), DELETE_STATE.deleted);
    assert.equal(w.state(w.ids[1]), DELETE_STATE.none);
    assert.equal(w.row(w.ids[1])?.結果, DELETE_MSG.stillThere);
    assert.equal(w.events.filter((e) => e.startsWith('DELETE')).length, 2);
  });

  test('an answer MF cannot settle is 不明 until recovery finds it; recovery never sends a DELETE', () => {
    const w = world([{ kind: 'unknown', reason: 'committed' }]);
    const lookup = w.input.deleter.journal;
    w.lookupFails();
    const s = deleteDuplicates(w.input, w.token());
    assert.equal(s.unknown, 1);
    assert.equal(w.state(w.ids[0]), DELETE_STATE.unknown);
    w.input.deleter.journal = lookup;
    const recovered = recoverDeletions(w.input);
    assert.deepEqual(recovered.deleted, [w.ids[0]]);
    assert.equal(w.state(w.ids[0]), DELETE_STATE.deleted);
    assert.equal(w.row(w.ids[0])?.結果, DELETE_MSG.foundGone('2026-12-01 09:00'));
    assert.equal(w.events.filter((e) => e.startsWith('DELETE')).length, 2);
  });

  test('an answer that stops the run: the rest not sent, every claim settled back with why', () => {
    const w = world([{ kind: 'unauthorized', message: 'MFの認証に失敗しました' }]);
    const s = deleteDuplicates(w.input, w.token());
    assert.equal(s.returned, 2);
    assert.deepEqual(s.messages, ['MFの認証に失敗しました']);
    assert.deepEqual(w.events, [`DELETE ${w.ids[0]}`]);
    assert.equal(w.row(w.ids[0])?.結果, DELETE_MSG.notSent('MFの認証に失敗しました'));
    assert.equal(w.row(w.ids[1])?.結果, DELETE_MSG.notSent(DELETE_MSG.stopped));
    for (const id of w.ids) assert.equal(w.state(id), DELETE_STATE.none);
  });

  test('no time left: nothing sent, both claims back with the time as the reason', () => {
    const w = world();
    w.advance(10 * 60_000);
    const s = deleteDuplicates(w.input, w.token());
    assert.equal(s.returned, 2);
    assert.deepEqual(w.events, []);
    for (const id of w.ids) assert.equal(w.row(id)?.結果, DELETE_MSG.notSent(DELETE_MSG.time), id);
  });

  test('the settle finds the lock held: claims stay 削除中, untouched within the lease, looked up after it', () => {
    const w = world([{ kind: 'deleted' }, { kind: 'not-sent', reason: 'quota' }]);
    const token = w.token();
    // The claim's section gets the lock; the settle's does not.
    const acquire = w.input.lock.acquire;
    let sections = 0;
    w.input.lock.acquire = () => (++sections === 2 ? false : acquire());
    const s = deleteDuplicates(w.input, token);
    assert.equal(s.busy, true);
    for (const id of w.ids) assert.equal(w.state(id), DELETE_STATE.claimed);
    w.input.lock.acquire = acquire;
    assert.equal(recoverDeletions(w.input).recovered, 0, 'a claim within its lease belongs to its run');
    w.advance(LEASE);
    const r = recoverDeletions(w.input);
    assert.deepEqual(r.deleted, [w.ids[0]]);
    assert.equal(r.stillThere, 1);
    assert.equal(w.state(w.ids[0]), DELETE_STATE.deleted);
    assert.equal(w.state(w.ids[1]), DELETE_STATE.none);
    assert.equal(w.row(w.ids[1])?.結果, DELETE_MSG.claimNotSent);
    assert.equal(w.events.filter((e) => e.startsWith('DELETE')).length, 2);
  });

  test('a sheet changed after the dialog: refused, nothing claimed or sent', () => {
    const w = world();
    const token = w.token();
    w.edit(w.kept[0], { 操作: '削除' });
    const s = deleteDuplicates(w.input, token);
    assert.equal(s.refusedPlan, true);
    assert.deepEqual(s.messages, [DELETE_MSG.planChanged]);
    assert.deepEqual(w.events, []);
    for (const id of w.ids) assert.equal(w.state(id), DELETE_STATE.none);
  });

  test('another run holds the lock at recovery or at the claim: busy, nothing sent', () => {
    const w = world();
    w.holdLock(1);
    const s = deleteDuplicates(w.input, w.token());
    assert.equal(s.busy, true);
    assert.deepEqual(w.events, []);
  });
});

describe('which journals keep a group at the MF check', () => {
  /** A recorded member as the audit saw journal `n` (its facts), with the audit's proposal. */
  const member = (n: number, proposal: string): RecordedMember => {
    const j = journal(n, `TX${n}`);
    const [f] = journalFacts([j], new LedgerLinks([]));
    return {
      id: j.id,
      group: 'G-1',
      date: f.date,
      amount: f.amount,
      debit: f.debitLabel,
      credit: f.creditLabel,
      remark: '',
      origin: '',
      proposal,
      keys: [],
    };
  };
  /** Journals 1–3 in one group, 3 chosen; MF still lists `listed`. */
  const judge = (proposal: string, listed: number[]) => {
    const members = [member(1, proposal), member(2, proposal), member(3, PROPOSAL.delete)];
    const group: PlannedGroup = {
      group: 'G-1',
      members,
      chosen: [{ journalId: members[2].id, group: 'G-1', rowNumber: 4, member: members[2] }],
      survivors: members.slice(0, 2),
    };
    const view: MfView = {
      listed: new Map(listed.map((n) => [canonical(journal(n, `TX${n}`).id), journal(n, `TX${n}`)])),
      byId: new Map(),
    };
    return verdicts([group], view);
  };

  test('one kept journal gone: a group of one payment is still kept by the other', () => {
    const v = judge(PROPOSAL.keep, [2, 3]);
    assert.equal(v.refused.size, 0);
    assert.deepEqual(
      v.alive.get('G-1')?.map((m) => m.id),
      [journal(2, 'TX2').id],
    );
  });

  test('one kept journal gone in a group that may be several payments: refused (seed 982917)', () => {
    const v = judge(PROPOSAL.genuine, [2, 3]);
    assert.match(v.refused.get('G-1') ?? '', /別々の取引かもしれない/);
    assert.match(v.refused.get('G-1') ?? '', new RegExp(journal(1, 'TX1').id));
    assert.equal(v.alive.has('G-1'), false);
  });

  test('every kept journal there: a possibly-several-payments group goes ahead', () => {
    const v = judge(PROPOSAL.genuine, [1, 2, 3]);
    assert.equal(v.refused.size, 0);
  });
});
