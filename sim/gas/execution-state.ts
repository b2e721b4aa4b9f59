/** One execution's state and counters: its own file so that modules the world imports can name it without a cycle. */
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
