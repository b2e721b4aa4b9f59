/**
 * The offline Apps Script emulator's public face: a world plus the built bundle, and executions of
 * entry points by name — menu clicks by a user, time-driven triggers, simple triggers.
 */
import { Execution, type ExecutionResult, GuestError } from './execution';
import { type ExecutionKind, World, type WorldOptions } from './world';

export { GAS_MESSAGES } from './errors';
export { Execution, ExecutionKilled, type ExecutionResult, GuestError } from './execution';
export { type ExecutionKind, World, type WorldOptions } from './world';

export interface RunOptions {
  kind?: ExecutionKind;
  user?: string;
  args?: unknown[];
}

export interface TriggerRun {
  triggerId: string;
  handler: string;
  result: ExecutionResult;
}

export class Emulator {
  readonly world: World;

  constructor(options: WorldOptions = {}) {
    this.world = new World(options);
  }

  /**
   * A new version of the project pushed over the same spreadsheet, properties and triggers (what
   * `clasp push` does): later executions load the bundle in `bundleDir`. The granted scopes stay.
   */
  deploy(bundleDir: string): void {
    this.world.bundleDir = bundleDir;
  }

  /** Starts an execution and leaves it open, so a test can interleave it with others. */
  open(options: { kind?: ExecutionKind; user?: string } = {}): Execution {
    return new Execution(this.world, options.kind ?? 'menu', options.user ?? this.world.owner);
  }

  /** Runs `name` as one whole execution and reports how it ended (it never throws for guest errors). */
  run(name: string, options: RunOptions = {}): ExecutionResult {
    const exec = this.open(options);
    try {
      exec.call(name, ...(options.args ?? []));
    } catch (e) {
      if (!(e instanceof GuestError) && !exec.killed) throw e;
    }
    return exec.end();
  }

  /** The onOpen simple trigger as Sheets fires it when `user` opens the spreadsheet. */
  openSpreadsheet(user = this.world.owner): ExecutionResult {
    return this.run('onOpen', { kind: 'simple', user, args: [{ $event: 'open', authMode: 'LIMITED' }] });
  }

  /**
   * Moves the virtual clock to `time`, firing every clock trigger that falls due on the way, each
   * as a trigger execution of its owner with the time-driven event object.
   */
  advanceTo(time: number): TriggerRun[] {
    const runs: TriggerRun[] = [];
    for (;;) {
      const due = this.world.triggers.due(time)[0];
      if (!due || due.nextRun === undefined) break;
      this.world.clock.advanceTo(due.nextRun);
      const firedAt = this.world.clock.now();
      this.world.triggers.fired(due, firedAt);
      const result = this.run(due.handler, {
        kind: 'trigger',
        user: due.owner,
        args: [clockEvent(due.id, firedAt)],
      });
      runs.push({ triggerId: due.id, handler: due.handler, result });
    }
    this.world.clock.advanceTo(time);
    return runs;
  }

  advance(ms: number): TriggerRun[] {
    return this.advanceTo(this.world.clock.now() + ms);
  }

  /**
   * What Google does at `/usercallback?state=…`: resolves the state token and runs its handler with
   * the request (used by the OAuth2 library's authCallback).
   */
  userCallback(parameters: Record<string, string>, user = this.world.owner): ExecutionResult {
    const token = this.world.ui.resolveStateToken(parameters.state ?? '', this.world.clock.now());
    if (!token) throw new Error('Invalid or expired state token');
    const parameter = { ...token.args, ...parameters };
    return this.run(token.handler, { kind: 'menu', user, args: [{ parameter }] });
  }
}

/** The event object of a time-driven trigger (fields as documented; timezone is UTC). */
export function clockEvent(triggerUid: string, at: number) {
  const d = new Date(at);
  return {
    authMode: 'FULL',
    triggerUid,
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    'day-of-month': d.getUTCDate(),
    'day-of-week': d.getUTCDay() === 0 ? 7 : d.getUTCDay(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    timezone: 'UTC',
  };
}
