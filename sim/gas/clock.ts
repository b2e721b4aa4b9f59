/** The world's virtual clock: only service latencies, sleeps and explicit advances move it. */
export class VirtualClock {
  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    if (ms > 0) this.current += ms;
  }

  /**
   * Interleaving only: sets the clock back so that other executions can act while one execution's
   * slow call (a fetch timing out, a sleep) is in progress. Nothing else may move time backwards.
   */
  rewindTo(time: number): void {
    this.current = time;
  }

  /** Moves forward to `time` (never backwards). */
  advanceTo(time: number): void {
    if (time > this.current) this.current = time;
  }
}

/** Apps Script kills an execution at 6 minutes (reference/gas-platform.md §4.1). */
export const EXECUTION_LIMIT_MS = 6 * 60 * 1000;
/** Simple triggers (onOpen) may run for 30 seconds. */
export const SIMPLE_TRIGGER_LIMIT_MS = 30 * 1000;
