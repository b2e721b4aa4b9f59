/**
 * Installable triggers: stored per owner (triggers run as their creator and are invisible to other
 * accounts), with the documented limits, and a schedule the world's runner fires.
 */
import { GAS_MESSAGES, GasError } from '../errors';

export interface ClockSchedule {
  everyMinutes?: number;
  everyHours?: number;
  everyDays?: number;
  everyWeeks?: number;
  atHour?: number;
  nearMinute?: number;
  onWeekDay?: string;
  at?: number;
  after?: number;
  timeZone?: string;
}

export interface TriggerSpec {
  id: string;
  owner: string;
  handler: string;
  source: 'CLOCK' | 'SPREADSHEETS';
  eventType: 'CLOCK' | 'ON_OPEN' | 'ON_EDIT' | 'ON_CHANGE' | 'ON_FORM_SUBMIT';
  schedule?: ClockSchedule;
  sourceId?: string;
  /** Next virtual time a clock trigger fires; undefined once a one-shot trigger has fired. */
  nextRun?: number;
}

export const TRIGGERS_PER_USER = 20;
const VALID_MINUTES = [1, 5, 10, 15, 30];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export class TriggerTable {
  list: TriggerSpec[] = [];
  private counter = 0;

  create(spec: Omit<TriggerSpec, 'id' | 'nextRun'>, now: number): TriggerSpec {
    if (this.list.filter((t) => t.owner === spec.owner).length >= TRIGGERS_PER_USER) {
      throw new GasError(GAS_MESSAGES.tooManyTriggers);
    }
    if (spec.schedule) validateSchedule(spec.schedule);
    this.counter += 1;
    const trigger: TriggerSpec = { ...spec, id: String(7_000_000_000 + this.counter * 7919) };
    if (spec.source === 'CLOCK' && spec.schedule) trigger.nextRun = firstRun(spec.schedule, now);
    this.list.push(trigger);
    return trigger;
  }

  visibleTo(user: string): TriggerSpec[] {
    return this.list.filter((t) => t.owner === user);
  }

  delete(id: string, user: string): void {
    const t = this.list.find((x) => x.id === id);
    // Deleting another account's trigger is impossible: it cannot even be listed.
    if (!t || t.owner !== user) throw new GasError('Trigger not found.');
    this.list = this.list.filter((x) => x.id !== id);
  }

  /** Clock triggers due at or before `time`, earliest first. */
  due(time: number): TriggerSpec[] {
    return this.list
      .filter((t) => t.nextRun !== undefined && t.nextRun <= time)
      .sort((a, b) => (a.nextRun ?? 0) - (b.nextRun ?? 0));
  }

  /** Records that `t` fired at `time` and schedules its next run. */
  fired(t: TriggerSpec, time: number): void {
    t.nextRun = t.schedule ? nextRun(t.schedule, time) : undefined;
  }
}

function validateSchedule(s: ClockSchedule): void {
  if (s.everyMinutes !== undefined && !VALID_MINUTES.includes(s.everyMinutes)) {
    throw new GasError('The value passed to everyMinutes() must be 1, 5, 10, 15 or 30.');
  }
  if (s.everyHours !== undefined && !(Number.isInteger(s.everyHours) && s.everyHours >= 1)) {
    throw new GasError('Invalid argument: hours');
  }
  if (s.atHour !== undefined && !(Number.isInteger(s.atHour) && s.atHour >= 0 && s.atHour <= 23)) {
    throw new GasError('Invalid argument: hour');
  }
}

function interval(s: ClockSchedule): number | undefined {
  if (s.everyMinutes) return s.everyMinutes * MINUTE;
  if (s.everyHours) return s.everyHours * HOUR;
  if (s.everyDays) return s.everyDays * DAY;
  if (s.everyWeeks) return s.everyWeeks * 7 * DAY;
  return undefined;
}

function firstRun(s: ClockSchedule, now: number): number | undefined {
  if (s.at !== undefined) return s.at;
  if (s.after !== undefined) return now + s.after;
  const step = interval(s);
  if (step === undefined) return undefined;
  if (s.atHour !== undefined) return nextAtHour(now, s.atHour, s.nearMinute ?? 0, step);
  return now + step;
}

function nextRun(s: ClockSchedule, last: number): number | undefined {
  if (s.at !== undefined || s.after !== undefined) return undefined;
  const step = interval(s);
  return step === undefined ? undefined : last + step;
}

/** Next time at hour:minute Japan time (the manifest time zone) after `now`, stepping by days. */
function nextAtHour(now: number, hour: number, minute: number, step: number): number {
  const JST = 9 * HOUR;
  const dayStart = Math.floor((now + JST) / DAY) * DAY - JST;
  let t = dayStart + hour * HOUR + minute * MINUTE;
  while (t <= now) t += Math.max(step, DAY);
  return t;
}
