// How Google Sheets stores what a script writes. SpreadsheetApp's setValue/setValues/appendRow behave like
// the Sheets API's USER_ENTERED input option: strings are parsed as if typed into the cell by a user of a
// ja_JP spreadsheet. Only the parsing rules that matter to this project are modelled; every rule is a
// deliberate, documented subset of what Sheets recognises.

import { fromZonedParts, getZonedParts, MONTHS, utcMs } from './format-date';

export type CellValue = string | number | boolean | Date; // '' is an empty cell

export type PlainTextApostrophe = 'kept' | 'stripped';

/** numberFormat: a format Sheets sets automatically (dates, percent, currency) when the cell has none. */
export interface Stored {
  value: CellValue;
  formula?: string;
  numberFormat?: string;
}

export interface CoerceOptions {
  /** The cell's current number format; undefined (or an automatic format) lets Sheets pick one. */
  numberFormat?: string;
  /** The spreadsheet's time zone: typed dates mean local midnight there. */
  timeZone: string;
  /** Undocumented: whether an `@` (plain text) format also stops `=` from starting a formula. */
  plainTextStopsFormulas: boolean;
  /**
   * Undocumented: what a leading apostrophe typed into a cell already formatted `@` does — 'kept' as a
   * character of the text (default here, the answer that breaks a writer relying on it), or 'stripped'
   * as in a cell of the automatic format (reference/gas-platform.md §2.4, corrected).
   */
  plainTextApostrophe?: PlainTextApostrophe;
  /**
   * What the apostrophe does in a cell of the automatic format: 'stripped' (default) is what Google
   * documents; 'kept' is a counterfactual world where that fails, so that a test can show 本番前チェック
   * notices it and kicho refuses to import or post there.
   */
  automaticApostrophe?: PlainTextApostrophe;
  /** Undocumented: whether a leading apostrophe counts toward the 50,000-character limit (default yes). */
  cellLimitCountsApostrophe?: boolean;
  /**
   * NaN / ±Infinity: 'throw' (default) or 'error-value', which stores Sheets' `#NUM!` as some reports
   * say setValue(NaN) does. Unverified either way.
   */
  nonFiniteNumbers?: 'throw' | 'error-value';
}

export const MAX_CELL_CHARS = 50_000;
const TOO_LONG = `Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`;

/** Formats Sheets reports for a cell nobody formatted (getNumberFormat gives `0.###############`). */
export function isAutomaticFormat(fmt: string | undefined): boolean {
  return fmt === undefined || fmt === '' || fmt === 'General' || fmt === '0.###############';
}

export function coerceUserEntered(input: unknown, opts: CoerceOptions): Stored {
  if (input === null || input === undefined) return { value: '' };
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) {
      if (opts.nonFiniteNumbers === 'error-value') return { value: '#NUM!' };
      throw new Error(`Invalid argument: ${input}`);
    }
    // Sheets has no negative zero.
    return { value: input === 0 ? 0 : input };
  }
  if (typeof input === 'boolean') return { value: input };
  if (input instanceof Date) {
    if (Number.isNaN(input.getTime())) throw new Error('Invalid argument: Invalid Date');
    // A copy, so later mutation of the caller's Date cannot reach into the sheet.
    return { value: new Date(input.getTime()) };
  }
  const s = typeof input === 'string' ? input : String(input);
  const prefix = s.startsWith("'") && opts.cellLimitCountsApostrophe === false ? 1 : 0;
  if (s.length - prefix > MAX_CELL_CHARS) throw new Error(TOO_LONG);
  return coerceString(s, opts);
}

function coerceString(s: string, opts: CoerceOptions): Stored {
  // A leading apostrophe marks the rest as text and is not part of the stored value (documented for the
  // automatic format); in an '@' cell it may instead be kept as a character (the switch).
  if (s.startsWith("'")) {
    if (opts.numberFormat === '@' && (opts.plainTextApostrophe ?? 'kept') === 'kept') return { value: s };
    if (opts.numberFormat !== '@' && opts.automaticApostrophe === 'kept') return { value: s };
    return { value: s.slice(1) };
  }
  if (s.length > 1 && s.startsWith('=')) {
    if (opts.numberFormat === '@' && opts.plainTextStopsFormulas) return { value: s };
    return { value: evaluateFormula(s), formula: s };
  }
  if (opts.numberFormat === '@') return { value: s };
  const parsed = parseTyped(s, opts.timeZone);
  if (!parsed) return { value: s };
  const stored: Stored = { value: parsed.value };
  if (parsed.numberFormat && isAutomaticFormat(opts.numberFormat)) stored.numberFormat = parsed.numberFormat;
  return stored;
}

interface Parsed {
  value: number | boolean | Date;
  numberFormat?: string;
}

const UNSIGNED = String.raw`(?:\d+(?:\.\d*)?|\.\d+)`;
const GROUPED = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d*)?`;
const PLAIN_RE = new RegExp(`^[+-]?${UNSIGNED}$`);
const SCI_RE = new RegExp(String.raw`^[+-]?${UNSIGNED}[eE][+-]?\d+$`);
const GROUPED_RE = new RegExp(`^[+-]?${GROUPED}$`);
const PERCENT_RE = new RegExp(`^([+-]?)(${UNSIGNED}|${GROUPED}) ?%$`);
const CURRENCY_RE = new RegExp(`^([+-]?)([$¥])([+-]?)(${UNSIGNED}|${GROUPED})$`);
// ISO's `T` separator is deliberately absent: Sheets leaves `2026-10-01T12:34:56Z` as text.
const DATE_RE = /^(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?: +(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;
const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/**
 * What Sheets makes of typed text, or undefined to keep it as a string. Recognised (ja_JP locale):
 * TRUE/FALSE; integers, decimals, `+7`, `007`, `1e3`, `1,234,567`; `50%`; `$100.15`, `¥1,200`;
 * `yyyy-m-d` / `yyyy/m/d` with an optional `H:mm[:ss]` time; a bare `H:mm[:ss]` time. Not modelled
 * (kept as text here although Sheets may convert them): `10/1` (current year), `2026/10`, `2026年10月1日`,
 * month names, full-width digits, `(100)` negatives.
 */
export function parseTyped(raw: string, timeZone: string): Parsed | undefined {
  const s = raw.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  if (s === '') return undefined;
  if (/^(?:true|false)$/i.test(s)) return { value: s.toLowerCase() === 'true' };
  if (PLAIN_RE.test(s)) return { value: toNumber(s) };
  if (SCI_RE.test(s)) return { value: toNumber(s), numberFormat: '0.00E+00' };
  if (GROUPED_RE.test(s)) return { value: toNumber(s), numberFormat: s.includes('.') ? '#,##0.00' : '#,##0' };
  let m = PERCENT_RE.exec(s);
  if (m) {
    const digits = m[2].replace(/,/g, '');
    const value = toNumber(m[1] + shiftDecimal(digits, -2));
    return { value, numberFormat: digits.includes('.') ? '0.00%' : '0%' };
  }
  m = CURRENCY_RE.exec(s);
  if (m) {
    if (m[1] && m[3]) return undefined;
    const sign = m[1] || m[3];
    const value = toNumber(sign + m[4]);
    const symbol = m[2];
    const decimals = symbol === '$' || m[4].includes('.');
    return { value, numberFormat: `"${symbol}"#,##0${decimals ? '.00' : ''}` };
  }
  m = DATE_RE.exec(s);
  if (m) return parseDateMatch(m, timeZone);
  m = TIME_RE.exec(s);
  if (m) {
    const [h, mi, sec] = [Number(m[1]), Number(m[2]), m[3] === undefined ? 0 : Number(m[3])];
    if (h > 23 || mi > 59 || sec > 59) return undefined;
    // A time alone is a fraction of a day: Sheets' day zero is 1899-12-30 in the spreadsheet's zone.
    const value = fromZonedParts(
      { year: 1899, month: 12, day: 30, hour: h, minute: mi, second: sec },
      timeZone,
    );
    const hh = m[1].length === 2 ? 'hh' : 'h';
    return { value, numberFormat: m[3] === undefined ? `${hh}:mm` : `${hh}:mm:ss` };
  }
  return undefined;
}

function parseDateMatch(m: RegExpExecArray, timeZone: string): Parsed | undefined {
  const year = Number(m[1]);
  const month = Number(m[3]);
  const day = Number(m[4]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const sep = m[2];
  const padded = m[3].length === 2 && m[4].length === 2;
  let fmt = padded ? `yyyy${sep}mm${sep}dd` : `yyyy${sep}m${sep}d`;
  if (m[5] === undefined) return { value: fromZonedParts({ year, month, day }, timeZone), numberFormat: fmt };
  const hour = Number(m[5]);
  const minute = Number(m[6]);
  const second = m[7] === undefined ? 0 : Number(m[7]);
  const ms = m[8] === undefined ? 0 : Number(m[8].padEnd(3, '0'));
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const hh = m[5].length === 2 ? 'hh' : 'h';
  fmt += m[7] === undefined ? ` ${hh}:mm` : ` ${hh}:mm:ss`;
  return {
    value: fromZonedParts({ year, month, day, hour, minute, second, millisecond: ms }, timeZone),
    numberFormat: fmt,
  };
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcMs(year, month + 1, 0)).getUTCDate();
}

function toNumber(s: string): number {
  const n = Number(s.replace(/,/g, ''));
  return n === 0 ? 0 : n;
}

/** Moves the decimal point of a plain decimal string by `by` places, exactly (no binary rounding). */
function shiftDecimal(s: string, by: number): string {
  const [intPart, frac = ''] = s.split('.');
  let digits = intPart + frac;
  let point = intPart.length + by;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point) || '0'}`;
}

// ---------------------------------------------------------------------------------------------------------
// Formulas: a tiny evaluator so a written formula has a plausible value. Sheets' engine is not modelled;
// anything beyond literals, arithmetic, comparison, `&`, SUM and HYPERLINK yields `#NAME?`.

type FValue = number | string | boolean | FError;

class FError {
  constructor(readonly code: string) {}
}

class NameError extends Error {}
class SyntaxFail extends Error {}

interface FToken {
  t: 'num' | 'str' | 'op' | 'name' | '(' | ')' | ',';
  v: string;
}

const MAX_DEPTH = 64;

/**
 * The value a formula cell would show. Unknown names, functions and cell references give `#NAME?`; a
 * malformed formula gives `#ERROR!` (Sheets' parse error); division by zero `#DIV/0!`; type mismatches
 * `#VALUE!`. Never throws.
 */
export function evaluateFormula(formula: string): CellValue {
  try {
    const src = formula.startsWith('=') ? formula.slice(1) : formula;
    const tokens = lex(src);
    const parser = new Parser(tokens);
    const v = parser.parseTop();
    if (v instanceof FError) return v.code;
    if (typeof v === 'number') return Number.isFinite(v) ? (v === 0 ? 0 : v) : '#NUM!';
    return v;
  } catch (e) {
    if (e instanceof NameError) return '#NAME?';
    return '#ERROR!';
  }
}

function lex(src: string): FToken[] {
  const out: FToken[] = [];
  let i = 0;
  let unknown = false;
  while (i < src.length) {
    const ch = src[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const num = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i, i + 400));
    if (num) {
      out.push({ t: 'num', v: num[0] });
      i += num[0].length;
      continue;
    }
    if (ch === '"') {
      let j = i + 1;
      let text = '';
      for (;;) {
        if (j >= src.length) throw new SyntaxFail();
        if (src[j] === '"') {
          if (src[j + 1] === '"') {
            text += '"';
            j += 2;
            continue;
          }
          break;
        }
        text += src[j];
        j++;
      }
      out.push({ t: 'str', v: text });
      i = j + 1;
      continue;
    }
    const name = /^[A-Za-z_$][A-Za-z0-9_.$]*/.exec(src.slice(i, i + 400));
    if (name) {
      out.push({ t: 'name', v: name[0] });
      i += name[0].length;
      continue;
    }
    const op = /^(?:<>|<=|>=|[-+*/^&=<>%])/.exec(src.slice(i, i + 2));
    if (op) {
      out.push({ t: 'op', v: op[0] });
      i += op[0].length;
      continue;
    }
    if (ch === '(' || ch === ')' || ch === ',') {
      out.push({ t: ch, v: ch });
      i++;
      continue;
    }
    // Sheet references (`'x'!A1`), ranges (`A1:B2`), arrays (`{1,2}`) and anything else we do not model.
    unknown = true;
    i++;
  }
  if (unknown) throw new NameError();
  return out;
}

class Parser {
  private pos = 0;
  private depth = 0;
  private nameSeen = false;

  constructor(private readonly tokens: FToken[]) {}

  parseTop(): FValue {
    let v: FValue;
    try {
      v = this.comparison();
      if (this.pos < this.tokens.length) throw new SyntaxFail();
    } catch (e) {
      // An unknown name anywhere wins over a syntax error found later, as in Sheets' #NAME? reporting.
      if (this.nameSeen || e instanceof NameError) throw new NameError();
      throw e;
    }
    if (this.nameSeen) throw new NameError();
    return v;
  }

  private peek(): FToken | undefined {
    return this.tokens[this.pos];
  }

  private isOp(...ops: string[]): string | undefined {
    const t = this.peek();
    return t && t.t === 'op' && ops.includes(t.v) ? t.v : undefined;
  }

  private comparison(): FValue {
    let left = this.concat();
    for (
      let op = this.isOp('=', '<>', '<', '>', '<=', '>=');
      op;
      op = this.isOp('=', '<>', '<', '>', '<=', '>=')
    ) {
      this.pos++;
      const right = this.concat();
      left = compare(op, left, right);
    }
    return left;
  }

  private concat(): FValue {
    let left = this.additive();
    while (this.isOp('&')) {
      this.pos++;
      const right = this.additive();
      left = left instanceof FError ? left : right instanceof FError ? right : toText(left) + toText(right);
    }
    return left;
  }

  private additive(): FValue {
    let left = this.multiplicative();
    for (let op = this.isOp('+', '-'); op; op = this.isOp('+', '-')) {
      this.pos++;
      const right = this.multiplicative();
      left = arith(left, right, op === '+' ? (a, b) => a + b : (a, b) => a - b);
    }
    return left;
  }

  private multiplicative(): FValue {
    let left = this.power();
    for (let op = this.isOp('*', '/'); op; op = this.isOp('*', '/')) {
      this.pos++;
      const right = this.power();
      if (op === '/') {
        const r = toNum(right);
        const l = toNum(left);
        left = l instanceof FError ? l : r instanceof FError ? r : r === 0 ? new FError('#DIV/0!') : l / r;
      } else left = arith(left, right, (a, b) => a * b);
    }
    return left;
  }

  private power(): FValue {
    // Left-associative, as in Sheets and Excel (=2^3^2 is 64).
    let left = this.unary();
    while (this.isOp('^')) {
      this.pos++;
      const right = this.unary();
      left = arith(left, right, (a, b) => a ** b);
    }
    return left;
  }

  private unary(): FValue {
    const op = this.isOp('+', '-');
    if (op) {
      this.pos++;
      const v = this.enter(() => this.unary());
      return op === '-' ? arith(0, v, (a, b) => a - b) : v;
    }
    return this.postfix();
  }

  private postfix(): FValue {
    let v = this.primary();
    while (this.isOp('%')) {
      this.pos++;
      v = arith(v, 100, (a, b) => a / b);
    }
    return v;
  }

  private enter<T>(fn: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new SyntaxFail();
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  private primary(): FValue {
    const t = this.peek();
    if (!t) throw new SyntaxFail();
    this.pos++;
    switch (t.t) {
      case 'num':
        return Number(t.v);
      case 'str':
        return t.v;
      case '(': {
        const v = this.enter(() => this.comparison());
        if (this.peek()?.t !== ')') throw new SyntaxFail();
        this.pos++;
        return v;
      }
      case 'name': {
        const upper = t.v.toUpperCase();
        if (this.peek()?.t === '(') {
          this.pos++;
          const args = this.enter(() => this.args());
          return callFunction(upper, args, () => {
            this.nameSeen = true;
          });
        }
        if (upper === 'TRUE') return true;
        if (upper === 'FALSE') return false;
        // A cell reference or named range: we have no grid to read.
        this.nameSeen = true;
        return new FError('#NAME?');
      }
      default:
        throw new SyntaxFail();
    }
  }

  private args(): FValue[] {
    const args: FValue[] = [];
    if (this.peek()?.t === ')') {
      this.pos++;
      return args;
    }
    for (;;) {
      args.push(this.comparison());
      const t = this.peek();
      if (t?.t === ',') {
        this.pos++;
        continue;
      }
      if (t?.t === ')') {
        this.pos++;
        return args;
      }
      throw new SyntaxFail();
    }
  }
}

function callFunction(name: string, args: FValue[], unknown: () => void): FValue {
  switch (name) {
    case 'SUM': {
      let total = 0;
      for (const a of args) {
        const n = toNum(a);
        if (n instanceof FError) return n;
        total += n;
      }
      return total;
    }
    case 'HYPERLINK': {
      if (args.length < 1 || args.length > 2) return new FError('#N/A');
      const shown = args.length === 2 ? args[1] : args[0];
      return shown;
    }
    default:
      unknown();
      return new FError('#NAME?');
  }
}

function toNum(v: FValue): number | FError {
  if (v instanceof FError) return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  const p = PLAIN_RE.test(v.trim()) ? Number(v.trim()) : Number.NaN;
  return Number.isNaN(p) ? new FError('#VALUE!') : p;
}

function toText(v: FValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  return generalNumber(v as number);
}

function arith(a: FValue, b: FValue, fn: (x: number, y: number) => number): FValue {
  const x = toNum(a);
  if (x instanceof FError) return x;
  const y = toNum(b);
  if (y instanceof FError) return y;
  const r = fn(x, y);
  return Number.isFinite(r) ? r : new FError('#NUM!');
}

function compare(op: string, a: FValue, b: FValue): FValue {
  if (a instanceof FError) return a;
  if (b instanceof FError) return b;
  // Sheets orders numbers < text < booleans, and compares text case-insensitively.
  const rank = (v: number | string | boolean): number =>
    typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2;
  let c: number;
  if (rank(a) !== rank(b)) c = rank(a) - rank(b);
  else if (typeof a === 'string') {
    const x = a.toLowerCase();
    const y = (b as string).toLowerCase();
    c = x < y ? -1 : x > y ? 1 : 0;
  } else c = Number(a) - Number(b);
  switch (op) {
    case '=':
      return c === 0;
    case '<>':
      return c !== 0;
    case '<':
      return c < 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    default:
      return c >= 0;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Display values (Range.getDisplayValues)

const DAY_MS = 86_400_000;
const SERIAL_EPOCH = utcMs(1899, 12, 30);

/** How a number in an automatically formatted cell is shown: up to 10 significant digits, scientific
 * from 1e15 up or below 1e-9, the way Sheets' "Automatic" format renders numbers. */
export function generalNumber(n: number): string {
  if (!Number.isFinite(n)) return '#NUM!';
  if (n === 0) return '0';
  const abs = Math.abs(n);
  if (Number.isInteger(n) && abs < 1e15) return String(n);
  if (abs >= 1e15 || abs < 1e-9) return scientific(n, 5, 2, false);
  const s = Number(n.toPrecision(10)).toString();
  // toString switches to exponent form below 1e-6; Sheets keeps writing the decimal.
  return /e/.test(s)
    ? Number(n.toPrecision(10))
        .toFixed(20)
        .replace(/\.?0+$/, '')
    : s;
}

/** A decimal rounded half away from zero at `decimals` places, as digit strings; exact on the decimal
 * form of the double (15 significant digits, which is all Sheets keeps). */
function roundDecimal(abs: number, decimals: number): { int: string; frac: string } {
  const [mant, expPart] = abs.toPrecision(15).split('e');
  const exp = expPart === undefined ? 0 : Number(expPart);
  const [ip, fp = ''] = mant.split('.');
  let digits = ip + fp;
  let point = ip.length + exp;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (digits.length < point + decimals + 1) digits += '0'.repeat(point + decimals + 1 - digits.length);
  const keep = digits
    .slice(0, point + decimals)
    .split('')
    .map(Number);
  if (Number(digits[point + decimals]) >= 5) {
    let i = keep.length - 1;
    for (; i >= 0; i--) {
      if (keep[i] === 9) keep[i] = 0;
      else {
        keep[i]++;
        break;
      }
    }
    if (i < 0) {
      keep.unshift(1);
      point++;
    }
  }
  const all = keep.join('');
  const int = all.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  return { int: point === 0 ? '0' : int, frac: all.slice(point) };
}

function group(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function scientific(n: number, maxDecimals: number, expDigits: number, keepZeros: boolean): string {
  if (n === 0) return `${keepZeros ? `0.${'0'.repeat(maxDecimals)}` : '0'}E+${'0'.repeat(expDigits)}`;
  const abs = Math.abs(n);
  let exp = Math.floor(Math.log10(abs));
  let mant = abs / 10 ** exp;
  let r = roundDecimal(mant, maxDecimals);
  if (r.int === '10') {
    exp++;
    mant = abs / 10 ** exp;
    r = roundDecimal(mant, maxDecimals);
  }
  let frac = r.frac;
  if (!keepZeros) frac = frac.replace(/0+$/, '');
  const e = `E${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(expDigits, '0')}`;
  return `${n < 0 ? '-' : ''}${r.int}${frac ? `.${frac}` : ''}${e}`;
}

// Splits a format into sections on `;` outside quotes/escapes.
function splitSections(fmt: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i];
    if (ch === '"') {
      const end = fmt.indexOf('"', i + 1);
      const stop = end < 0 ? fmt.length : end;
      cur += fmt.slice(i, stop + 1);
      i = stop;
    } else if (ch === '\\') {
      cur += fmt.slice(i, i + 2);
      i++;
    } else if (ch === ';') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

type FmtPart = { lit: string } | { code: string };

// Breaks a section into literal text and format code, resolving quotes, escapes, `[$¥-411]` currency
// tags (the symbol is the literal) and dropping colour/condition brackets and `_x`/`*x` padding.
function lexSection(section: string): FmtPart[] {
  const parts: FmtPart[] = [];
  const lit = (s: string): void => {
    const last = parts[parts.length - 1];
    if (last && 'lit' in last) last.lit += s;
    else parts.push({ lit: s });
  };
  const code = (s: string): void => {
    const last = parts[parts.length - 1];
    if (last && 'code' in last) last.code += s;
    else parts.push({ code: s });
  };
  for (let i = 0; i < section.length; i++) {
    const ch = section[i];
    if (ch === '"') {
      const end = section.indexOf('"', i + 1);
      const stop = end < 0 ? section.length : end;
      lit(section.slice(i + 1, stop));
      i = stop;
    } else if (ch === '\\') {
      lit(section[i + 1] ?? '');
      i++;
    } else if (ch === '[') {
      const end = section.indexOf(']', i + 1);
      const stop = end < 0 ? section.length : end;
      const inner = section.slice(i + 1, stop);
      if (inner.startsWith('$')) lit(inner.slice(1).split('-')[0]);
      else if (/^(h+|m+|s+)$/i.test(inner)) code(`[${inner}]`);
      i = stop;
    } else if (ch === '_') {
      lit(' ');
      i++;
    } else if (ch === '*') {
      i++;
    } else if (/[0#?.,%Ee+\-/:@ymdhsaAP]/i.test(ch) && !/[\s]/.test(ch)) {
      code(ch);
    } else lit(ch);
  }
  return parts;
}

function isDateFormat(fmt: string): boolean {
  const codes = lexSection(splitSections(fmt)[0])
    .filter((p): p is { code: string } => 'code' in p)
    .map((p) => p.code)
    .join('')
    // Fractional seconds (`ss.000`) are a date token, not digit placeholders.
    .replace(/(s+)\.0+/gi, '$1');
  if (/[0#?]/.test(codes)) return false;
  return /[ydhs]|m/i.test(codes.replace(/E[+-]/gi, ''));
}

export type SheetLocale = 'ja_JP' | 'en_US';

/**
 * Range.getDisplayValue for one cell. `locale` only affects date defaults and names (ja_JP by default,
 * this project's spreadsheets are Japanese).
 */
export function displayValue(
  value: CellValue,
  numberFormat: string | undefined,
  timeZone: string,
  locale: SheetLocale = 'ja_JP',
): string {
  if (value === '') return '';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return value;
  const fmt = isAutomaticFormat(numberFormat) || numberFormat === '@' ? undefined : numberFormat;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return '';
    if (fmt === undefined) {
      const p = getZonedParts(value, timeZone);
      const midnight = p.hour === 0 && p.minute === 0 && p.second === 0 && p.millisecond === 0;
      const date = locale === 'ja_JP' ? 'yyyy/mm/dd' : 'm/d/yyyy';
      return formatSerial(dateToSerial(value, timeZone), midnight ? date : `${date} h:mm:ss`, locale);
    }
    if (isDateFormat(fmt)) return formatSerial(dateToSerial(value, timeZone), fmt, locale);
    return formatNumber(dateToSerial(value, timeZone), fmt);
  }
  if (fmt === undefined) return generalNumber(value);
  if (isDateFormat(fmt)) return formatSerial(value, fmt, locale);
  return formatNumber(value, fmt);
}

/** Days since 1899-12-30 on the spreadsheet's wall clock (Sheets' date serial number). */
export function dateToSerial(date: Date, timeZone: string): number {
  const p = getZonedParts(date, timeZone);
  const wall = utcMs(p.year, p.month, p.day, p.hour, p.minute, p.second, p.millisecond);
  return (wall - SERIAL_EPOCH) / DAY_MS;
}

/** The Date a serial number means in the spreadsheet's zone. */
export function serialToDate(serial: number, timeZone: string): Date {
  const wall = new Date(SERIAL_EPOCH + Math.round(serial * DAY_MS));
  return fromZonedParts(
    {
      year: wall.getUTCFullYear(),
      month: wall.getUTCMonth() + 1,
      day: wall.getUTCDate(),
      hour: wall.getUTCHours(),
      minute: wall.getUTCMinutes(),
      second: wall.getUTCSeconds(),
      millisecond: wall.getUTCMilliseconds(),
    },
    timeZone,
  );
}

/** Formats a number with a Sheets number format (sections, grouping, decimals, %, scientific, literals). */
export function formatNumber(value: number, fmt: string): string {
  const sections = splitSections(fmt);
  let section = sections[0];
  let n = value;
  let explicitNegative = false;
  if (value < 0 && sections.length >= 2 && sections[1] !== '') {
    section = sections[1];
    n = -value;
    explicitNegative = true;
  } else if (value === 0 && sections.length >= 3 && sections[2] !== '') section = sections[2];
  const parts = lexSection(section);
  const codeText = parts.map((p) => ('code' in p ? p.code : '')).join('');
  if (/^@?$/.test(codeText.replace(/[^0#?.,%Ee@]/g, '')) && !/[0#?]/.test(codeText)) {
    // No digit placeholders (e.g. `"fixed"` or `@`): the literals alone, or the general number.
    const lits = parts.map((p) => ('lit' in p ? p.lit : '')).join('');
    return codeText.includes('@') || lits === '' ? generalNumber(value) : lits;
  }
  const percents = (codeText.match(/%/g) ?? []).length;
  const scaled = Math.abs(n) * 100 ** percents;
  const numCode = /[0#?.,]+(?:[Ee][+-][0#?]+)?/.exec(codeText)?.[0] ?? '0';
  let body: string;
  const sci = /[Ee][+-]/.exec(numCode);
  if (sci) {
    const [mantCode, expCode] = numCode.split(/[Ee][+-]/);
    const dec = (mantCode.split('.')[1] ?? '').length;
    body = scientific(scaled, dec, expCode.length, true).replace(/^-/, '');
  } else {
    const [intCode, fracCode = ''] = numCode.split('.');
    const minFrac = (fracCode.match(/0/g) ?? []).length;
    const maxFrac = (fracCode.match(/[0#?]/g) ?? []).length;
    const minInt = (intCode.match(/0/g) ?? []).length;
    const r = roundDecimal(scaled, maxFrac);
    let frac = r.frac;
    while (frac.length > minFrac && frac.endsWith('0')) frac = frac.slice(0, -1);
    let int = r.int;
    if (int === '0' && minInt === 0) int = '';
    if (int.length < minInt) int = '0'.repeat(minInt - int.length) + int;
    if (intCode.includes(',')) int = group(int);
    body = int + (fracCode !== '' && (frac !== '' || numCode.endsWith('.')) ? `.${frac}` : '');
    if (body === '') body = '0';
  }
  // Rebuild with literals where they stood: everything before the number code, then after.
  const clean = (code: string): string => code.replace(/[0#?.,]/g, '');
  let out = '';
  let placed = false;
  for (const p of parts) {
    if ('lit' in p) {
      out += p.lit;
      continue;
    }
    const m = placed ? null : /[0#?.,]+(?:[Ee][+-][0#?]+)?/.exec(p.code);
    if (m) {
      out += clean(p.code.slice(0, m.index)) + body + clean(p.code.slice(m.index + m[0].length));
      placed = true;
    } else out += clean(p.code);
  }
  const isZero = /^[^1-9]*$/.test(body);
  const negative = n < 0 && !explicitNegative && !isZero;
  return (negative ? '-' : '') + out;
}

const JA_DAYS = ['日', '月', '火', '水', '木', '金', '土'];
const EN_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

type DTok = { lit: string } | { tok: string };

function lexDateFormat(fmt: string): DTok[] {
  const toks: DTok[] = [];
  for (const p of lexSection(splitSections(fmt)[0])) {
    if ('lit' in p) {
      toks.push({ lit: p.lit });
      continue;
    }
    const re = /\[(?:h+|m+|s+)\]|am\/pm|a\/p|y+|m+|d+|h+|s+|\.0+|./gi;
    for (const m of p.code.matchAll(re)) {
      const t = m[0];
      if (/^(?:\[(?:h+|m+|s+)\]|am\/pm|a\/p|y+|m+|d+|h+|s+|\.0+)$/i.test(t)) toks.push({ tok: t });
      else toks.push({ lit: t });
    }
  }
  return toks;
}

/** Formats a date serial with a Sheets date/time format. Tokens are case-insensitive; `m`/`mm` mean
 * minutes right after an hour or right before seconds, and month otherwise. */
export function formatSerial(serial: number, fmt: string, locale: SheetLocale = 'ja_JP'): string {
  const toks = lexDateFormat(fmt);
  const ampm = toks.some((t) => 'tok' in t && /^(am\/pm|a\/p)$/i.test(t.tok));
  // Round to the precision shown so 12:34:59.9995 does not display as 12:34:59 with a 60-second wrap.
  const hasFraction = toks.some((t) => 'tok' in t && t.tok.startsWith('.'));
  const ms = hasFraction ? Math.round(serial * DAY_MS) : Math.round((serial * DAY_MS) / 1000) * 1000;
  const d = new Date(SERIAL_EPOCH + ms);
  const Y = d.getUTCFullYear();
  const M = d.getUTCMonth() + 1;
  const D = d.getUTCDate();
  const h = d.getUTCHours();
  const mi = d.getUTCMinutes();
  const s = d.getUTCSeconds();
  const msPart = d.getUTCMilliseconds();
  const kinds = toks.map((t) => ('tok' in t ? t.tok.toLowerCase() : ''));
  let out = '';
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if ('lit' in t) {
      out += t.lit;
      continue;
    }
    const k = kinds[i];
    const n = k.length;
    if (k[0] === 'y') out += n <= 2 ? String(Y % 100).padStart(2, '0') : String(Y).padStart(4, '0');
    else if (k[0] === 'm' && n <= 2) {
      const prev = kinds
        .slice(0, i)
        .filter((x) => x !== '')
        .pop();
      const next = kinds.slice(i + 1).find((x) => x !== '');
      const minute = (prev !== undefined && prev[0] === 'h') || (next !== undefined && next[0] === 's');
      const v = minute ? mi : M;
      out += n === 2 ? String(v).padStart(2, '0') : String(v);
    } else if (k[0] === 'm') {
      if (locale === 'ja_JP') out += `${M}月`;
      else out += n === 3 ? MONTHS[M - 1].slice(0, 3) : n === 5 ? MONTHS[M - 1][0] : MONTHS[M - 1];
    } else if (k[0] === 'd') {
      const wd = d.getUTCDay();
      if (n <= 2) out += n === 2 ? String(D).padStart(2, '0') : String(D);
      else if (locale === 'ja_JP') out += n === 3 ? JA_DAYS[wd] : `${JA_DAYS[wd]}曜日`;
      else out += n === 3 ? EN_DAYS[wd].slice(0, 3) : EN_DAYS[wd];
    } else if (k[0] === 'h') {
      const v = ampm ? (h % 12 === 0 ? 12 : h % 12) : h;
      out += n >= 2 ? String(v).padStart(2, '0') : String(v);
    } else if (k[0] === 's') out += n >= 2 ? String(s).padStart(2, '0') : String(s);
    else if (k[0] === '.')
      out += `.${String(msPart)
        .padStart(3, '0')
        .slice(0, n - 1)
        .padEnd(n - 1, '0')}`;
    else if (k === 'am/pm') out += locale === 'ja_JP' ? (h < 12 ? '午前' : '午後') : h < 12 ? 'AM' : 'PM';
    else if (k === 'a/p') out += h < 12 ? 'a' : 'p';
    else if (k.startsWith('[h')) out += String(Math.floor(ms / 3_600_000)).padStart(n - 2, '0');
    else if (k.startsWith('[m')) out += String(Math.floor(ms / 60_000)).padStart(n - 2, '0');
    else if (k.startsWith('[s')) out += String(Math.floor(ms / 1000)).padStart(n - 2, '0');
  }
  return out;
}
