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
  return nowInScriptZone('yyyy-MM-dd');
}

/** Now in the script's time zone, in Utilities.formatDate's `pattern`. */
export function nowInScriptZone(pattern: string): string {
  return Utilities.formatDate(new Date(), Session.getScriptTimeZone(), pattern);
}

/** Now in `timeZone` (an IANA name), in Utilities.formatDate's `pattern`. */
export function nowInZone(timeZone: string, pattern: string): string {
  return Utilities.formatDate(new Date(), timeZone, pattern);
}

/** The script's time zone as the manifest sets it. */
export function scriptTimeZone(): string {
  return Session.getScriptTimeZone();
}

/** Utilities.sleep as asked (scriptClock's sleep rounds and caps; this one does not). */
export function sleep(ms: number): void {
  Utilities.sleep(ms);
}

/** Minutes from now to midnight in the script's time zone (the day kicho's usage record keeps). */
export function minutesLeftToday(): number {
  const [h, m] = Utilities.formatDate(new Date(), Session.getScriptTimeZone(), 'HH:mm')
    .split(':')
    .map(Number);
  return 24 * 60 - (h * 60 + m);
}
