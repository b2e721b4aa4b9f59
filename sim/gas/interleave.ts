/**
 * Several executions of one world, interleaved at service-call granularity. Each execution runs in
 * its own worker thread with its own vm context (guest services + the built bundle); every service
 * call is posted to this thread, which waits until every live execution is blocked on a call (or
 * done), lets `pick` choose which one to answer, answers it from the world, and repeats. Guest code
 * between calls cannot be observed by others, so the outcome depends only on the choices: a seed
 * reproduces a run exactly.
 *
 * Fidelity beyond "one call at a time":
 * - Time: a call takes its latency on the virtual clock, but while it does (a fetch waiting 60 s for
 *   a timeout, a sleep), the other executions go on; the caller continues when the clock has caught
 *   up. Calls due within `quantumMs` of each other are ordered by `pick`.
 * - A contended `tryLock(ms)` / `waitLock(ms)` WAITS: the call stays unanswered until the holder
 *   releases (then it takes the lock) or the virtual timeout passes (then false, or waitLock's
 *   message). When every execution waits, the clock jumps to the earliest timeout.
 * - Jobs may start later (`startAt`, virtual time): a job starts when the clock gets there, so
 *   executions overlap only as much as their virtual durations make them.
 * - A job may be killed instead of having its n-th call answered (`killAtCall`): unflushed writes
 *   are lost and its locks released, as when Apps Script kills an execution.
 *
 * Workers can be reused across calls through a `WorkerPool` (compiled scripts are cached per worker),
 * which makes thousands of interleaved executions cheap.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { type Call, decode, encode } from './protocol';
import { guestSource } from './scripts';
import type { Counters, ExecutionKind, ExecutionState, World } from './world';

export interface InterleavedJob {
  name: string;
  kind?: ExecutionKind;
  user?: string;
  args?: unknown[];
  /**
   * The arguments as they are when the execution starts, when they depend on what ran before it (a
   * dialog's button sends what the dialog showed); read-only on the world. Takes the place of `args`.
   */
  argsAtStart?: () => unknown[];
  /** Virtual time (ms) at which the execution starts; default: at once. */
  startAt?: number;
  /** Kill the execution instead of answering its n-th service call (1-based). */
  killAtCall?: number;
}

export interface InterleavedResult {
  id: number;
  name: string;
  status: 'ok' | 'error' | 'killed';
  value?: unknown;
  error?: string;
  calls: number;
  kind: ExecutionKind;
  user: string;
  startedAt: number;
  endedAt: number;
  counters: Counters;
}

export interface InterleaveOptions {
  /** Workers to reuse (see WorkerPool); default: fresh workers, terminated at the end. */
  pool?: WorkerPool;
  /**
   * Executions whose next call is due within this much virtual time of each other are interleaved in
   * the order `pick` chooses (default 200 ms); further apart, time decides.
   */
  quantumMs?: number;
  /** A number in [0, 1): a call takes up to that much longer than its latency (seeded variation). */
  jitter?: () => number;
}

const DEFAULT_QUANTUM_MS = 200;

/** Chooses which pending execution's call is answered next (indices into `pending`). */
export type Pick = (pending: readonly number[]) => number;

/** A seeded pick (mulberry32), so a failing interleaving is reproducible by its number. */
export function seededPick(seed: number): Pick {
  let state = seed >>> 0;
  return (pending) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return pending[Math.floor(r * pending.length)];
  };
}

// Plain JavaScript run in each worker: no TypeScript loader is needed there. The worker serves jobs
// one after another; between jobs and between service calls it waits for the main thread's next
// message. Every call carries a sequence number and its reply the same one, so that a call the guest
// abandoned (an exception thrown in the host function after the call was posted, e.g. a stack
// overflow) cannot shift later replies onto the wrong calls: a reply to an abandoned call is dropped,
// and the next call says how many were abandoned. Compiled scripts are kept per bundle.
const WORKER_SOURCE = `
'use strict';
const vm = require('node:vm');
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { port, signal, wake } = workerData;
const mainSignal = new Int32Array(signal);
const myWake = new Int32Array(wake);
function post(message) {
  port.postMessage(message);
  Atomics.add(mainSignal, 0, 1);
  Atomics.notify(mainSignal, 0);
}
function receive() {
  for (;;) {
    const m = receiveMessageOnPort(port);
    if (m) return m.message;
    Atomics.wait(myWake, 0, 0, 100);
    Atomics.store(myWake, 0, 0);
  }
}
let seq = 0;
let dropped = 0;
let abandoned = 0;
function awaitReply(k) {
  for (;;) {
    const m = receive();
    if (m && m.type === 'reply' && m.seq === k) return m.reply;
    dropped += 1;
  }
}
function awaitJob() {
  for (;;) {
    const m = receive();
    if (m && (m.type === 'job' || m.type === 'exit')) return m;
    dropped += 1;
  }
}
let guest;
const bundles = new Map();
for (;;) {
  const job = awaitJob();
  if (job.type === 'exit') break;
  let reply;
  try {
    if (job.guest) guest = new vm.Script(job.guest, { filename: 'kicho-emulator-services.js' });
    if (job.bundle) bundles.set(job.bundleKey, job.bundle.map((f) => new vm.Script(f.code, { filename: f.name })));
    const context = vm.createContext({
      __kichoHost: (request) => {
        const k = ++seq;
        let posted = false;
        try {
          post({ type: 'call', request, seq: k, abandoned, dropped });
          posted = true;
          return awaitReply(k);
        } catch (e) {
          if (posted) abandoned += 1;
          throw e;
        }
      },
      __kichoStart: job.start,
    });
    guest.runInContext(context);
    for (const script of bundles.get(job.bundleKey)) script.runInContext(context);
    context.__kichoName = job.name;
    context.__kichoArgs = job.argsJson;
    reply = vm.runInContext('__kichoInvoke(__kichoName, __kichoArgs)', context);
  } catch (e) {
    reply = JSON.stringify({ ok: false, message: String((e && e.message) || e), name: String((e && e.name) || 'Error') });
  }
  post({ type: 'done', reply, abandoned, dropped });
}
`;

interface PooledWorker {
  worker: Worker;
  port: MessagePort;
  wake: Int32Array;
  hasGuest: boolean;
  bundles: Set<string>;
}

/** Worker threads kept across interleaved runs (and across worlds), each with its compiled scripts. */
export class WorkerPool {
  private readonly signalBuffer = new SharedArrayBuffer(4);
  readonly signal = new Int32Array(this.signalBuffer);
  private readonly idle: PooledWorker[] = [];
  private readonly all = new Set<PooledWorker>();

  /** Workers started so far (for statistics). */
  get size(): number {
    return this.all.size;
  }

  take(): PooledWorker {
    const ready = this.idle.pop();
    if (ready) return ready;
    const { port1, port2 } = new MessageChannel();
    const wake = new SharedArrayBuffer(4);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Plain JavaScript: no loader (a --import hook inherited from the test runner or tsx slows the
      // start and can wait on this thread, which is blocked in Atomics.wait).
      execArgv: [],
      workerData: { port: port2, signal: this.signalBuffer, wake },
      transferList: [port2],
    });
    worker.unref();
    const w: PooledWorker = {
      worker,
      port: port1,
      wake: new Int32Array(wake),
      hasGuest: false,
      bundles: new Set(),
    };
    this.all.add(w);
    return w;
  }

  give(w: PooledWorker): void {
    this.idle.push(w);
  }

  /** A worker that misbehaved is not reused. */
  discard(w: PooledWorker): void {
    this.all.delete(w);
    void w.worker.terminate();
  }

  send(w: PooledWorker, message: unknown): void {
    w.port.postMessage(message);
    Atomics.store(w.wake, 0, 1);
    Atomics.notify(w.wake, 0);
  }

  close(): void {
    for (const w of this.all) {
      this.send(w, { type: 'exit' });
      void w.worker.terminate();
    }
    this.all.clear();
    this.idle.length = 0;
  }
}

interface Live {
  job: InterleavedJob;
  state?: ExecutionState;
  worker?: PooledWorker;
  pending?:
    | { type: 'call'; request: string; seq: number; abandoned: number; call?: Call }
    | { type: 'done'; reply: string; abandoned: number };
  /** Calls the guest abandoned so far (as the worker reports them). */
  abandoned: number;
  /** Virtual time until which a contended lock call waits. */
  waitUntil?: number;
  /** This execution's own time: when its last call has finished (it may not call before). */
  readyAt: number;
  calls: number;
  result?: InterleavedResult;
}

const bundleCache = new Map<string, { key: string; files: { name: string; code: string }[] }>();

function bundleFiles(dir: string): { key: string; files: { name: string; code: string }[] } {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort();
  const key = `${path.resolve(dir)}|${names.map((f) => `${f}:${statSync(path.join(dir, f)).mtimeMs}`).join('|')}`;
  const cached = bundleCache.get(dir);
  if (cached && cached.key === key) return cached;
  const entry = {
    key,
    files: names.map((f) => ({ name: f, code: readFileSync(path.join(dir, f), 'utf8') })),
  };
  bundleCache.set(dir, entry);
  return entry;
}

const LOCK_ACQUIRE = new Set(['tryLock', 'waitLock']);

/** Runs `jobs` to completion as concurrent executions of `world`, answering calls in the order `pick` chooses. */
export function runInterleaved(
  world: World,
  jobs: InterleavedJob[],
  pick: Pick,
  options: InterleaveOptions = {},
): InterleavedResult[] {
  const pool = options.pool ?? new WorkerPool();
  const quantum = options.quantumMs ?? DEFAULT_QUANTUM_MS;
  const jitter = options.jitter ?? (() => 0);
  const bundle = bundleFiles(world.bundleDir);
  const live: Live[] = jobs.map((job) => ({ job, calls: 0, readyAt: 0, abandoned: -1 }));
  /** A guest that abandoned a call (see WORKER_SOURCE) ran differently from Apps Script: say so. */
  const noteAbandoned = (l: Live, count: number): void => {
    if (l.abandoned >= 0 && count > l.abandoned) {
      (l.state as ExecutionState).internalErrors.push(
        'the guest abandoned a service call (an exception in the host function after the call was sent)',
      );
    }
    l.abandoned = count;
  };
  const previousLockWaits = world.lockWaits;
  world.lockWaits = 'scheduler';

  const start = (l: Live): void => {
    const w = pool.take();
    l.worker = w;
    l.state = world.beginExecution(l.job.kind ?? 'menu', l.job.user ?? world.owner);
    l.readyAt = world.clock.now();
    pool.send(w, {
      type: 'job',
      guest: w.hasGuest ? undefined : guestSource(),
      bundleKey: bundle.key,
      bundle: w.bundles.has(bundle.key) ? undefined : bundle.files,
      name: l.job.name,
      argsJson: encode(l.job.argsAtStart?.() ?? l.job.args ?? []),
      start: world.clock.now(),
    });
    w.hasGuest = true;
    w.bundles.add(bundle.key);
  };

  /** Whether a pending lock call may be answered at `at` (a contended one waits for release or its timeout). */
  const lockReady = (l: Live, at: number): boolean => {
    const p = l.pending;
    if (p?.type !== 'call') return true;
    p.call ??= decode(p.request) as Call;
    const call = p.call;
    const state = l.state as ExecutionState;
    if (call.s !== 'lock' || !LOCK_ACQUIRE.has(call.m)) return true;
    if (at - state.startedAt > state.limitMs) return true; // the world kills it when answered
    const [scope, timeout] = call.a as [string, unknown];
    const holder = world.locks.holder(scope as never, state.user);
    // The timeout runs from the call, not from the last release: a waiter that lost the lock to
    // another waiter when it came free keeps its deadline (cleared only when its call is answered).
    l.waitUntil ??= at + (typeof timeout === 'number' && timeout >= 0 ? timeout : 0);
    if (holder === undefined || holder === state.id || typeof timeout !== 'number' || timeout < 0)
      return true;
    return at >= l.waitUntil;
  };

  try {
    for (;;) {
      const now = world.clock.now();
      for (const l of live) if (!l.state && (l.job.startAt ?? now) <= now) start(l);
      const running = live.filter((l) => l.state && !l.result);
      const unstarted = live.filter((l) => !l.state);
      if (running.length === 0) {
        if (unstarted.length === 0) break;
        world.clock.advanceTo(Math.min(...unstarted.map((l) => l.job.startAt ?? now)));
        continue;
      }
      // Wait until every running execution has posted its next call (or finished).
      for (;;) {
        const seen = Atomics.load(pool.signal, 0);
        for (const l of running) {
          if (!l.pending) {
            const m = receiveMessageOnPort((l.worker as PooledWorker).port);
            if (m) {
              l.pending = m.message;
              noteAbandoned(l, m.message.abandoned);
            }
          }
        }
        if (running.every((l) => l.pending)) break;
        if (Atomics.wait(pool.signal, 0, seen, 60_000) === 'timed-out') {
          for (const l of running) if (!l.pending) pool.discard(l.worker as PooledWorker);
          throw new Error('an execution neither called a service nor finished within 60 s');
        }
      }
      // Executions whose previous call has taken its time (within a quantum of now), and whose call
      // is not a lock wait still going on, may go next.
      const eligible = running.filter(
        (l) => l.readyAt <= now + quantum && lockReady(l, Math.max(now, l.readyAt)),
      );
      if (eligible.length === 0) {
        const times = [
          ...running.map((l) =>
            l.readyAt > now + quantum ? l.readyAt : (l.waitUntil ?? Number.POSITIVE_INFINITY),
          ),
          ...unstarted.map((l) => l.job.startAt ?? now),
        ];
        const next = Math.min(...times);
        if (!Number.isFinite(next))
          throw new Error('every execution waits for a lock that is never released');
        world.clock.advanceTo(next);
        continue;
      }
      const ids = eligible.map((l) => (l.state as ExecutionState).id);
      const chosenId = pick(ids);
      const chosen = eligible.find((l) => (l.state as ExecutionState).id === chosenId) ?? eligible[0];
      const state = chosen.state as ExecutionState;
      world.clock.advanceTo(chosen.readyAt);
      const pending = chosen.pending as NonNullable<Live['pending']>;
      chosen.pending = undefined;
      if (pending.type === 'done') {
        finish(world, chosen, pending.reply);
        pool.give(chosen.worker as PooledWorker);
        continue;
      }
      chosen.waitUntil = undefined;
      chosen.calls += 1;
      if (chosen.job.killAtCall === chosen.calls) world.killExecution(state.id);
      const before = world.clock.now();
      const reply = world.handle(state.id, pending.call ?? (decode(pending.request) as Call));
      const after = world.clock.now();
      // The call took after - before (plus jitter) of this execution's time; the others go on meanwhile.
      chosen.readyAt = after + Math.floor(jitter() * (after - before));
      if (after > before) world.rewindClock(before);
      pool.send(chosen.worker as PooledWorker, { type: 'reply', seq: pending.seq, reply: encode(reply) });
    }
  } finally {
    world.lockWaits = previousLockWaits;
    const ends = live.map((l) => l.result?.endedAt ?? l.readyAt);
    world.clock.advanceTo(Math.max(world.clock.now(), ...ends));
    if (!options.pool) pool.close();
  }
  return live.map((l) => l.result as InterleavedResult);
}

function finish(world: World, l: Live, replyJson: string): void {
  const state = l.state as ExecutionState;
  const reply = decode(replyJson) as { ok: boolean; value?: unknown; message?: string };
  if (state.status === 'running') world.endExecution(state.id, reply.ok ? 'ok' : 'error');
  const status = state.status === 'killed' ? 'killed' : reply.ok ? 'ok' : 'error';
  l.result = {
    id: state.id,
    name: l.job.name,
    status,
    value: reply.value,
    error: reply.ok ? undefined : reply.message,
    calls: l.calls,
    kind: state.kind,
    user: state.user,
    startedAt: state.startedAt,
    endedAt: world.clock.now(),
    counters: state.counters,
  };
}
