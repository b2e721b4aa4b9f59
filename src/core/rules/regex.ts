/**
 * Regular-expression safety for 正規表現 rules: Apps Script has no regex timeout, so a pattern is
 * refused when its worst case is too slow and only ever runs on a capped input.
 */
/**
 * Apps Script has no regex timeout, and one catastrophic pattern would make every scheduled run hit
 * the 6-minute kill. So a 正規表現 rule is (1) checked when parsed and refused when its worst case is
 * too slow (see regexRisk), and (2) only ever run on the first REGEX_INPUT_LIMIT characters of 摘要.
 * 500 rather than 1,000: measured in V8, `.*.*x` on 1,000 characters takes ~170 ms, on 500 ~20 ms;
 * bank and card descriptions are far shorter than either.
 */
export const REGEX_INPUT_LIMIT = 500;

/**
 * Rough upper bound on backtracking steps a pattern may need on REGEX_INPUT_LIMIT characters:
 * the search start (N) times, per quantifier, how many lengths it can try (N when unbounded).
 * N^3 allows two unbounded repeats (`ｶｰﾄﾞ\s*\d+`), which worst-case measures ~20 ms.
 */
const REGEX_COST_LIMIT = REGEX_INPUT_LIMIT ** 3;

export type RegexRisk = 'backreference' | 'nested' | 'too-complex';

interface Frame {
  /** The group contains a quantifier that can match more than one length. */
  variable: boolean;
  alternation: boolean;
}

/**
 * Static check for patterns that can backtrack catastrophically, for a pattern the RegExp
 * constructor has already accepted (non-unicode mode). Deliberately conservative — it refuses:
 * - backreferences (matching with them is NP-hard);
 * - a repeated group that itself contains a variable-length quantifier or `|` (`(a+)+`, `(a|a)*`),
 *   the classic exponential cases;
 * - patterns whose estimated step count on REGEX_INPUT_LIMIT characters exceeds REGEX_COST_LIMIT
 *   (three unbounded repeats such as `.*.*.*x` take ~40 s on 1,000 characters in V8).
 */
export function regexRisk(pattern: string): RegexRisk | null {
  const n = REGEX_INPUT_LIMIT;
  const stack: Frame[] = [{ variable: false, alternation: false }];
  // What a following quantifier would apply to: a single character-like atom, a group, or nothing.
  let last: null | 'atom' | Frame = null;
  let cost = n;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return 'backreference';
      last = 'atom';
      i += 2;
      continue;
    }
    if (c === '[') {
      i++;
      if (pattern[i] === '^') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
      i++;
      last = 'atom';
      continue;
    }
    if (c === '(') {
      i++;
      if (pattern[i] === '?') {
        if (pattern[i + 1] === '<' && pattern[i + 2] !== '=' && pattern[i + 2] !== '!') {
          const close = pattern.indexOf('>', i);
          i = close < 0 ? pattern.length : close + 1;
        } else {
          i += pattern[i + 1] === '<' ? 3 : 2;
        }
      }
      stack.push({ variable: false, alternation: false });
      last = null;
      continue;
    }
    if (c === ')') {
      const frame = stack.length > 1 ? (stack.pop() as Frame) : { variable: false, alternation: false };
      const parent = stack[stack.length - 1];
      parent.variable = parent.variable || frame.variable;
      parent.alternation = parent.alternation || frame.alternation;
      last = frame;
      i++;
      continue;
    }
    if (c === '|') {
      stack[stack.length - 1].alternation = true;
      last = null;
      i++;
      continue;
    }
    const quantifier = readQuantifier(pattern, i);
    if (quantifier && last !== null) {
      const { min, max, length } = quantifier;
      if (max > 1 && last !== 'atom' && (last.variable || last.alternation)) return 'nested';
      // How many lengths the quantifier can try on a capped input; unbounded counts as n.
      const choices = max === Number.POSITIVE_INFINITY ? n : Math.min(max - min + 1, n);
      if (choices > 1) stack[stack.length - 1].variable = true;
      cost *= choices;
      if (cost > REGEX_COST_LIMIT) return 'too-complex';
      last = null;
      i += length;
      continue;
    }
    // Any other character, including a `{` that is not a quantifier (a literal in non-unicode mode).
    last = c === '^' || c === '$' ? null : 'atom';
    i++;
  }
  return null;
}

function readQuantifier(pattern: string, i: number): { min: number; max: number; length: number } | null {
  const c = pattern[i];
  let q: { min: number; max: number; length: number } | null = null;
  if (c === '*') q = { min: 0, max: Number.POSITIVE_INFINITY, length: 1 };
  else if (c === '+') q = { min: 1, max: Number.POSITIVE_INFINITY, length: 1 };
  else if (c === '?') q = { min: 0, max: 1, length: 1 };
  else if (c === '{') {
    const brace = /\{(\d+)(,(\d*))?\}/y;
    brace.lastIndex = i;
    const m = brace.exec(pattern);
    if (m) {
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
      q = { min, max, length: m[0].length };
    }
  }
  if (q && pattern[i + q.length] === '?') q.length++; // lazy: same worst case
  return q;
}

/** Patterns are compiled once per text; the same pattern on many rules or rows shares one RegExp. */
export const regexCache = new Map<string, RegExp | null>();

/** The pattern's NFKC form, so that a pattern typed in 半角 kana matches the NFKC description. */
export function regexSource(keyword: string): string {
  return keyword.normalize('NFKC').trim();
}

type RegexCompile = { ok: true; regex: RegExp } | { ok: false; reason: 'invalid' | RegexRisk };

export function compileRegex(keyword: string): RegexCompile {
  const source = regexSource(keyword);
  let regex: RegExp;
  try {
    // Case-insensitive; no `g`/`y`, so `test` keeps no state between rows.
    regex = new RegExp(source, 'i');
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const risk = regexRisk(source);
  if (risk) return { ok: false, reason: risk };
  return { ok: true, regex };
}

export function cachedRegex(keyword: string): RegExp | null {
  const source = regexSource(keyword);
  if (!regexCache.has(source)) {
    const compiled = compileRegex(keyword);
    regexCache.set(source, compiled.ok ? compiled.regex : null);
  }
  return regexCache.get(source) ?? null;
}
