import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  formatDate,
  fromZonedParts,
  getTimeZoneOffsetMs,
  getZonedParts,
  normaliseTimeZoneId,
  parseDate,
} from '../../sim/gas/lib/format-date';

// 2026-03-08 06:30:05.007 UTC: a Sunday, the day US daylight time starts (at 07:00 UTC).
const T = new Date(Date.UTC(2026, 2, 8, 6, 30, 5, 7));

describe('formatDate', () => {
  it('formats the usual ledger patterns', () => {
    assert.equal(formatDate(T, 'Asia/Tokyo', 'yyyy-MM-dd HH:mm:ss'), '2026-03-08 15:30:05');
    assert.equal(formatDate(T, 'Asia/Tokyo', 'yyyy/MM/dd'), '2026/03/08');
    assert.equal(formatDate(T, 'UTC', "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"), '2026-03-08T06:30:05.007Z');
    assert.equal(formatDate(T, 'Asia/Tokyo', "yyyy-MM-dd'T'HH:mm:ssXXX"), '2026-03-08T15:30:05+09:00');
    assert.equal(formatDate(T.getTime(), 'Asia/Tokyo', 'yyyyMMdd'), '20260308');
  });

  it('implements every SimpleDateFormat letter', () => {
    const tz = 'Asia/Tokyo';
    const cases: Array<[string, string]> = [
      ['G', 'AD'],
      ['y', '2026'],
      ['yy', '26'],
      ['yyy', '2026'],
      ['yyyy', '2026'],
      ['yyyyy', '02026'],
      ['Y', '2026'],
      ['M', '3'],
      ['MM', '03'],
      ['MMM', 'Mar'],
      ['MMMM', 'March'],
      ['L', '3'],
      ['d', '8'],
      ['dd', '08'],
      ['D', '67'],
      ['DDD', '067'],
      ['w', '11'],
      ['W', '2'],
      ['F', '2'],
      ['E', 'Sun'],
      ['EEE', 'Sun'],
      ['EEEE', 'Sunday'],
      ['u', '7'],
      ['a', 'PM'],
      ['H', '15'],
      ['HH', '15'],
      ['k', '15'],
      ['K', '3'],
      ['h', '3'],
      ['hh', '03'],
      ['m', '30'],
      ['mm', '30'],
      ['s', '5'],
      ['ss', '05'],
      ['S', '7'],
      ['SSS', '007'],
      ['z', 'JST'],
      ['zzzz', 'Japan Standard Time'],
      ['Z', '+0900'],
      ['X', '+09'],
      ['XX', '+0900'],
      ['XXX', '+09:00'],
    ];
    for (const [p, want] of cases) assert.equal(formatDate(T, tz, p), want, p);
  });

  it('handles midnight and noon in the 12/24-hour letters', () => {
    const midnight = new Date(Date.UTC(2026, 0, 1, 15)); // 00:00 JST
    assert.equal(formatDate(midnight, 'Asia/Tokyo', 'H k K h a'), '0 24 0 12 AM');
    const noon = new Date(Date.UTC(2026, 0, 1, 3)); // 12:00 JST
    assert.equal(formatDate(noon, 'Asia/Tokyo', 'H k K h a'), '12 12 0 12 PM');
  });

  it('handles quoting like Java', () => {
    assert.equal(formatDate(T, 'UTC', "h 'o''clock'"), "6 o'clock");
    assert.equal(formatDate(T, 'UTC', "''yy''"), "'26'");
    assert.equal(formatDate(T, 'UTC', "'yyyy' yyyy"), 'yyyy 2026');
    assert.equal(formatDate(T, 'UTC', 'yyyy年M月d日(E)'), '2026年3月8日(Sun)');
  });

  it('throws on letters SimpleDateFormat does not define', () => {
    assert.throws(() => formatDate(T, 'UTC', 'yyyy-MM-dd q'), /Illegal pattern character 'q'/);
    assert.throws(() => formatDate(T, 'UTC', "yyyy 'unterminated"), /Unterminated quote/);
    assert.throws(() => formatDate(T, 'UTC', 'XXXX'), /invalid ISO 8601/);
    assert.throws(() => formatDate(new Date(Number.NaN), 'UTC', 'yyyy'), /Invalid argument/);
  });

  it('follows America/New_York across the DST switch', () => {
    const before = new Date(Date.UTC(2026, 2, 8, 6, 59, 59));
    const after = new Date(Date.UTC(2026, 2, 8, 7, 0, 0));
    assert.equal(formatDate(before, 'America/New_York', 'HH:mm:ss z Z'), '01:59:59 EST -0500');
    assert.equal(formatDate(after, 'America/New_York', 'HH:mm:ss z Z'), '03:00:00 EDT -0400');
    assert.equal(formatDate(after, 'America/New_York', 'zzzz'), 'Eastern Daylight Time');
  });

  it('resolves zone ids like java.util.TimeZone', () => {
    assert.equal(formatDate(T, 'GMT+09:00', 'HH:mm z'), '15:30 GMT+09:00');
    assert.equal(formatDate(T, 'GMT+9', 'HH:mm z'), '15:30 GMT+09:00');
    assert.equal(formatDate(T, 'GMT-0530', 'HH:mm XXX'), '01:00 -05:30');
    assert.equal(formatDate(T, 'GMT', 'HH:mm z X'), '06:30 GMT Z');
    assert.equal(formatDate(T, 'UTC', 'HH:mm z zzzz'), '06:30 UTC Coordinated Universal Time');
    // Java falls back to GMT for ids it does not know.
    assert.equal(formatDate(T, 'Mars/Olympus', 'HH:mm z'), '06:30 GMT');
    assert.equal(normaliseTimeZoneId('GMT+9'), 'GMT+09:00');
    assert.equal(normaliseTimeZoneId('Mars/Olympus'), 'GMT');
  });

  it('prints BC years as year of era', () => {
    const d = fromZonedParts({ year: 0, month: 6, day: 1 }, 'UTC');
    assert.equal(formatDate(d, 'UTC', 'G yyyy'), 'BC 0001');
  });

  it('uses en_US week rules for w and Y around new year', () => {
    // 2026-12-27 is a Sunday; its week contains 2027-01-01, so it is week 1 of week-year 2027.
    const d = new Date(Date.UTC(2026, 11, 28, 3));
    assert.equal(formatDate(d, 'UTC', 'yyyy Y w'), '2026 2027 1');
    assert.equal(formatDate(new Date(Date.UTC(2026, 11, 26)), 'UTC', 'Y w'), '2026 52');
  });

  it('agrees with Intl on wall-clock fields for any instant and zone (property)', () => {
    const zones = [
      'Asia/Tokyo',
      'UTC',
      'America/New_York',
      'Europe/London',
      'Australia/Sydney',
      'Asia/Kolkata',
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1950, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom(...zones),
        (ms, tz) => {
          const intl = new Intl.DateTimeFormat('en-CA', {
            timeZone: tz,
            hourCycle: 'h23',
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
            hour: '2-digit',
            minute: '2-digit',
            second: '2-digit',
          })
            .format(new Date(ms))
            .replace(',', '');
          assert.equal(formatDate(ms, tz, 'yyyy-MM-dd HH:mm:ss'), intl);
        },
      ),
    );
  });
});

describe('zoned helpers', () => {
  it('finds offsets, including historical LMT', () => {
    assert.equal(getTimeZoneOffsetMs(T, 'Asia/Tokyo'), 9 * 3_600_000);
    assert.equal(getTimeZoneOffsetMs(T, 'America/New_York'), -5 * 3_600_000);
    assert.equal(getTimeZoneOffsetMs(Date.UTC(1850, 0, 1), 'Asia/Tokyo'), (9 * 3600 + 18 * 60 + 59) * 1000);
  });

  it('round-trips wall time through fromZonedParts (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom('Asia/Tokyo', 'UTC', 'GMT+05:30'),
        (ms, tz) => {
          const p = getZonedParts(ms, tz);
          assert.equal(fromZonedParts(p, tz).getTime(), ms);
        },
      ),
    );
  });

  it('resolves skipped and repeated DST wall times like GregorianCalendar', () => {
    // 02:30 does not exist on 2026-03-08 in New York: read with the EST offset, i.e. 03:30 EDT.
    assert.equal(
      fromZonedParts({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, 'America/New_York').toISOString(),
      '2026-03-08T07:30:00.000Z',
    );
    // 01:30 happens twice on 2026-11-01: standard time (the second one) is chosen.
    assert.equal(
      fromZonedParts(
        { year: 2026, month: 11, day: 1, hour: 1, minute: 30 },
        'America/New_York',
      ).toISOString(),
      '2026-11-01T06:30:00.000Z',
    );
  });

  it('rolls over out-of-range fields', () => {
    assert.equal(
      fromZonedParts({ year: 2026, month: 13, day: 1 }, 'UTC').toISOString(),
      '2027-01-01T00:00:00.000Z',
    );
    assert.equal(
      fromZonedParts({ year: 2026, month: 3, day: 0 }, 'UTC').toISOString(),
      '2026-02-28T00:00:00.000Z',
    );
  });
});

describe('parseDate', () => {
  it('parses numeric patterns in the given zone', () => {
    assert.equal(
      parseDate('2026-10-01', 'Asia/Tokyo', 'yyyy-MM-dd').toISOString(),
      '2026-09-30T15:00:00.000Z',
    );
    assert.equal(
      parseDate('2026/10/01 12:34:56', 'Asia/Tokyo', 'yyyy/MM/dd HH:mm:ss').toISOString(),
      '2026-10-01T03:34:56.000Z',
    );
    assert.equal(parseDate('20261001', 'UTC', 'yyyyMMdd').toISOString(), '2026-10-01T00:00:00.000Z');
    assert.equal(parseDate('2026-1-5', 'UTC', 'yyyy-MM-dd').toISOString(), '2026-01-05T00:00:00.000Z');
    assert.equal(
      parseDate('2026-10-01T12:34:56.789', 'UTC', "yyyy-MM-dd'T'HH:mm:ss.SSS").toISOString(),
      '2026-10-01T12:34:56.789Z',
    );
  });

  it('uses a zone found in the text over the argument', () => {
    const iso = "yyyy-MM-dd'T'HH:mm:ssXXX";
    assert.equal(
      parseDate('2026-10-01T12:00:00+05:30', 'UTC', iso).toISOString(),
      '2026-10-01T06:30:00.000Z',
    );
    assert.equal(
      parseDate('2026-10-01T12:00:00Z', 'Asia/Tokyo', iso).toISOString(),
      '2026-10-01T12:00:00.000Z',
    );
    assert.equal(
      parseDate('2026-10-01 12:00 JST', 'UTC', 'yyyy-MM-dd HH:mm z').toISOString(),
      '2026-10-01T03:00:00.000Z',
    );
    assert.equal(
      parseDate('2026-10-01 12:00 +0900', 'UTC', 'yyyy-MM-dd HH:mm Z').toISOString(),
      '2026-10-01T03:00:00.000Z',
    );
  });

  it('parses names, AM/PM and 12-hour clocks', () => {
    assert.equal(
      parseDate('Mar 5, 2026 3:04 PM', 'UTC', 'MMM d, yyyy h:mm a').toISOString(),
      '2026-03-05T15:04:00.000Z',
    );
    assert.equal(
      parseDate('March 5 2026 12:04 AM', 'UTC', 'MMMM d yyyy h:mm a').toISOString(),
      '2026-03-05T00:04:00.000Z',
    );
    assert.equal(
      parseDate('Thu, 1 Oct 2026', 'UTC', 'EEE, d MMM yyyy').toISOString(),
      '2026-10-01T00:00:00.000Z',
    );
  });

  it('is lenient like SimpleDateFormat', () => {
    // Out-of-range fields roll over, text after the pattern is ignored, spaces before numbers are skipped.
    assert.equal(parseDate('2026-13-01', 'UTC', 'yyyy-MM-dd').toISOString(), '2027-01-01T00:00:00.000Z');
    assert.equal(parseDate('2026-02-30', 'UTC', 'yyyy-MM-dd').toISOString(), '2026-03-02T00:00:00.000Z');
    assert.equal(
      parseDate('2026-10-01 trailing', 'UTC', 'yyyy-MM-dd').toISOString(),
      '2026-10-01T00:00:00.000Z',
    );
    assert.equal(parseDate('2026- 1- 5', 'UTC', 'yyyy-MM-dd').toISOString(), '2026-01-05T00:00:00.000Z');
  });

  it('puts two-digit years within 80 years back and 20 ahead', () => {
    const thisYear = new Date().getUTCFullYear();
    const yy = (y: number): string => String(y % 100).padStart(2, '0');
    assert.equal(parseDate(`${yy(thisYear)}-01-01`, 'UTC', 'yy-MM-dd').getUTCFullYear(), thisYear);
    assert.equal(parseDate(`${yy(thisYear + 19)}-01-01`, 'UTC', 'yy-MM-dd').getUTCFullYear(), thisYear + 19);
    assert.equal(parseDate(`${yy(thisYear - 79)}-01-01`, 'UTC', 'yy-MM-dd').getUTCFullYear(), thisYear - 79);
    // With yyyy a two-digit year is taken literally.
    assert.equal(parseDate('26-01-01', 'UTC', 'yyyy-MM-dd').getUTCFullYear(), 26);
  });

  it("throws Utilities.parseDate's message on mismatch", () => {
    for (const [text, pattern] of [
      ['abc', 'yyyy'],
      ['2026/10/01', 'yyyy-MM-dd'],
      ['', 'yyyy'],
      ['2026-10', 'yyyy-MM-dd'],
      ['Foo 1 2026', 'MMM d yyyy'],
    ]) {
      assert.throws(() => parseDate(text, 'UTC', pattern), { message: `Unparseable date: "${text}"` });
    }
  });

  it('round-trips formatDate output (property)', () => {
    const pattern = "yyyy-MM-dd'T'HH:mm:ss.SSS";
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom('Asia/Tokyo', 'UTC', 'America/New_York', 'GMT-03:00'),
        (ms, tz) => {
          const text = formatDate(ms, tz, pattern);
          const back = parseDate(text, tz, pattern);
          // Wall times repeated at a DST fall-back are ambiguous; formatting again must still agree.
          assert.equal(formatDate(back, tz, pattern), text);
        },
      ),
    );
  });
});
