/**
 * The world: everything executions share — the spreadsheet, the script lock, properties, caches,
 * triggers, the UI log, the virtual clock and the HTTP routes (fake MF). It answers each service
 * call of an execution synchronously through `handle(execId, call)`; nothing else crosses over.
 */
import { checkScope, Grants, manifestScopes } from './authorization';
import { EXECUTION_LIMIT_MS, SIMPLE_TRIGGER_LIMIT_MS, VirtualClock } from './clock';
import { GAS_MESSAGES, GasError } from './errors';
import type { PlainTextApostrophe } from './lib/coerce';
import type { Call, Reply } from './protocol';
import { type AccountKind, type QuotaReset, QuotaTable } from './quota';
import { SERVICES, type ServiceContext } from './services';
import { CacheStores } from './services/cache';
import { FetchRouter } from './services/fetch-router';
import { LockTable } from './services/lock';
import { PropertyStores } from './services/properties';
import { SpreadsheetModel } from './services/sheets-model';
import { TriggerTable } from './services/triggers';
import { UiLog } from './services/ui';

/** 'webapp': doGet/doPost of a deployment, run as the deploying user (appsscript.json webapp.executeAs). */
export type ExecutionKind = 'menu' | 'trigger' | 'simple' | 'editor' | 'webapp';
export type ExecutionStatus = 'running' | 'ok' | 'error' | 'killed';

/** Service-call counters of one execution, so tests and the benchmark can assert batching. */
export interface Counters {
  calls: number;
  sheetsReads: number;
  sheetsWrites: number;
  flushes: number;
  urlFetches: number;
  lockOps: number;
  propertyOps: number;
  byMethod: Record<string, number>;
  /** Cells of the ranges read and written (values, formats …), as the per-cell latency charges them. */
  sheetsCells?: number;
}

export interface ExecutionState {
  id: number;
  kind: ExecutionKind;
  user: string;
  startedAt: number;
  limitMs: number;
  status: ExecutionStatus;
  counters: Counters;
  logs: string[];
  /** Emulator bugs surfaced during the execution; tests assert there are none. */
  internalErrors: string[];
  /** Why a killed execution ended (default: the 6-minute limit). */
  killMessage?: string;
}

/** Latencies (virtual ms) charged per service call; they drive the 6-minute budget. */
export interface LatencyTable {
  sheetsRead: number;
  sheetsWrite: number;
  /** Extra per cell read/written: large ranges cost seconds in real Sheets (estimate, reference/gas-platform.md §2.1). */
  sheetsReadPerCell: number;
  sheetsWritePerCell: number;
  flush: number;
  lock: number;
  properties: number;
  urlFetch: number;
  other: number;
}

export type WritePolicy = 'buffer' | 'write-through';

export interface WorldOptions {
  /** Virtual start time (ms since epoch or ISO string). */
  start?: number | string;
  timeZone?: string;
  scriptId?: string;
  spreadsheetName?: string;
  /** Owner of the spreadsheet and the script. */
  owner?: string;
  /** Other editors (menu users). */
  editors?: string[];
  /**
   * 'buffer' (default): sheet writes are held per execution until flush(), a read of the same
   * sheet by that execution, or normal completion; other executions see them only then; a
   * killed execution loses them. 'write-through' applies every write at once.
   */
  writePolicy?: WritePolicy;
  /** Whether the '@' number format alone stops `=` from becoming a formula (undocumented; default false). */
  plainTextStopsFormulas?: boolean;
  /** What a leading apostrophe written into an '@' cell does (undocumented; default 'kept'). */
  plainTextApostrophe?: PlainTextApostrophe;
  /** Whether a leading apostrophe counts toward the 50,000-character cell limit (undocumented; default true). */
  cellLimitCountsApostrophe?: boolean;
  /** The spreadsheet's own time zone (File > Settings), when it differs from the script's `timeZone`. */
  spreadsheetTimeZone?: string;
  latency?: Partial<LatencyTable>;
  /** Folder holding the built bundle (Code.js, *.html). */
  bundleDir?: string;
  /** Seed for everything random the platform does (UUIDs, jitter). */
  seed?: number;
  /**
   * Granular consent: the scopes each listed user ticked (unlisted users granted the whole manifest).
   * `world.grants` changes them later (a person re-authorizing).
   */
  grants?: Record<string, readonly string[]>;
  /** Account kind per user for the daily quotas (default consumer). */
  accounts?: Record<string, AccountKind>;
  /** When a quota day ends (README "Switches"; default 'rolling-24h', as Google documents). */
  quotaReset?: QuotaReset;
}

export interface Fault {
  service: string;
  method?: string;
  message: string;
  times: number;
}

const DEFAULT_LATENCY: LatencyTable = {
  sheetsRead: 40,
  sheetsWrite: 40,
  sheetsReadPerCell: 0.002,
  sheetsWritePerCell: 0.004,
  flush: 60,
  lock: 5,
  properties: 5,
  urlFetch: 250,
  other: 2,
};

export class World {
  readonly clock: VirtualClock;
  readonly timeZone: string;
  readonly scriptId: string;
  /** The web-app deployment id (ScriptApp.getService().getUrl()), or null when not deployed as a web app. */
  webAppDeployment: string | null = 'AKfycbKichoSimulatedDeployment0123456789';
  readonly owner: string;
  readonly editors: string[];
  readonly writePolicy: WritePolicy;
  readonly plainTextStopsFormulas: boolean;
  readonly plainTextApostrophe: PlainTextApostrophe;
  readonly latency: LatencyTable;
  /** Where the project's code is loaded from; `Emulator.deploy` replaces it (an upgrade). */
  bundleDir: string;
  readonly spreadsheet: SpreadsheetModel;
  readonly locks = new LockTable();
  readonly properties = new PropertyStores();
  readonly caches: CacheStores;
  readonly triggers = new TriggerTable();
  readonly ui = new UiLog();
  readonly fetch = new FetchRouter();
  readonly executions = new Map<number, ExecutionState>();
  readonly grants: Grants;
  readonly quotas: QuotaTable;
  private readonly faults: Fault[] = [];
  /**
   * Called before each service call is answered; tests use it to act at a precise point (kill the
   * execution, let a person sort a sheet). Returning 'kill' kills the calling execution.
   */
  beforeCall?: (exec: ExecutionState, call: Call) => 'kill' | undefined;
  /**
   * How a contended lock call waits. 'spend' (default; executions run one at a time): the timeout
   * passes on the virtual clock and the call fails. 'scheduler' (set by runInterleaved): the
   * scheduler holds the call until the holder releases or the timeout has passed, so by the time the
   * world answers, the wait is over.
   */
  lockWaits: 'spend' | 'scheduler' = 'spend';
  private nextExecutionId = 1;
  private randomState: number;

  constructor(options: WorldOptions = {}) {
    const start = options.start ?? '2026-11-30T09:00:00+09:00';
    this.clock = new VirtualClock(typeof start === 'number' ? start : Date.parse(start));
    this.timeZone = options.timeZone ?? 'Asia/Tokyo';
    this.scriptId = options.scriptId ?? '1kichoSIMscriptIdAbCdEfGhIjKlMnOpQrStUvWxYz0123456';
    this.owner = options.owner ?? 'owner@example.com';
    this.editors = options.editors ?? [];
    this.writePolicy = options.writePolicy ?? 'buffer';
    this.plainTextStopsFormulas = options.plainTextStopsFormulas ?? false;
    this.plainTextApostrophe = options.plainTextApostrophe ?? 'kept';
    this.latency = { ...DEFAULT_LATENCY, ...options.latency };
    this.bundleDir = options.bundleDir ?? 'dist';
    this.spreadsheet = new SpreadsheetModel({
      name: options.spreadsheetName ?? '記帳',
      timeZone: options.spreadsheetTimeZone ?? this.timeZone,
      owner: this.owner,
      editors: this.editors,
      plainTextStopsFormulas: this.plainTextStopsFormulas,
      plainTextApostrophe: this.plainTextApostrophe,
      cellLimitCountsApostrophe: options.cellLimitCountsApostrophe ?? true,
    });
    this.caches = new CacheStores(() => this.clock.now());
    this.randomState = (options.seed ?? 1) >>> 0;
    this.spreadsheet.writeThrough = this.writePolicy === 'write-through';
    this.grants = new Grants(manifestScopes(this.bundleDir), options.grants);
    this.quotas = new QuotaTable(options.accounts ?? {}, options.quotaReset ?? 'rolling-24h');
  }

  /** Deterministic random in [0, 1) (mulberry32), so a seed reproduces a whole run. */
  random(): number {
    this.randomState = (this.randomState + 0x6d2b79f5) >>> 0;
    let t = this.randomState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Registers a new execution; the caller (an Execution) drives it. */
  beginExecution(kind: ExecutionKind, user: string): ExecutionState {
    const state: ExecutionState = {
      id: this.nextExecutionId++,
      kind,
      user,
      startedAt: this.clock.now(),
      limitMs: kind === 'simple' ? SIMPLE_TRIGGER_LIMIT_MS : EXECUTION_LIMIT_MS,
      status: 'running',
      counters: {
        calls: 0,
        sheetsReads: 0,
        sheetsWrites: 0,
        flushes: 0,
        urlFetches: 0,
        lockOps: 0,
        propertyOps: 0,
        byMethod: {},
      },
      logs: [],
      internalErrors: [],
    };
    this.executions.set(state.id, state);
    return state;
  }

  /** Normal end (returned or threw): buffered writes are applied, locks released. */
  endExecution(id: number, status: 'ok' | 'error'): void {
    const exec = this.mustGet(id);
    if (exec.status !== 'running') return;
    this.spreadsheet.commit(id);
    this.locks.releaseAll(id);
    exec.status = status;
    this.chargeRuntime(exec);
  }

  /** Trigger executions spend their owner's daily trigger runtime (reference/gas-platform.md §4.2). */
  private chargeRuntime(exec: ExecutionState): void {
    if (exec.kind !== 'trigger') return;
    const now = this.clock.now();
    this.quotas.use(exec.user, 'triggerRuntimeMs', now - exec.startedAt, now);
  }

  /** Abrupt end (6-minute limit, crash): buffered writes are lost, locks released (LK: "released when the script terminates"). */
  killExecution(id: number, message?: string): void {
    const exec = this.mustGet(id);
    if (exec.status !== 'running') return;
    this.spreadsheet.discard(id);
    this.locks.releaseAll(id);
    exec.status = 'killed';
    if (message) exec.killMessage = message;
    this.chargeRuntime(exec);
  }

  /** Makes the next `times` calls of service[.method] throw `message` (e.g. LockService's transient error). */
  injectFault(fault: { service: string; method?: string; message: string; times?: number }): void {
    this.faults.push({ ...fault, times: fault.times ?? 1 });
  }

  /**
   * Interleaving only: moves the clock back to `time` after a call of one execution has taken its
   * (virtual) time, so that the other executions can act while that call is in progress — a fetch
   * waiting 60 s for a timeout, a sleep. The interleaver holds the caller until the clock has caught up.
   */
  rewindClock(time: number): void {
    this.clock.rewindTo(time);
  }

  /** Drops every injected fault not yet used up. */
  clearFaults(): void {
    this.faults.length = 0;
  }

  /** Answers one service call. Never throws: errors travel back in the reply. */
  handle(execId: number, call: Call): Reply {
    const exec = this.mustGet(execId);
    if (exec.status === 'killed') return this.killedReply(exec);
    if (exec.status !== 'running') {
      return { ok: false, message: 'Execution has ended.', name: 'EmulatorError', t: this.clock.now() };
    }
    if (this.clock.now() - exec.startedAt > exec.limitMs) {
      this.killExecution(execId);
      return this.killedReply(exec);
    }
    if (this.overRuntimeQuota(exec)) {
      // README "Switches": the platform ends a trigger execution once its owner's day is spent.
      this.killExecution(execId, GAS_MESSAGES.computerTime);
      return this.killedReply(exec);
    }
    if (this.beforeCall?.(exec, call) === 'kill') {
      this.killExecution(execId);
      return this.killedReply(exec);
    }
    const service = SERVICES[call.s];
    const method = service?.[call.m];
    if (!method) {
      const message = `Emulator does not model ${call.s}.${call.m}`;
      exec.internalErrors.push(message);
      return { ok: false, message, name: 'EmulatorError', t: this.clock.now() };
    }
    this.count(exec, call, method.kind);
    this.clock.advance(this.latencyOf(method.kind));
    try {
      this.throwInjectedFault(call);
      checkScope(this.grants, exec, call.s, call.m);
      const ctx: ServiceContext = { world: this, exec };
      const value = method.fn(ctx, ...call.a);
      return { ok: true, v: value, t: this.clock.now() };
    } catch (e) {
      if (e instanceof GasError)
        return { ok: false, message: e.message, name: 'Exception', t: this.clock.now() };
      const message = e instanceof Error ? (e.stack ?? e.message) : String(e);
      exec.internalErrors.push(message);
      return { ok: false, message: `Emulator error: ${message}`, name: 'EmulatorError', t: this.clock.now() };
    }
  }

  /** A trigger execution once its owner's trigger runtime today, this run included, passes the limit. */
  private overRuntimeQuota(exec: ExecutionState): boolean {
    if (exec.kind !== 'trigger') return false;
    const now = this.clock.now();
    const used = this.quotas.used(exec.user, 'triggerRuntimeMs', now);
    return used + (now - exec.startedAt) >= this.quotas.limit(exec.user, 'triggerRuntimeMs');
  }

  private killedReply(exec: ExecutionState): Reply {
    return {
      ok: false,
      message: exec.killMessage ?? GAS_MESSAGES.maxExecutionTime,
      name: 'Exception',
      killed: true,
      t: this.clock.now(),
    };
  }

  private throwInjectedFault(call: Call): void {
    const i = this.faults.findIndex(
      (f) => f.service === call.s && (f.method === undefined || f.method === call.m),
    );
    if (i < 0) return;
    const fault = this.faults[i];
    fault.times -= 1;
    if (fault.times <= 0) this.faults.splice(i, 1);
    throw new GasError(fault.message);
  }

  private count(exec: ExecutionState, call: Call, kind: ServiceKind): void {
    const c = exec.counters;
    c.calls += 1;
    const key = `${call.s}.${call.m}`;
    c.byMethod[key] = (c.byMethod[key] ?? 0) + 1;
    if (kind === 'read') c.sheetsReads += 1;
    else if (kind === 'write') c.sheetsWrites += 1;
    else if (kind === 'flush') c.flushes += 1;
    else if (kind === 'fetch') c.urlFetches += 1;
    else if (kind === 'lock') c.lockOps += 1;
    else if (kind === 'properties') c.propertyOps += 1;
  }

  private latencyOf(kind: ServiceKind): number {
    switch (kind) {
      case 'read':
        return this.latency.sheetsRead;
      case 'write':
        return this.latency.sheetsWrite;
      case 'flush':
        return this.latency.flush;
      case 'lock':
        return this.latency.lock;
      case 'properties':
        return this.latency.properties;
      case 'fetch':
        return 0; // the fetch service charges its own latency (and timeouts)
      case 'free':
        return 0;
      default:
        return this.latency.other;
    }
  }

  mustGet(id: number): ExecutionState {
    const exec = this.executions.get(id);
    if (!exec) throw new Error(`Unknown execution ${id}`);
    return exec;
  }
}

/** What a service method costs and how it is counted. */
export type ServiceKind = 'read' | 'write' | 'flush' | 'fetch' | 'lock' | 'properties' | 'other' | 'free';
