/**
 * This account's scheduled-run usage today (Tokyo day), in user properties: quotas are per account,
 * and user properties are the trigger owner's own. One read and one write per scheduled run.
 */
import { addRun, type DailyUsage, usageFor } from '../core/quota';
import { today } from './clock';

const KEY = 'KICHO_USAGE';

export function readUsage(): DailyUsage {
  return usageFor(PropertiesService.getUserProperties().getProperty(KEY), today());
}

export function recordRun(before: DailyUsage, ms: number, fetches: number): void {
  const day = today();
  const base = before.day === day ? before : usageFor(null, day);
  PropertiesService.getUserProperties().setProperty(KEY, JSON.stringify(addRun(base, ms, fetches)));
}
