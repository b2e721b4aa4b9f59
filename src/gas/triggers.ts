/**
 * The time-driven trigger for runScheduled. Triggers run as the account that created them and are
 * invisible to other accounts, so the owner is recorded in script properties: another account
 * running setup() is told who owns the schedule instead of silently adding a second one.
 */
const OWNER = 'KICHO_TRIGGER_OWNER';
const INTERVAL = 'KICHO_TRIGGER_INTERVAL';
export const SCHEDULE_HANDLER = 'runScheduled';

export type TriggerOutcome =
  | { kind: 'installed'; interval: number }
  | { kind: 'unchanged'; interval: number }
  | { kind: 'owned-by-other'; owner: string };

export function installScheduleTrigger(intervalMinutes: number): TriggerOutcome {
  const props = PropertiesService.getScriptProperties();
  const me = Session.getEffectiveUser().getEmail();
  const owner = props.getProperty(OWNER);
  const mine = ScriptApp.getProjectTriggers().filter((t) => t.getHandlerFunction() === SCHEDULE_HANDLER);
  if (owner && owner !== me && mine.length === 0) return { kind: 'owned-by-other', owner };
  if (mine.length === 1 && props.getProperty(INTERVAL) === String(intervalMinutes)) {
    return { kind: 'unchanged', interval: intervalMinutes };
  }
  for (const t of mine) ScriptApp.deleteTrigger(t);
  ScriptApp.newTrigger(SCHEDULE_HANDLER).timeBased().everyMinutes(intervalMinutes).create();
  props.setProperties({ [OWNER]: me, [INTERVAL]: String(intervalMinutes) });
  return { kind: 'installed', interval: intervalMinutes };
}

export const BACKUP_HANDLER = 'backupLedger';

/**
 * The daily trigger for backupLedger (at about 3 a.m.): one per project, owned by the same account
 * as the schedule, never a second one.
 */
export function installBackupTrigger(): TriggerOutcome {
  const props = PropertiesService.getScriptProperties();
  const me = Session.getEffectiveUser().getEmail();
  const owner = props.getProperty(OWNER);
  const mine = ScriptApp.getProjectTriggers().filter((t) => t.getHandlerFunction() === BACKUP_HANDLER);
  if (owner && owner !== me && mine.length === 0) return { kind: 'owned-by-other', owner };
  if (mine.length === 1) return { kind: 'unchanged', interval: 1440 };
  for (const t of mine) ScriptApp.deleteTrigger(t);
  ScriptApp.newTrigger(BACKUP_HANDLER).timeBased().everyDays(1).atHour(3).create();
  return { kind: 'installed', interval: 1440 };
}
