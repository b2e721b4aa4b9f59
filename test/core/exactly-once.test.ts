/**
 * The exactly-once skeleton (src/core/exactly-once/skeleton.ts) over a fake job: a keyed store that a
 * lock guards and a flush makes durable, and an "other side" that counts the effects each act had.
 * Each property below names the safety piece it fails without.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type ClaimState,
  claimable,
  type OutcomeKind,
  recoverable,
  SETTLES_TO,
} from '../../src/core/exactly-once/outcomes';
import {
  type Acted,
  type ExactlyOnceJob,
  type RunEnd,
  runExactlyOnce,
} from '../../src/core/exactly-once/skeleton';
import { parseLedger } from '../../src/core/ledger';
import {
  type Claimed,
  claimStateOf,
  outcomeKind,
  planClaim,
  type SendResult,
  settlePatch,
} from '../../src/core/posting';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { STATES } from '../../src/core/states';

const LEASE = 10_000;
const ACT_MS = 100;

/** How the other side answers one act: an outcome kind, whether the effect happened, whether it stops the run. */
type Answer = { kind: OutcomeKind; effect: boolean; stop?: true };

const ANSWERS: Answer[] = [
  { kind: 'done', effect: true },
  { kind: 'done', effect: true },
  { kind: 'rejected', effect: false },
  { kind: 'unknown', effect: true },
  { kind: 'unknown', effect: false },
  { kind: 'returned', effect: false },
  { kind: 'returned', effect: false, stop: true },
];

interface Item {
  state: ClaimState;
  at: number;
}

interface Script {
  items: number;
  /** Answers, used in turn (by index into ANSWERS). */
  answers: number[];
  /** Lock acquisitions, used in turn: false = another run holds it. Beyond the list, free. */
  lock: boolean[];
  /** Items a section may claim; the run's total budget. */
  chunk: number;
  budget: number;
  /** Time (ms into the run) after which no act may start. */
  actUntil: number;
}

/** A keyed store, a lock, a flush and an other side, with the checks each property makes as the run goes. */
function fakeWorld(script: Script) {
  const sheet = new Map<string, Item>();
  for (let i = 0; i < script.items; i++) sheet.set(`k${i}`, { state: 'open', at: 0 });
  let durable = new Map(sheet);
  const effects = new Map<string, number>();
  /** Keys whose last act answered unknown and that no recovery has looked up since. */
  const uncertain = new Set<string>();
  const acts: string[] = [];
  let locked = false;
  let t = 0;
  let answerAt = 0;
  let lockAt = 0;

  const lock = {
    acquire: () => {
      assert.ok(!locked, 'the lock is never taken twice');
      const free = script.lock[lockAt++] ?? true;
      locked = free;
      return free;
    },
    flushAndRelease: () => {
      durable = new Map([...sheet].map(([k, v]) => [k, { ...v }]));
      locked = false;
    },
  };
  const write = (key: string, item: Item) => {
    assert.ok(locked, 'writes happen under the lock');
    sheet.set(key, item);
  };

  /** Recovery: under the lock, each stale claim or unknown looked up on the other side. */
  const recover = (): 'recovered' | 'busy' => {
    if (!lock.acquire()) return 'busy';
    for (const [key, item] of sheet) {
      if (!recoverable(item.state, t - item.at, LEASE)) continue;
      write(key, { state: (effects.get(key) ?? 0) > 0 ? 'done' : 'open', at: t });
      uncertain.delete(key);
    }
    lock.flushAndRelease();
    return 'recovered';
  };

  function job(opts: { recover?: boolean; startedAt: number }): ExactlyOnceJob<string, Answer, 'stop'> {
    let claimedInRun = 0;
    let stopped = false;
    return {
      lock,
      recover: opts.recover ? recover : undefined,
      room: () => Math.min(script.chunk, script.budget - claimedInRun),
      lockedPhase(settle, room) {
        assert.ok(locked, 'a lock section runs under the lock');
        settle?.claims.forEach((key, i) => {
          const item = sheet.get(key);
          if (item?.state === 'claimed') write(key, { state: SETTLES_TO[settle.outcomes[i].kind], at: t });
        });
        const claims: string[] = [];
        for (const [key, item] of sheet) {
          if (claims.length >= room) break;
          if (!claimable(item.state)) continue;
          write(key, { state: 'claimed', at: t });
          claims.push(key);
        }
        claimedInRun += claims.length;
        return claims.length === 0 ? { kind: 'nothing' } : { kind: 'claimed', claims };
      },
      outOfTime: () => t - opts.startedAt >= script.actUntil,
      act(key): Acted<Answer, 'stop'> {
        assert.ok(!locked, `${key}: acted while holding the lock`);
        assert.equal(durable.get(key)?.state, 'claimed', `${key}: acted without a flushed claim`);
        assert.ok(!uncertain.has(key), `${key}: acted again after an unknown answer, before recovery`);
        assert.ok(!stopped, `${key}: acted after an answer stopped the run`);
        assert.ok(t - opts.startedAt < script.actUntil, `${key}: acted after the time budget`);
        const answer = ANSWERS[script.answers[answerAt++ % script.answers.length]];
        acts.push(key);
        t += ACT_MS;
        if (answer.effect) effects.set(key, (effects.get(key) ?? 0) + 1);
        if (answer.kind === 'unknown') uncertain.add(key);
        if (answer.stop) stopped = true;
        return { kind: answer.kind, answer, stop: answer.stop ? 'stop' : undefined };
      },
      notActed: () => ({ kind: 'returned', effect: false }),
    };
  }

  return {
    sheet,
    effects,
    acts,
    job,
    recover,
    run(opts: { recover?: boolean } = {}): RunEnd<'stop'> {
      t += 1;
      return runExactlyOnce(job({ ...opts, startedAt: t }));
    },
    /** Time passes beyond the lease: every claim left behind is stale. */
    later: () => {
      t += LEASE;
    },
    claimed: () => [...sheet].filter(([, i]) => i.state === 'claimed').map(([k]) => k),
  };
}

const scripts = fc.record({
  items: fc.integer({ min: 0, max: 12 }),
  answers: fc.array(fc.integer({ min: 0, max: ANSWERS.length - 1 }), { minLength: 1, maxLength: 20 }),
  lock: fc.array(fc.boolean(), { maxLength: 12 }),
  chunk: fc.integer({ min: 1, max: 5 }),
  budget: fc.integer({ min: 0, max: 15 }),
  actUntil: fc.integer({ min: 0, max: 15 * ACT_MS }),
});

describe('the exactly-once skeleton', () => {
  test('property: acts only on flushed claims, outside the lock; never twice where an effect may exist', () => {
    fc.assert(
      fc.property(scripts, fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), (script, recovers) => {
        const w = fakeWorld(script);
        for (const recover of recovers) {
          w.run({ recover });
          if (recover) w.later();
        }
        // The other side has each item at most once.
        for (const [key, n] of w.effects) assert.ok(n <= 1, `${key}: ${n} effects`);
      }),
      { numRuns: 300 },
    );
  });

  test('property: every claim is settled by its run, or the run ended busy and recovery settles it later', () => {
    fc.assert(
      fc.property(scripts, (script) => {
        const w = fakeWorld(script);
        const end = w.run();
        const left = w.claimed();
        if (left.length > 0)
          assert.deepEqual(end, { kind: 'busy', unsettled: true }, `left claimed: ${left.join(', ')}`);
        // Recovery (after the lease, with the lock free) leaves nothing claimed or unknown, and the
        // store agrees with the other side: done exactly where the effect happened.
        script.lock.length = 0;
        w.later();
        w.recover();
        for (const [key, item] of w.sheet) {
          assert.ok(item.state !== 'claimed' && item.state !== 'unknown', `${key}: ${item.state}`);
          assert.equal(item.state === 'done', (w.effects.get(key) ?? 0) === 1, `${key}: ${item.state}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('property: a stop or the budget ends the run cleanly (no act after it, its batch settled)', () => {
    fc.assert(
      fc.property(scripts, (script) => {
        script.lock.length = 0;
        const w = fakeWorld(script);
        const end = w.run();
        assert.deepEqual(w.claimed(), []);
        assert.ok(w.acts.length <= script.budget, `${w.acts.length} acts, budget ${script.budget}`);
        const stopped = w.acts.some((_, i) => ANSWERS[script.answers[i % script.answers.length]].stop);
        if (stopped) assert.deepEqual(end, { kind: 'stopped', by: 'stop' });
        else assert.ok(end.kind === 'done' || end.kind === 'budget', end.kind);
      }),
      { numRuns: 300 },
    );
  });

  test('a spent budget takes no lock; a busy lock claims nothing; a busy recovery ends the run first', () => {
    const none = fakeWorld({ items: 3, answers: [0], lock: [false], chunk: 2, budget: 0, actUntil: 1000 });
    assert.deepEqual(none.run(), { kind: 'budget', spent: 'room' });
    assert.deepEqual(none.run({ recover: true }), { kind: 'busy', unsettled: false });
    assert.deepEqual(none.acts, []);
    const busy = fakeWorld({ items: 3, answers: [0], lock: [false], chunk: 2, budget: 5, actUntil: 1000 });
    assert.deepEqual(busy.run(), { kind: 'busy', unsettled: false });
    assert.deepEqual(busy.claimed(), []);
  });

  test('batches: a full chunk claims again in the section that settles it; a short one ends the run', () => {
    const w = fakeWorld({ items: 5, answers: [0], lock: [], chunk: 2, budget: 10, actUntil: 10_000 });
    assert.deepEqual(w.run(), { kind: 'done' });
    assert.deepEqual(w.acts, ['k0', 'k1', 'k2', 'k3', 'k4']);
    const limited = fakeWorld({ items: 5, answers: [0], lock: [], chunk: 2, budget: 4, actUntil: 10_000 });
    assert.deepEqual(limited.run(), { kind: 'budget', spent: 'room' });
    assert.deepEqual(limited.acts, ['k0', 'k1', 'k2', 'k3']);
    const timed = fakeWorld({ items: 5, answers: [0], lock: [], chunk: 5, budget: 10, actUntil: 2 * ACT_MS });
    assert.deepEqual(timed.run(), { kind: 'budget', spent: 'time' });
    assert.deepEqual(timed.acts, ['k0', 'k1']);
    assert.deepEqual(
      [...timed.sheet.values()].map((i) => i.state),
      ['done', 'done', 'open', 'open', 'open'],
    );
  });

  test('the lock lost before a settle leaves the batch claimed, for recovery after the lease', () => {
    const w = fakeWorld({
      items: 2,
      answers: [3],
      lock: [true, false],
      chunk: 2,
      budget: 10,
      actUntil: 10_000,
    });
    assert.deepEqual(w.run(), { kind: 'busy', unsettled: true });
    assert.deepEqual(w.claimed(), ['k0', 'k1']);
    w.run({ recover: true });
    assert.deepEqual(w.acts, ['k0', 'k1'], 'not recovered before the lease: not acted on again');
    assert.deepEqual(w.claimed(), ['k0', 'k1'], 'a claim younger than the lease may be a live run’s');
    w.later();
    w.run({ recover: true });
    assert.deepEqual(w.acts, ['k0', 'k1'], 'recovered: the effects are found, nothing is acted on again');
    assert.deepEqual(
      [...w.sheet.values()].map((i) => i.state),
      ['done', 'done'],
    );
  });
});

describe('posting is an instance', () => {
  const claim = (state: string): Claimed => ({
    key: 'mf:1',
    rowNumber: 2,
    record: parseLedger([LEDGER_HEADERS.slice(), LEDGER_HEADERS.map((h) => (h === '状態' ? state : ''))])
      .rows[0].record,
    attemptsBefore: 0,
  });
  const results: SendResult[] = [
    { kind: 'created', journalId: 'j', fingerprint: 'f' },
    { kind: 'found', journalId: 'j', fingerprint: 'f' },
    { kind: 'rejected', status: 400, code: 'c', message: 'm' },
    { kind: 'rate-limited', retryAfterMs: null },
    { kind: 'unauthorized', message: 'm' },
    { kind: 'unknown', reason: 'r' },
    { kind: 'invalid', problems: ['p'] },
    { kind: 'stopped', reason: 'r' },
    { kind: 'not-sent', reason: 'r' },
    { kind: 'refused', reason: 'r' },
  ];

  test('each send answer settles its row where the skeleton says its outcome kind goes', () => {
    for (const result of results) {
      const state = String(settlePatch(claim('送信中'), result, 'now').状態);
      assert.equal(claimStateOf(state), SETTLES_TO[outcomeKind(result)], `${result.kind} → ${state}`);
    }
  });

  test('only a row whose 状態 is the open item is claimed, and its claim is the claimed state', () => {
    for (const state of [...STATES, '', '削除中']) {
      const rows = parseLedger([
        LEDGER_HEADERS.slice(),
        LEDGER_HEADERS.map((h) => (h === '状態' ? state : h === 'キー' ? 'mf:1' : '')),
      ]).rows;
      const plan = planClaim(rows, 10, 'now');
      assert.equal(plan.claimed.length === 1, claimable(claimStateOf(state)), state);
      for (const c of plan.changes) assert.equal(claimStateOf(String(c.patch.状態)), 'claimed');
    }
  });
});
