/** What an entry point's body is given and returns (its own file so the permission gate can name it without a cycle). */
export interface RunContext {
  startedAt: number;
  fromTrigger: boolean;
  who: string;
}

export interface RunSummary {
  ok: boolean;
  action: string;
  /** The main count for ログ (rows imported, posted, …). */
  count: number;
  messages: string[];
  [detail: string]: unknown;
}

export interface RunResult {
  ok?: boolean;
  count: number;
  messages: string[];
  [detail: string]: unknown;
}

export type RunBody = (ctx: RunContext) => RunResult;
