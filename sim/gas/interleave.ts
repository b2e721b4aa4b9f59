/**
 * Several executions of one world, interleaved at service-call granularity. Each execution runs in
 * its own worker thread with its own vm context (guest services + the built bundle); every service
 * call is posted to this thread, which waits until every live execution is blocked on a call (or
 * done), lets `pick` choose which one to answer, answers it from the world, and repeats. Guest code
 * between calls cannot be observed by others, so the outcome depends only on the choices: a seed
 * reproduces a run exactly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { decode, encode } from './protocol';
import { guestSource } from './scripts';
import type { ExecutionKind, ExecutionState, World } from './world';

export interface InterleavedJob {
  name: string;
  kind?: ExecutionKind;
  user?: string;
  args?: unknown[];
}

export interface InterleavedResult {
  id: number;
  name: string;
  status: 'ok' | 'error' | 'killed';
  value?: unknown;
  error?: string;
  calls: number;
}

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

// Plain JavaScript run in each worker: no TypeScript loader is needed there. The host function posts
// each request and sleeps until the main thread has answered.
const WORKER_SOURCE = `
'use strict';
const vm = require('node:vm');
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { port, signal, wake, guest, bundle, name, argsJson, start } = workerData;
const mainSignal = new Int32Array(signal);
const myWake = new Int32Array(wake);
function post(message) {
  port.postMessage(message);
  Atomics.add(mainSignal, 0, 1);
  Atomics.notify(mainSignal, 0);
}
const context = vm.createContext({
  __kichoHost: (request) => {
    post({ type: 'call', request });
    Atomics.wait(myWake, 0, 0);
    Atomics.store(myWake, 0, 0);
    return receiveMessageOnPort(port).message;
  },
  __kichoStart: start,
});
let reply;
try {
  new vm.Script(guest, { filename: 'kicho-emulator-services.js' }).runInContext(context);
  for (const file of bundle) new vm.Script(file.code, { filename: file.name }).runInContext(context);
  context.__kichoName = name;
  context.__kichoArgs = argsJson;
  reply = vm.runInContext('__kichoInvoke(__kichoName, __kichoArgs)', context);
} catch (e) {
  reply = JSON.stringify({ ok: false, message: String(e && e.message || e), name: String(e && e.name || 'Error') });
}
post({ type: 'done', reply });
`;

interface Live {
  job: InterleavedJob;
  state: ExecutionState;
  worker: Worker;
  port: MessagePort;
  wake: Int32Array;
  pending?: { type: 'call'; request: string } | { type: 'done'; reply: string };
  calls: number;
  result?: InterleavedResult;
}

function bundleFiles(dir: string): { name: string; code: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => ({ name: f, code: readFileSync(path.join(dir, f), 'utf8') }));
}

/** Runs `jobs` to completion as concurrent executions of `world`, answering calls in the order `pick` chooses. */
export function runInterleaved(world: World, jobs: InterleavedJob[], pick: Pick): InterleavedResult[] {
  const signal = new SharedArrayBuffer(4);
  const mainSignal = new Int32Array(signal);
  const guest = guestSource();
  const bundle = bundleFiles(world.bundleDir);
  const live: Live[] = jobs.map((job) => {
    const { port1, port2 } = new MessageChannel();
    const wake = new SharedArrayBuffer(4);
    const state = world.beginExecution(job.kind ?? 'menu', job.user ?? world.owner);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        port: port2,
        signal,
        wake,
        guest,
        bundle,
        name: job.name,
        argsJson: encode(job.args ?? []),
        start: world.clock.now(),
      },
      transferList: [port2],
    });
    return { job, state, worker, port: port1, wake: new Int32Array(wake), calls: 0 };
  });
  try {
    for (;;) {
      const running = live.filter((l) => !l.result);
      if (running.length === 0) break;
      // Wait until every running execution has posted its next call (or finished).
      for (;;) {
        const seen = Atomics.load(mainSignal, 0);
        for (const l of running) {
          if (!l.pending) {
            const m = receiveMessageOnPort(l.port);
            if (m) l.pending = m.message;
          }
        }
        if (running.every((l) => l.pending)) break;
        if (Atomics.wait(mainSignal, 0, seen, 60_000) === 'timed-out') {
          throw new Error('an execution neither called a service nor finished within 60 s');
        }
      }
      for (const l of running) {
        if (l.pending?.type === 'done') finish(world, l, l.pending.reply);
      }
      const waiting = running.filter((l) => l.pending?.type === 'call');
      if (waiting.length === 0) continue;
      const chosen = waiting.find((l) => l.state.id === pick(waiting.map((w) => w.state.id))) ?? waiting[0];
      const call = chosen.pending as { type: 'call'; request: string };
      chosen.pending = undefined;
      chosen.calls += 1;
      chosen.port.postMessage(encode(world.handle(chosen.state.id, decode(call.request) as never)));
      Atomics.store(chosen.wake, 0, 1);
      Atomics.notify(chosen.wake, 0);
    }
  } finally {
    for (const l of live) void l.worker.terminate();
  }
  return live.map((l) => l.result as InterleavedResult);
}

function finish(world: World, l: Live, replyJson: string): void {
  const reply = decode(replyJson) as { ok: boolean; value?: unknown; message?: string };
  if (l.state.status === 'running') world.endExecution(l.state.id, reply.ok ? 'ok' : 'error');
  const status = l.state.status === 'killed' ? 'killed' : reply.ok ? 'ok' : 'error';
  l.result = {
    id: l.state.id,
    name: l.job.name,
    status,
    value: reply.value,
    error: reply.ok ? undefined : reply.message,
    calls: l.calls,
  };
}
