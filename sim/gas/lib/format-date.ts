// Utilities.formatDate / Utilities.parseDate: Java SimpleDateFormat patterns, English names (Apps Script
// formats with an English locale regardless of the account language), zones resolved like
// java.util.TimeZone.getTimeZone, which is what the Apps Script runtime calls under the hood.

export interface ZonedParts {
  /** Proleptic Gregorian year; 0 is 1 BC, -1 is 2 BC (Java's era/year-of-era split is done when formatting). */
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** 0 = Sunday .. 6 = Saturday */
  weekday: number;
  /** Local time minus UTC, in milliseconds (may include seconds for historical LMT offsets). */
  offsetMs: number;
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  millisecond?: number;
}

interface Zone {
  /** The id Java would report: custom offsets are normalised to `GMT+09:00`. */
  id: string;
  fixedOffsetMs?: number;
  fmt?: Intl.DateTimeFormat;
}

/** English month names (Utilities.formatDate and Sheets' en formats both use them). */
export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_MS = 86_400_000;

// Java's short zone names (the COMPAT names it falls back to) for zones Intl's en-US data renders as
// `GMT+9`. [standard, daylight]
const SHORT_NAMES: Record<string, [string, string]> = {
  'Asia/Tokyo': ['JST', 'JDT'],
  Japan: ['JST', 'JDT'],
  UTC: ['UTC', 'UTC'],
  'Etc/UTC': ['UTC', 'UTC'],
  GMT: ['GMT', 'GMT'],
  'Etc/GMT': ['GMT', 'GMT'],
  'Europe/London': ['GMT', 'BST'],
  'Europe/Paris': ['CET', 'CEST'],
  'Europe/Berlin': ['CET', 'CEST'],
  'Asia/Seoul': ['KST', 'KDT'],
  'Asia/Shanghai': ['CST', 'CDT'],
  'Asia/Kolkata': ['IST', 'IST'],
  'Australia/Sydney': ['AEST', 'AEDT'],
};

const zoneCache = new Map<string, Zone>();

/** Resolves a zone id like java.util.TimeZone.getTimeZone: custom `GMT+9`/`GMT+09:00` ids, IANA ids,
 * and (Java's documented behaviour) GMT for anything it does not recognise. */
function resolveZone(timeZone: string): Zone {
  const cached = zoneCache.get(timeZone);
  if (cached) return cached;
  let zone: Zone;
  const custom = /^GMT([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(timeZone);
  if (custom) {
    const h = Number(custom[2]);
    const m = Number(custom[3] ?? '0');
    if (h > 23 || m > 59) zone = { id: 'GMT', fixedOffsetMs: 0 };
    else {
      const sign = custom[1] === '-' ? -1 : 1;
      const off = sign * (h * 60 + m) * 60_000;
      zone =
        off === 0
          ? { id: 'GMT', fixedOffsetMs: 0 }
          : { id: `GMT${custom[1]}${pad(h, 2)}:${pad(m, 2)}`, fixedOffsetMs: off };
    }
  } else {
    try {
      const fmt = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
      zone = { id: timeZone, fmt };
    } catch {
      zone = { id: 'GMT', fixedOffsetMs: 0 };
    }
  }
  zoneCache.set(timeZone, zone);
  return zone;
}

/** The id Java would use for this zone (unknown ids become `GMT`, custom offsets are normalised). */
export function normaliseTimeZoneId(timeZone: string): string {
  return resolveZone(timeZone).id;
}

/** Offset of `timeZone` from UTC at the instant `t` (ms since epoch), in ms. */
export function getTimeZoneOffsetMs(t: Date | number, timeZone: string): number {
  const ms = typeof t === 'number' ? t : t.getTime();
  const zone = resolveZone(timeZone);
  if (zone.fixedOffsetMs !== undefined) return zone.fixedOffsetMs;
  // Intl only resolves whole seconds, so compare against the instant truncated to its second.
  const whole = Math.floor(ms / 1000) * 1000;
  const key = `${zone.id}|${whole}`;
  const hit = offsetCache.get(key);
  if (hit !== undefined) return hit;
  const parts = (zone.fmt as Intl.DateTimeFormat).formatToParts(new Date(whole));
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const p of parts) {
    switch (p.type) {
      case 'year':
        year = Number(p.value);
        break;
      case 'month':
        month = Number(p.value);
        break;
      case 'day':
        day = Number(p.value);
        break;
      case 'hour':
        hour = Number(p.value);
        break;
      case 'minute':
        minute = Number(p.value);
        break;
      case 'second':
        second = Number(p.value);
        break;
      case 'era':
        bc = p.value === 'BC' || p.value === 'B';
        break;
    }
  }
  if (bc) year = 1 - year;
  const offset = utcMs(year, month, day, hour, minute, second, 0) - whole;
  // formatToParts costs microseconds and simulations format the same instants over and over.
  if (offsetCache.size >= 20_000) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

const offsetCache = new Map<string, number>();

/** Wall-clock fields of an instant in a zone. */
export function getZonedParts(date: Date | number, timeZone: string): ZonedParts {
  const ms = typeof date === 'number' ? date : date.getTime();
  if (!Number.isFinite(ms)) throw new Error('Invalid argument: date');
  const offsetMs = getTimeZoneOffsetMs(ms, timeZone);
  const d = new Date(ms + offsetMs);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
    weekday: d.getUTCDay(),
    offsetMs,
  };
}

/**
 * The instant at which a zone's clock shows the given wall time. Out-of-range fields roll over (Java's
 * lenient Calendar). A time skipped by a DST jump is read with the offset before the jump (2:30 on a
 * spring-forward night becomes 3:30 daylight time) and a repeated time picks standard time, as
 * GregorianCalendar does.
 */
export function fromZonedParts(w: WallTime, timeZone: string): Date {
  const wall = utcMs(w.year, w.month, w.day, w.hour ?? 0, w.minute ?? 0, w.second ?? 0, w.millisecond ?? 0);
  const zone = resolveZone(timeZone);
  if (zone.fixedOffsetMs !== undefined) return new Date(wall - zone.fixedOffsetMs);
  const before = getTimeZoneOffsetMs(wall - DAY_MS, timeZone);
  const after = getTimeZoneOffsetMs(wall + DAY_MS, timeZone);
  // No transition within a day either side (the usual case): the wall time maps to exactly one instant.
  if (before === after && getTimeZoneOffsetMs(wall - before, timeZone) === before)
    return new Date(wall - before);
  const o1 = getTimeZoneOffsetMs(wall, timeZone);
  const o2 = getTimeZoneOffsetMs(wall - o1, timeZone);
  // Offsets in force a day either side cover both sides of any transition near this wall time.
  const candidates = new Set([o1, o2, before, after]);
  const valid = [...candidates].filter((o) => getTimeZoneOffsetMs(wall - o, timeZone) === o);
  const pick = valid.length > 0 ? Math.min(...valid) : Math.min(...candidates);
  return new Date(wall - pick);
}

/** Date.UTC without its 0..99 → 1900s year mapping, and with lenient overflow of every field. */
export function utcMs(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
  ms = 0,
): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, ms);
  return d.getTime();
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(n));
  return (n < 0 ? '-' : '') + (s.length >= width ? s : '0'.repeat(width - s.length) + s);
}

// ---------------------------------------------------------------------------------------------------------
// Pattern tokenizer (shared by format and parse)

type Token = { kind: 'field'; ch: string; count: number } | { kind: 'literal'; text: string };

const PATTERN_LETTERS = 'GyYMLwWDdFEuaHkKhmsSzZX';
const tokenCache = new Map<string, Token[]>();

function tokenize(pattern: string): Token[] {
  const cached = tokenCache.get(pattern);
  if (cached) return cached;
  const tokens: Token[] = [];
  const pushLiteral = (text: string): void => {
    const last = tokens[tokens.length - 1];
    if (last && last.kind === 'literal') last.text += text;
    else tokens.push({ kind: 'literal', text });
  };
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === "'") {
      if (pattern[i + 1] === "'") {
        pushLiteral("'");
        i += 2;
        continue;
      }
      // Quoted text runs to the next lone quote; `''` inside it is a quote character.
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= pattern.length) throw new Error(`Unterminated quote in pattern: ${pattern}`);
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") {
            text += "'";
            j += 2;
            continue;
          }
          break;
        }
        text += pattern[j];
        j++;
      }
      pushLiteral(text);
      i = j + 1;
      continue;
    }
    if (/[A-Za-z]/.test(ch)) {
      if (!PATTERN_LETTERS.includes(ch)) throw new Error(`Illegal pattern character '${ch}'`);
      let j = i;
      while (pattern[j] === ch) j++;
      const count = j - i;
      if (ch === 'X' && count > 3) throw new Error(`invalid ISO 8601 format: length=${count}`);
      tokens.push({ kind: 'field', ch, count });
      i = j;
      continue;
    }
    pushLiteral(ch);
    i++;
  }
  if (tokenCache.size > 500) tokenCache.clear();
  tokenCache.set(pattern, tokens);
  return tokens;
}

// ---------------------------------------------------------------------------------------------------------
// formatDate

/** Sunday on or before the given day (ms at UTC midnight of a wall date). */
function weekStart(dayMs: number): number {
  return dayMs - new Date(dayMs).getUTCDay() * DAY_MS;
}

/** en_US week rules (weeks start on Sunday, week 1 contains January 1st), as SimpleDateFormat uses. */
function usWeek(p: ZonedParts): { weekYear: number; week: number } {
  const day = utcMs(p.year, p.month, p.day);
  const start = weekStart(day);
  // A week belongs to the year of its Saturday: that is where January 1st falls if it is in the week.
  const weekYear = new Date(start + 6 * DAY_MS).getUTCFullYear();
  const firstWeek = weekStart(utcMs(weekYear, 1, 1));
  return { weekYear, week: Math.round((start - firstWeek) / (7 * DAY_MS)) + 1 };
}

function offsetText(offsetMs: number, style: 'Z' | 'X1' | 'X2' | 'X3' | 'GMT'): string {
  const totalMin = Math.trunc(offsetMs / 60_000);
  if ((style === 'X1' || style === 'X2' || style === 'X3') && totalMin === 0) return 'Z';
  const sign = totalMin < 0 ? '-' : '+';
  const h = pad(Math.floor(Math.abs(totalMin) / 60), 2);
  const m = pad(Math.abs(totalMin) % 60, 2);
  switch (style) {
    case 'Z':
    case 'X2':
      return `${sign}${h}${m}`;
    case 'X1':
      return `${sign}${h}`;
    case 'X3':
      return `${sign}${h}:${m}`;
    case 'GMT':
      return totalMin === 0 ? 'GMT' : `GMT${sign}${h}:${m}`;
  }
}

const longNameCache = new Map<string, Intl.DateTimeFormat>();
const shortNameCache = new Map<string, Intl.DateTimeFormat>();

function intlZoneName(ms: number, id: string, style: 'long' | 'short'): string | undefined {
  const cache = style === 'long' ? longNameCache : shortNameCache;
  let fmt = cache.get(id);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone: id, timeZoneName: style });
    cache.set(id, fmt);
  }
  return fmt.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value;
}

/** Whether DST is in force: the offset is above the smaller of January's and July's offsets. */
function isDaylight(ms: number, timeZone: string, offsetMs: number): boolean {
  const y = new Date(ms).getUTCFullYear();
  const jan = getTimeZoneOffsetMs(utcMs(y, 1, 1), timeZone);
  const jul = getTimeZoneOffsetMs(utcMs(y, 7, 1), timeZone);
  return jan !== jul && offsetMs > Math.min(jan, jul);
}

function zoneName(ms: number, timeZone: string, offsetMs: number, long: boolean): string {
  const zone = resolveZone(timeZone);
  if (zone.fixedOffsetMs !== undefined) return zone.fixedOffsetMs === 0 ? 'GMT' : zone.id;
  if (long) {
    const name = intlZoneName(ms, zone.id, 'long');
    return name && !/^GMT[+-]/.test(name) ? name : offsetText(offsetMs, 'GMT');
  }
  const table = SHORT_NAMES[zone.id];
  if (table) return isDaylight(ms, timeZone, offsetMs) ? table[1] : table[0];
  const name = intlZoneName(ms, zone.id, 'short');
  return name && /^[A-Z]{2,5}$/.test(name) ? name : offsetText(offsetMs, 'GMT');
}

/**
 * Utilities.formatDate(date, timeZone, pattern). Supports every SimpleDateFormat letter
 * (G y Y M L w W D d F E u a H k K h m s S z Z X) and quoting; other letters throw like Java.
 */
export function formatDate(date: Date | number, timeZone: string, pattern: string): string {
  const ms = typeof date === 'number' ? date : date.getTime();
  if (!Number.isFinite(ms)) throw new Error('Invalid argument: date');
  const p = getZonedParts(ms, timeZone);
  let out = '';
  for (const t of tokenize(pattern)) {
    if (t.kind === 'literal') {
      out += t.text;
      continue;
    }
    const n = t.count;
    switch (t.ch) {
      case 'G':
        out += p.year <= 0 ? 'BC' : 'AD';
        break;
      case 'y': {
        const yoe = p.year <= 0 ? 1 - p.year : p.year;
        out += n === 2 ? pad(yoe % 100, 2) : pad(yoe, n);
        break;
      }
      case 'Y': {
        const wy = usWeek(p).weekYear;
        const yoe = wy <= 0 ? 1 - wy : wy;
        out += n === 2 ? pad(yoe % 100, 2) : pad(yoe, n);
        break;
      }
      case 'M':
      case 'L':
        out += n >= 4 ? MONTHS[p.month - 1] : n === 3 ? MONTHS[p.month - 1].slice(0, 3) : pad(p.month, n);
        break;
      case 'w':
        out += pad(usWeek(p).week, n);
        break;
      case 'W': {
        const firstDow = new Date(utcMs(p.year, p.month, 1)).getUTCDay();
        out += pad(Math.floor((p.day - 1 + firstDow) / 7) + 1, n);
        break;
      }
      case 'D': {
        const doy = Math.round((utcMs(p.year, p.month, p.day) - utcMs(p.year, 1, 1)) / DAY_MS) + 1;
        out += pad(doy, n);
        break;
      }
      case 'd':
        out += pad(p.day, n);
        break;
      case 'F':
        out += pad(Math.floor((p.day - 1) / 7) + 1, n);
        break;
      case 'E':
        out += n >= 4 ? DAYS[p.weekday] : DAYS[p.weekday].slice(0, 3);
        break;
      case 'u':
        out += pad(p.weekday === 0 ? 7 : p.weekday, n);
        break;
      case 'a':
        out += p.hour < 12 ? 'AM' : 'PM';
        break;
      case 'H':
        out += pad(p.hour, n);
        break;
      case 'k':
        out += pad(p.hour === 0 ? 24 : p.hour, n);
        break;
      case 'K':
        out += pad(p.hour % 12, n);
        break;
      case 'h':
        out += pad(p.hour % 12 === 0 ? 12 : p.hour % 12, n);
        break;
      case 'm':
        out += pad(p.minute, n);
        break;
      case 's':
        out += pad(p.second, n);
        break;
      case 'S':
        // Java prints the millisecond count, zero-padded to the letter count (S of 5 ms is "5", not "0").
        out += pad(p.millisecond, n);
        break;
      case 'z':
        out += zoneName(ms, timeZone, p.offsetMs, n >= 4);
        break;
      case 'Z':
        out += offsetText(p.offsetMs, 'Z');
        break;
      case 'X':
        out += offsetText(p.offsetMs, n === 1 ? 'X1' : n === 2 ? 'X2' : 'X3');
        break;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// parseDate

const NUMERIC = new Set([
  'y',
  'Y',
  'M',
  'L',
  'w',
  'W',
  'D',
  'd',
  'F',
  'u',
  'H',
  'k',
  'K',
  'h',
  'm',
  's',
  'S',
]);

function isNumericToken(t: Token | undefined): boolean {
  if (t?.kind !== 'field') return false;
  if (t.ch === 'M' || t.ch === 'L') return t.count <= 2;
  return NUMERIC.has(t.ch);
}

const ZONE_ABBREVIATIONS: Record<string, number> = {
  UTC: 0,
  GMT: 0,
  UT: 0,
  Z: 0,
  JST: 9 * 60,
  KST: 9 * 60,
  EST: -5 * 60,
  EDT: -4 * 60,
  CST: -6 * 60,
  CDT: -5 * 60,
  MST: -7 * 60,
  MDT: -6 * 60,
  PST: -8 * 60,
  PDT: -7 * 60,
  BST: 60,
  CET: 60,
  CEST: 120,
};

/**
 * Utilities.parseDate(text, timeZone, pattern) with SimpleDateFormat's default (lenient) behaviour:
 * out-of-range fields roll over (`2026-13-01` is 2027-01-01), leading spaces before a number are
 * skipped and text after the pattern is ignored. A zone in the text (z/Z/X) overrides `timeZone`.
 * Throws `Error('Unparseable date: "<text>"')` when the pattern does not match.
 */
export function parseDate(text: string, timeZone: string, pattern: string): Date {
  const fail = (): Error => new Error(`Unparseable date: "${text}"`);
  const tokens = tokenize(pattern);
  let pos = 0;
  let year = 1970;
  let month = 1;
  let day = 1;
  let hour = 0;
  let hour12: number | undefined;
  let pm: boolean | undefined;
  let minute = 0;
  let second = 0;
  let millis = 0;
  let dayOfYear: number | undefined;
  let offsetMin: number | undefined;
  let era: 'AD' | 'BC' = 'AD';

  const readNumber = (maxDigits: number | undefined): { value: number; digits: number } => {
    while (text[pos] === ' ' || text[pos] === '\t') pos++;
    let end = pos;
    while (
      end < text.length &&
      text[end] >= '0' &&
      text[end] <= '9' &&
      (maxDigits === undefined || end - pos < maxDigits)
    )
      end++;
    if (end === pos) throw fail();
    const digits = end - pos;
    const value = Number(text.slice(pos, end));
    pos = end;
    return { value, digits };
  };
  const readName = (names: string[]): number => {
    // Longest names first so that "May" does not stop "March" from matching "Mar".
    let best = -1;
    let bestLen = 0;
    names.forEach((name, idx) => {
      for (const cand of [name, name.slice(0, 3)]) {
        if (
          cand.length > bestLen &&
          text.slice(pos, pos + cand.length).toLowerCase() === cand.toLowerCase()
        ) {
          best = idx;
          bestLen = cand.length;
        }
      }
    });
    if (best < 0) throw fail();
    pos += bestLen;
    return best;
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'literal') {
      if (!text.startsWith(t.text, pos)) throw fail();
      pos += t.text.length;
      continue;
    }
    // Abutting numeric fields (yyyyMMdd) are read at their pattern width, as SimpleDateFormat does.
    const width = isNumericToken(tokens[i + 1]) ? t.count : undefined;
    switch (t.ch) {
      case 'G': {
        const m = /^(AD|BC)/i.exec(text.slice(pos));
        if (!m) throw fail();
        era = m[1].toUpperCase() as 'AD' | 'BC';
        pos += 2;
        break;
      }
      case 'y':
      case 'Y': {
        const start = pos;
        const { value, digits } = readNumber(width);
        const raw = text.slice(start, pos).trim();
        if (t.count <= 2 && digits === 2 && /^\d\d$/.test(raw)) {
          // Two-digit years land within 80 years before and 20 after now (SimpleDateFormat's default).
          const centuryStart = new Date().getUTCFullYear() - 80;
          const ambiguous = centuryStart % 100;
          year = Math.floor(centuryStart / 100) * 100 + value + (value < ambiguous ? 100 : 0);
        } else year = value;
        break;
      }
      case 'M':
      case 'L':
        month = t.count >= 3 ? readName(MONTHS) + 1 : readNumber(width).value;
        break;
      case 'd':
        day = readNumber(width).value;
        break;
      case 'D':
        dayOfYear = readNumber(width).value;
        break;
      case 'E':
        readName(DAYS);
        break;
      case 'a': {
        const m = /^(AM|PM)/i.exec(text.slice(pos));
        if (!m) throw fail();
        pm = m[1].toUpperCase() === 'PM';
        pos += 2;
        break;
      }
      case 'H':
        hour = readNumber(width).value;
        break;
      case 'k': {
        const v = readNumber(width).value;
        hour = v === 24 ? 0 : v;
        break;
      }
      case 'h':
      case 'K': {
        const v = readNumber(width).value;
        hour12 = t.ch === 'h' && v === 12 ? 0 : v;
        break;
      }
      case 'm':
        minute = readNumber(width).value;
        break;
      case 's':
        second = readNumber(width).value;
        break;
      case 'S':
        millis = readNumber(width).value;
        break;
      case 'w':
      case 'W':
      case 'F':
      case 'u':
        // Week-based fields only matter when the date fields are missing; they are read and ignored.
        readNumber(width);
        break;
      case 'z':
      case 'Z':
      case 'X': {
        const rest = text.slice(pos);
        const m = /^(?:GMT|UTC)?([+-])(\d{2}):?(\d{2})?/.exec(rest);
        if (m) {
          offsetMin = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? '0'));
          pos += m[0].length;
          break;
        }
        const abbr = /^[A-Za-z]+/.exec(rest)?.[0].toUpperCase();
        if (abbr !== undefined && ZONE_ABBREVIATIONS[abbr] !== undefined) {
          offsetMin = ZONE_ABBREVIATIONS[abbr];
          pos += abbr.length;
          break;
        }
        throw fail();
      }
    }
  }
  if (hour12 !== undefined) hour = hour12 + (pm ? 12 : 0);
  else if (pm && hour < 12) hour += 12;
  if (era === 'BC') year = 1 - year;
  const wall: WallTime =
    dayOfYear !== undefined
      ? { year, month: 1, day: dayOfYear, hour, minute, second, millisecond: millis }
      : { year, month, day, hour, minute, second, millisecond: millis };
  if (offsetMin !== undefined) {
    const w = utcMs(wall.year, wall.month, wall.day, hour, minute, second, millis);
    return new Date(w - offsetMin * 60_000);
  }
  return fromZonedParts(wall, timeZone);
}
