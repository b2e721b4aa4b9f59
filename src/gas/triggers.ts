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
  const outcome = ensureTrigger(
    SCHEDULE_HANDLER,
    true,
    () => {
      ScriptApp.newTrigger(SCHEDULE_HANDLER).timeBased().everyMinutes(intervalMinutes).create();
      props.setProperties({
        [OWNER]: Session.getEffectiveUser().getEmail(),
        [INTERVAL]: String(intervalMinutes),
      });
    },
    props.getProperty(INTERVAL) === String(intervalMinutes),
  );
  if (outcome === 'owned-by-other') return { kind: 'owned-by-other', owner: props.getProperty(OWNER) ?? '' };
  return { kind: outcome === 'installed' ? 'installed' : 'unchanged', interval: intervalMinutes };
}

export const BACKUP_HANDLER = 'backupLedger';
export const RECEIVABLES_HANDLER = 'checkReceivables';

export type FixedTriggerOutcome = 'installed' | 'removed' | 'unchanged' | 'owned-by-other';

/**
 * One trigger for `handler` when `wanted` (replaced unless `upToDate`), none when not; owned by the
 * account that owns the schedule (another account changes nothing: it cannot see those triggers).
 */
function ensureTrigger(
  handler: string,
  wanted: boolean,
  create: () => void,
  upToDate = true,
): FixedTriggerOutcome {
  const props = PropertiesService.getScriptProperties();
  const me = Session.getEffectiveUser().getEmail();
  const owner = props.getProperty(OWNER);
  const mine = ScriptApp.getProjectTriggers().filter((t) => t.getHandlerFunction() === handler);
  if (owner && owner !== me && mine.length === 0) return 'owned-by-other';
  if (wanted && mine.length === 1 && upToDate) return 'unchanged';
  if (!wanted && mine.length === 0) return 'unchanged';
  for (const t of mine) ScriptApp.deleteTrigger(t);
  if (!wanted) return 'removed';
  create();
  return 'installed';
}

/** The daily trigger for backupLedger, at about 3 a.m. */
export function installBackupTrigger(): FixedTriggerOutcome {
  return ensureTrigger(BACKUP_HANDLER, true, () => {
    ScriptApp.newTrigger(BACKUP_HANDLER).timeBased().everyDays(1).atHour(3).create();
  });
}

/** The weekly 売掛金チェック (Monday, about 8 a.m.) while 売掛金の定期チェック is オン. */
export function installReceivablesTrigger(wanted: boolean): FixedTriggerOutcome {
  return ensureTrigger(RECEIVABLES_HANDLER, wanted, () => {
    ScriptApp.newTrigger(RECEIVABLES_HANDLER)
      .timeBased()
      .everyWeeks(1)
      .onWeekDay(ScriptApp.WeekDay.MONDAY)
      .atHour(8)
      .create();
  });
}

/** What this account sees of the schedule (本番前チェック): its own triggers and what setup recorded. */
export function scheduleTriggerState(): {
  mine: number;
  me: string;
  owner: string | null;
  interval: number | null;
} {
  const props = PropertiesService.getScriptProperties();
  const interval = Number(props.getProperty(INTERVAL));
  return {
    mine: ScriptApp.getProjectTriggers().filter((t) => t.getHandlerFunction() === SCHEDULE_HANDLER).length,
    me: Session.getEffectiveUser().getEmail(),
    owner: props.getProperty(OWNER),
    interval: Number.isFinite(interval) && interval > 0 ? interval : null,
  };
}
