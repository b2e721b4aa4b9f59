import type { MfAccountingPeriod } from './types';

/**
 * Calendar dates as `yyyy-MM-dd` strings. Arithmetic goes through UTC midnight so the script's time zone
 * (Asia/Tokyo in production and in tests) can never shift a day.
 */
const DAY_MS = 86_400_000;

/**
 * MF rejects a /transactions window "more than 366 days apart" (mf-api.md §6). Whether that counts the
 * days between or the days covered is not documented, so a window covers at most 366 calendar days,
 * which satisfies both readings.
 */
export const MAX_WINDOW_DAYS = 366;

export interface DateWindow {
  start: string;
  end: string;
}

export function isIsoDate(text: unknown): text is string {
  if (typeof text !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

function toMs(date: string): number {
  if (!isIsoDate(date)) throw new RangeError(`日付は yyyy-MM-dd 形式で指定してください: ${date}`);
  return Date.parse(`${date}T00:00:00Z`);
}

export function addDays(date: string, days: number): string {
  return new Date(toMs(date) + days * DAY_MS).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((toMs(to) - toMs(from)) / DAY_MS);
}

/**
 * Consecutive, non-overlapping inclusive windows covering `start`..`end`, each covering at most `maxDays`
 * calendar days. Empty when start is after end.
 */
export function splitWindow(start: string, end: string, maxDays: number = MAX_WINDOW_DAYS): DateWindow[] {
  if (!Number.isInteger(maxDays) || maxDays < 1) throw new RangeError(`maxDays must be ≥ 1: ${maxDays}`);
  const windows: DateWindow[] = [];
  if (daysBetween(start, end) < 0) return windows;
  let from = start;
  for (;;) {
    const last = addDays(from, maxDays - 1);
    if (last >= end) {
      windows.push({ start: from, end });
      return windows;
    }
    windows.push({ start: from, end: last });
    from = addDays(last, 1);
  }
}

/**
 * The listing windows for a chunk's dates: dates within a month (31 days) of each other share one, so a
 * chunk costs one listing per cluster of dates, not per row. What is no yyyy-MM-dd is left out.
 */
export function nearbyWindows(dates: readonly string[]): DateWindow[] {
  const sorted = [...new Set(dates.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)))].sort();
  const out: DateWindow[] = [];
  for (const d of sorted) {
    const open = out[out.length - 1];
    if (open && Date.parse(d) - Date.parse(open.end) <= 31 * DAY_MS) open.end = d;
    else out.push({ start: d, end: d });
  }
  return out;
}

/** The accounting period (会計期間) containing `date`, or null when the office has none for it. */
export function accountingPeriodFor(
  date: string,
  periods: readonly MfAccountingPeriod[],
): MfAccountingPeriod | null {
  toMs(date);
  for (const period of periods) {
    if (period.start_date <= date && date <= period.end_date) return period;
  }
  return null;
}

/**
 * `start`..`end` cut at accounting-period boundaries. GET /journals only searches the period containing
 * the date it is given (mf-api.md §5), so a window spanning two terms must be asked once per term. Parts
 * of the window outside every known period are left out: MF answers them with "Given date is outside the
 * accounting period."
 */
export function splitByPeriods(
  start: string,
  end: string,
  periods: readonly MfAccountingPeriod[],
): DateWindow[] {
  toMs(start);
  toMs(end);
  const windows: DateWindow[] = [];
  const sorted = [...periods].sort((a, b) => (a.start_date < b.start_date ? -1 : 1));
  for (const period of sorted) {
    const from = start > period.start_date ? start : period.start_date;
    const to = end < period.end_date ? end : period.end_date;
    if (from <= to) windows.push({ start: from, end: to });
  }
  return windows;
}
