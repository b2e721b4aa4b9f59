/** Time for the protocol: the script's clock and Utilities.sleep (there is no setTimeout in Apps Script). */
import type { ClockPort } from '../core/ports';

export function scriptClock(): ClockPort {
  return {
    now: () => Date.now(),
    sleep: (ms: number) => Utilities.sleep(Math.max(0, Math.min(Math.round(ms), 300_000))),
    iso: () => new Date().toISOString(),
  };
}

/** Today in the script's time zone (Asia/Tokyo), yyyy-MM-dd. */
export function today(): string {
  return Utilities.formatDate(new Date(), Session.getScriptTimeZone(), 'yyyy-MM-dd');
}

/** Minutes from now to midnight in the script's time zone (the day kicho's usage record keeps). */
export function minutesLeftToday(): number {
  const [h, m] = Utilities.formatDate(new Date(), Session.getScriptTimeZone(), 'HH:mm')
    .split(':')
    .map(Number);
  return 24 * 60 - (h * 60 + m);
}
