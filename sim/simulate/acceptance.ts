/**
 * The four named acceptance cases of the idempotency literature, as deterministic runs of a built
 * bundle (the real one, or a test build) against a fake MF that makes a second journal whenever it
 * is asked twice — so a run that sends twice shows up as two journals for one key.
 *
 * - sequential duplicate: the same run twice, one after the other;
 * - parallel duplicate: two runs at the same time (interleaved call by call);
 * - timeout-then-retry: MF commits but the answer times out; later runs must not post again;
 * - expired lease: a run killed after claiming (one row sent, one not); later runs wait for the
 *   lease, then complete the sent row from MF and send the other once.
 */
import { remoteTagOf } from '../../src/core/keys';
import type { ExecutionResult } from '../gas/index';
import { runInterleaved, seededPick, type WorkerPool } from '../gas/interleave';
import { editLedger, records } from '../person';
import { BOB, clockEvent, createWorld, MINUTE, OWNER, type SimWorld } from './world';

export interface CaseResult {
  /** Journals per approved key (each must be exactly 1). */
  journals: Record<string, number>;
  /** Final 状態 per approved key. */
  states: Record<string, string>;
  /** What happened, for assertion messages. */
  log: string[];
  /** The same, at named moments on the way. */
  checkpoints: Record<string, { journals: Record<string, number>; states: Record<string, string> }>;
}

function approvedWorld(bundleDir: string, n: number, lagMinutes = 0): { w: SimWorld; keys: string[] } {
  const w = createWorld({ bundleDir, seed: 7, lines: 12, permissive: true, lagMinutes, rules: false });
  const r = w.emu.run('importTransactions', { user: OWNER });
  if (r.status !== 'ok') throw new Error(`import failed: ${JSON.stringify(r.error)}`);
  const keys = records(w.world, '台帳')
    .slice(0, n)
    .map((row) => String(row.キー));
  for (const key of keys) {
    editLedger(w.world, key, '勘定科目', '消耗品費');
    editLedger(w.world, key, '操作', '承認');
  }
  return { w, keys };
}

function result(w: SimWorld, keys: readonly string[], log: string[]): CaseResult {
  const journals = w.mf.journals();
  const rows = records(w.world, '台帳');
  return {
    journals: Object.fromEntries(
      keys.map((k) => [k, journals.filter((j) => j.tags.includes(remoteTagOf(k))).length]),
    ),
    states: Object.fromEntries(keys.map((k) => [k, String(rows.find((r) => r.キー === k)?.状態)])),
    log,
    checkpoints: {},
  };
}

function describeRun(name: string, r: ExecutionResult): string {
  const v = r.value as { messages?: string[] } | undefined;
  return `${name}: ${r.status} ${(v?.messages ?? []).join(' ')}`;
}

function trigger(w: SimWorld): ExecutionResult {
  return w.emu.run('runScheduled', {
    kind: 'trigger',
    user: OWNER,
    args: [clockEvent(w.triggerId, w.world.clock.now())],
  });
}

/** The same run twice, one after the other. */
export function sequentialDuplicate(bundleDir: string): CaseResult {
  const { w, keys } = approvedWorld(bundleDir, 5);
  const log: string[] = [];
  log.push(describeRun('postApproved', w.emu.run('postApproved', { user: OWNER })));
  log.push(describeRun('postApproved again', w.emu.run('postApproved', { user: OWNER })));
  w.world.clock.advance(MINUTE);
  log.push(describeRun('runScheduled', trigger(w)));
  log.push(describeRun('runScheduled again', trigger(w)));
  return result(w, keys, log);
}

/** Two postApproved runs by two people at the same moment, interleaved by `schedule`. */
export function parallelDuplicate(bundleDir: string, schedule: number, pool?: WorkerPool): CaseResult {
  const { w, keys } = approvedWorld(bundleDir, 5);
  const log: string[] = [];
  const results = runInterleaved(
    w.world,
    [
      { name: 'postApproved', user: OWNER },
      { name: 'postApproved', user: BOB },
    ],
    seededPick(schedule),
    { pool },
  );
  for (const r of results)
    log.push(`${r.name} by ${r.user}: ${r.status} ${JSON.stringify(r.value ?? r.error)}`);
  // Whatever one of them left (a busy lock), the next scheduled runs finish.
  for (let i = 0; i < 3; i++) {
    w.world.clock.advance(16 * MINUTE);
    log.push(describeRun('runScheduled', trigger(w)));
  }
  return result(w, keys, log);
}

/** MF commits the first journal but the answer times out; a retry, then scheduled runs. */
export function timeoutThenRetry(bundleDir: string, lagMinutes = 0): CaseResult {
  const { w, keys } = approvedWorld(bundleDir, 3, lagMinutes);
  const log: string[] = [];
  w.mf.injectFault({
    kind: 'commit-then-timeout',
    match: { method: 'POST', path: '/api/v3/transactions/journalize' },
  });
  log.push(describeRun('postApproved (times out)', w.emu.run('postApproved', { user: OWNER })));
  log.push(describeRun('postApproved (retry)', w.emu.run('postApproved', { user: BOB })));
  for (const minutes of [1, 5, 10, 20, 40]) {
    w.world.clock.advance(minutes * MINUTE);
    log.push(describeRun(`runScheduled (+${minutes} min)`, trigger(w)));
  }
  return result(w, keys, log);
}

/**
 * A run is killed right after MF committed the first journal: both claimed rows stay 送信中. A run
 * within the lease must not send them; after the lease the sent one completes from MF and the
 * other is sent once.
 */
export function expiredLease(bundleDir: string): CaseResult {
  const { w, keys } = approvedWorld(bundleDir, 2);
  const log: string[] = [];
  let sends = 0;
  w.world.beforeCall = (_exec, call) => {
    if (call.s === 'fetch' && JSON.stringify(call.a).includes('/transactions/journalize')) sends += 1;
    // The second journalize never leaves: the execution dies just before it.
    return sends === 2 ? 'kill' : undefined;
  };
  log.push(describeRun('postApproved (killed after one send)', w.emu.run('postApproved', { user: OWNER })));
  w.world.beforeCall = undefined;
  const killed = result(w, keys, []);
  for (const minutes of [1, 4]) {
    w.world.clock.advance(minutes * MINUTE);
    log.push(describeRun(`runScheduled (+${minutes} min, within the lease)`, trigger(w)));
  }
  const withinLease = result(w, keys, []);
  for (const minutes of [6, 15, 15, 15]) {
    w.world.clock.advance(minutes * MINUTE);
    log.push(describeRun(`runScheduled (+${minutes} min)`, trigger(w)));
  }
  const end = result(w, keys, log);
  end.checkpoints = {
    killed: { journals: killed.journals, states: killed.states },
    withinLease: { journals: withinLease.journals, states: withinLease.states },
  };
  return end;
}
