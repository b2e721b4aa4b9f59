/**
 * One execution: a fresh vm context (no Node globals) holding the guest services and the built
 * bundle, talking to the world only through `world.handle`. Apps Script runs every script file's
 * top-level code at the start of each execution, and so does this.
 */
import vm from 'node:vm';
import { decode, encode } from './protocol';
import { bundleScripts, guestScript } from './scripts';
import type { Counters, ExecutionKind, ExecutionState, World } from './world';

/** Guard against a runaway loop in guest code (real seconds; the virtual 6-minute limit is separate). */
const REAL_TIMEOUT_MS = 120_000;

export interface ExecutionResult {
  id: number;
  kind: ExecutionKind;
  user: string;
  status: 'ok' | 'error' | 'killed';
  value?: unknown;
  error?: { name: string; message: string; stack?: string };
  startedAt: number;
  endedAt: number;
  counters: Counters;
  logs: string[];
  internalErrors: string[];
}

/** A guest exception surfaced to the host (the entry point threw). */
export class GuestError extends Error {
  constructor(
    message: string,
    readonly guestName: string,
    readonly guestStack?: string,
  ) {
    super(message);
  }
}

/** The execution was killed (6-minute limit or an injected kill). */
export class ExecutionKilled extends Error {}

interface GuestReply {
  ok: boolean;
  value?: unknown;
  message?: string;
  name?: string;
  stack?: string;
}

export class Execution {
  readonly state: ExecutionState;
  private readonly context: vm.Context;
  private lastError?: { name: string; message: string; stack?: string };
  private lastValue?: unknown;

  constructor(
    private readonly world: World,
    kind: ExecutionKind,
    user: string,
  ) {
    this.state = world.beginExecution(kind, user);
    const id = this.state.id;
    this.context = vm.createContext(
      {
        __kichoHost: (request: string) => encode(world.handle(id, decode(request) as never)),
        __kichoStart: world.clock.now(),
      },
      { name: `execution-${id}`, codeGeneration: { strings: true, wasm: false } },
    );
    guestScript().runInContext(this.context, { timeout: REAL_TIMEOUT_MS });
    for (const script of bundleScripts(world.bundleDir)) {
      this.guard(() => script.runInContext(this.context, { timeout: REAL_TIMEOUT_MS }));
    }
  }

  get id(): number {
    return this.state.id;
  }

  get killed(): boolean {
    return this.state.status === 'killed';
  }

  /** Calls a global function by name, as Apps Script does for menus, triggers and google.script.run. */
  call(name: string, ...args: unknown[]): unknown {
    this.context.__kichoArgs = encode(args);
    this.context.__kichoName = name;
    const reply = this.guard(
      () =>
        decode(
          vm.runInContext('__kichoInvoke(__kichoName, __kichoArgs)', this.context, {
            timeout: REAL_TIMEOUT_MS,
          }),
        ) as GuestReply,
    );
    return this.settle(reply);
  }

  /** Evaluates source inside the execution (tests use it to act at a precise point). */
  eval(source: string): unknown {
    this.context.__kichoSource = source;
    const reply = this.guard(
      () =>
        decode(
          vm.runInContext('__kichoEval(__kichoSource)', this.context, { timeout: REAL_TIMEOUT_MS }),
        ) as GuestReply,
    );
    return this.settle(reply);
  }

  /** Kills the execution now, as the platform would: no further call succeeds, buffered writes are lost. */
  kill(): void {
    this.world.killExecution(this.id);
  }

  /** Ends the execution normally (writes applied, locks released) unless it was killed. */
  end(): ExecutionResult {
    if (this.state.status === 'running') this.world.endExecution(this.id, this.lastError ? 'error' : 'ok');
    const s = this.state;
    return {
      id: s.id,
      kind: s.kind,
      user: s.user,
      status: s.status === 'killed' ? 'killed' : s.status === 'error' ? 'error' : 'ok',
      value: this.lastValue,
      error:
        s.status === 'killed'
          ? { name: 'Exception', message: s.killMessage ?? 'Exceeded maximum execution time' }
          : this.lastError,
      startedAt: s.startedAt,
      endedAt: this.world.clock.now(),
      counters: s.counters,
      logs: s.logs,
      internalErrors: s.internalErrors,
    };
  }

  private settle(reply: GuestReply): unknown {
    if (this.killed) throw new ExecutionKilled(`execution ${this.id} was killed`);
    if (!reply.ok) {
      this.lastError = { name: reply.name ?? 'Error', message: reply.message ?? '', stack: reply.stack };
      throw new GuestError(reply.message ?? '', reply.name ?? 'Error', reply.stack);
    }
    this.lastError = undefined;
    this.lastValue = reply.value;
    return reply.value;
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      // An exception escaping the guest's own try/catch (top-level bundle code, a vm timeout).
      const err = e as { message?: string; name?: string; stack?: string };
      this.lastError = { name: err?.name ?? 'Error', message: err?.message ?? String(e), stack: err?.stack };
      if (this.killed) throw new ExecutionKilled(`execution ${this.id} was killed`);
      throw new GuestError(this.lastError.message, this.lastError.name, this.lastError.stack);
    }
  }
}
