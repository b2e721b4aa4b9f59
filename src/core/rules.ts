/**
 * The ルール sheet (DESIGN §3): parsing, matching a statement line, and diagnosing rules that can
 * never win. Pure: the sheet's values come in as getValues returns them.
 *
 * Matching is on NFKC text so that 全角/半角 and kana width do not matter (ｱﾏｿﾞﾝ = アマゾン).
 */
import { headerIndex } from './headers';
import { matchForm, normalizeText } from './text';

export const MATCH_TYPES = ['完全一致', '部分一致', '前方一致', '後方一致', '正規表現'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export interface Rule {
  /** 1-based row on the ルール sheet when it was read. */
  rowNumber: number;
  /** Lower wins; ties go to the upper row. */
  priority: number;
  matchType: MatchType;
  /** The keyword as written on the sheet (matching uses its NFKC form). */
  keyword: string;
  direction: '入金' | '出金' | null;
  minAmount: number | null;
  maxAmount: number | null;
  /** 口座 as written (one name or a comma-separated list); null = every account. */
  account: string | null;
  勘定科目: string;
  補助科目: string;
  税区分: string;
  取引先: string;
  autoApprove: boolean;
  enabled: boolean;
  /** Short Japanese description for 判定根拠. */
  text: string;
}

export interface RuleProblem {
  rowNumber: number;
  /** The header of the cell at fault. */
  column: string;
  message: string;
}

export interface RuleNote {
  rowNumber: number;
  message: string;
}

export interface RuleLine {
  description: string;
  direction: string;
  amount: number;
  account: string;
}

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

const REQUIRED_HEADERS = ['優先度', '一致方法', 'キーワード', '勘定科目'] as const;

const MATCH_TYPE_LIST = MATCH_TYPES.join('・');

export const RULE_MSG = {
  missingHeader: (header: string): string =>
    `ルール 1行目: 見出し「${header}」がありません。メニュー「初期設定」を実行するか、見出しを元に戻してください。ルールは使われません。`,
  emptyPriority: (row: number): string =>
    `ルール ${row}行目: 優先度が空です。1, 2, 3 のような数字を入れてください（小さいほど優先）。`,
  badPriority: (row: number, value: string): string =>
    `ルール ${row}行目: 優先度「${value}」が数字ではありません。1, 2, 3 のような数字を入れてください（小さいほど優先）。`,
  emptyMatchType: (row: number): string =>
    `ルール ${row}行目: 一致方法が空です。${MATCH_TYPE_LIST} から選んでください。`,
  badMatchType: (row: number, value: string): string =>
    `ルール ${row}行目: 一致方法「${value}」は使えません。${MATCH_TYPE_LIST} から選んでください。`,
  emptyKeyword: (row: number): string =>
    `ルール ${row}行目: キーワードが空です。摘要に含まれる文字（例: ｱﾏｿﾞﾝ）を入れてください。`,
  badRegex: (row: number, value: string): string =>
    `ルール ${row}行目: キーワード「${value}」は正規表現として正しくありません。カッコや記号の対応を確かめるか、一致方法を「部分一致」にしてください。`,
  regexBackreference: (row: number, value: string): string =>
    `ルール ${row}行目: 正規表現「${value}」の \\1 や \\k<名前> のような後方参照は、処理に時間がかかるおそれがあるため使えません。後方参照を使わない形に書き直してください。`,
  regexNested: (row: number, value: string): string =>
    `ルール ${row}行目: 正規表現「${value}」は、繰り返し（* + ? {n,m}）や「|」を含むカッコ全体をさらに繰り返しているため、処理に時間がかかるおそれがあり使えません。「(a+)+」は「a+」、「(a|b)+」は「[ab]+」のように書き直してください。`,
  regexTooComplex: (row: number, value: string): string =>
    `ルール ${row}行目: 正規表現「${value}」は繰り返し（* + ? {n,m}）が多く、処理に時間がかかるおそれがあるため使えません。「.*」「\\d+」のような繰り返しを減らしてください（目安は2つまで）。`,
  badDirection: (row: number, value: string): string =>
    `ルール ${row}行目: 入出金「${value}」は使えません。入金・出金 のどちらかを選ぶか、両方に当てはめるなら空にしてください。`,
  badAmount: (row: number, column: string, value: string): string =>
    `ルール ${row}行目: ${column}「${value}」が数字ではありません。1000 のように円の金額を入れるか、空にしてください。`,
  amountRange: (row: number, min: number, max: number): string =>
    `ルール ${row}行目: 金額下限（${yen(min)}）が金額上限（${yen(max)}）より大きいため、どの明細にも当てはまりません。2つの値を入れ替えてください。`,
  emptyAccount: (row: number): string =>
    `ルール ${row}行目: 勘定科目が空です。当てはまった明細に付ける勘定科目（例: 消耗品費）を入れてください。`,
  badAutoApprove: (row: number, value: string): string =>
    `ルール ${row}行目: 自動承認「${value}」は使えません。はい・いいえ から選んでください（空はいいえ）。`,
  badEnabled: (row: number, value: string): string =>
    `ルール ${row}行目: 有効「${value}」は使えません。チェックボックスにして、使うルールにチェックを入れてください。`,
  shadowed: (row: number, byRow: number, byPriority: number): string =>
    `ルール ${row}行目は、先に調べられるルール ${byRow}行目（優先度 ${byPriority}）と同じか、それより広い条件のため、使われることがありません。優先度を見直すか、不要なら「有効」のチェックを外してください。`,
} as const;

// ---------------------------------------------------------------------------------------------
// Cell reading

function cellString(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value).trim();
}

/** Numbers as people type them: 全角 digits, commas, ¥ and 円 are fine. '' → null. */
function cellNumber(value: unknown): number | null | 'invalid' {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : 'invalid';
  if (typeof value !== 'string') return 'invalid';
  const text = value.normalize('NFKC').replace(/[,¥\\円\s]/g, '');
  if (text === '') return null;
  if (!/^-?\d+(\.\d+)?$/.test(text)) return 'invalid';
  return Number(text);
}

function yen(n: number): string {
  const [int, frac] = String(Math.abs(n)).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${frac ? `.${frac}` : ''}円`;
}

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === false || String(value).trim() === '';
}

// ---------------------------------------------------------------------------------------------
// Regular expressions

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
const regexCache = new Map<string, RegExp | null>();

/** The pattern's NFKC form, so that a pattern typed in 半角 kana matches the NFKC description. */
function regexSource(keyword: string): string {
  return keyword.normalize('NFKC').trim();
}

type RegexCompile = { ok: true; regex: RegExp } | { ok: false; reason: 'invalid' | RegexRisk };

function compileRegex(keyword: string): RegexCompile {
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

function cachedRegex(keyword: string): RegExp | null {
  const source = regexSource(keyword);
  if (!regexCache.has(source)) {
    const compiled = compileRegex(keyword);
    regexCache.set(source, compiled.ok ? compiled.regex : null);
  }
  return regexCache.get(source) ?? null;
}

// ---------------------------------------------------------------------------------------------
// Parsing

function accountList(account: string | null): string[] | null {
  if (account === null) return null;
  const names = account
    .normalize('NFKC')
    .split(/[,、]/)
    .map((a) => matchForm(a))
    .filter((a) => a !== '');
  return names.length > 0 ? names : null;
}

export function describeRule(rule: Omit<Rule, 'text'>): string {
  const kw = `「${rule.keyword}」`;
  const conditions = [
    {
      完全一致: `摘要が${kw}と一致`,
      部分一致: `摘要が${kw}を含む`,
      前方一致: `摘要が${kw}で始まる`,
      後方一致: `摘要が${kw}で終わる`,
      正規表現: `摘要が正規表現${kw}に一致`,
    }[rule.matchType],
  ];
  if (rule.direction) conditions.push(rule.direction);
  if (rule.minAmount !== null && rule.maxAmount !== null) {
    conditions.push(`${yen(rule.minAmount).replace(/円$/, '')}〜${yen(rule.maxAmount)}`);
  } else if (rule.minAmount !== null) conditions.push(`${yen(rule.minAmount)}以上`);
  else if (rule.maxAmount !== null) conditions.push(`${yen(rule.maxAmount)}以下`);
  if (rule.account !== null) conditions.push(`口座「${rule.account}」`);
  const extras: string[] = [];
  if (rule.補助科目) extras.push(`補助科目 ${rule.補助科目}`);
  if (rule.税区分) extras.push(`税区分 ${rule.税区分}`);
  if (rule.取引先) extras.push(`取引先 ${rule.取引先}`);
  const target = extras.length > 0 ? `${rule.勘定科目}（${extras.join('、')}）` : rule.勘定科目;
  return `ルール#${rule.priority}: ${conditions.join('・')} → ${target}`;
}

export function compareRules(a: Rule, b: Rule): number {
  return a.priority - b.priority || a.rowNumber - b.rowNumber;
}

/**
 * Parses the whole ルール sheet (header row first). Columns are found by header text. A rule with
 * any problem is left out (and reported); disabled rules are kept but never match. Sorted by
 * priority, ties by row. Blank rows (ignoring the 有効 / 自動承認 checkboxes) are skipped.
 */
export function parseRules(values: readonly (readonly unknown[])[]): {
  rules: Rule[];
  problems: RuleProblem[];
} {
  const header = values[0] ?? [];
  const columns = headerIndex(header);
  const problems: RuleProblem[] = [];
  for (const h of REQUIRED_HEADERS) {
    if (!columns.has(h)) problems.push({ rowNumber: 1, column: h, message: RULE_MSG.missingHeader(h) });
  }
  if (problems.length > 0) return { rules: [], problems };

  const rules: Rule[] = [];
  for (let i = 1; i < values.length; i++) {
    const line = values[i] ?? [];
    const rowNumber = i + 1;
    const raw = (h: string): unknown => {
      const col = columns.get(h);
      return col === undefined ? '' : line[col];
    };
    const content = ['優先度', '一致方法', 'キーワード', '入出金', '金額下限', '金額上限', '口座'];
    if ([...content, '勘定科目', '補助科目', '税区分', '取引先'].every((h) => isBlank(raw(h)))) continue;

    const rowProblems: RuleProblem[] = [];
    const problem = (column: string, message: string) => rowProblems.push({ rowNumber, column, message });

    const priority = cellNumber(raw('優先度'));
    if (priority === null) problem('優先度', RULE_MSG.emptyPriority(rowNumber));
    else if (priority === 'invalid')
      problem('優先度', RULE_MSG.badPriority(rowNumber, cellString(raw('優先度'))));

    const matchTypeText = cellString(raw('一致方法')).normalize('NFKC');
    const matchType = (MATCH_TYPES as readonly string[]).includes(matchTypeText)
      ? (matchTypeText as MatchType)
      : null;
    if (matchTypeText === '') problem('一致方法', RULE_MSG.emptyMatchType(rowNumber));
    else if (!matchType) problem('一致方法', RULE_MSG.badMatchType(rowNumber, cellString(raw('一致方法'))));

    const keyword = cellString(raw('キーワード'));
    if (matchForm(keyword) === '') problem('キーワード', RULE_MSG.emptyKeyword(rowNumber));
    else if (matchType === '正規表現') {
      const compiled = compileRegex(keyword);
      if (compiled.ok) regexCache.set(regexSource(keyword), compiled.regex);
      else {
        const message = {
          invalid: RULE_MSG.badRegex,
          backreference: RULE_MSG.regexBackreference,
          nested: RULE_MSG.regexNested,
          'too-complex': RULE_MSG.regexTooComplex,
        }[compiled.reason](rowNumber, keyword);
        problem('キーワード', message);
      }
    }

    const directionText = normalizeText(cellString(raw('入出金')));
    let direction: Rule['direction'] = null;
    if (directionText === '入金' || directionText === '出金') direction = directionText;
    else if (directionText !== '')
      problem('入出金', RULE_MSG.badDirection(rowNumber, cellString(raw('入出金'))));

    const amounts: (number | null)[] = [];
    for (const h of ['金額下限', '金額上限']) {
      const value = cellNumber(raw(h));
      if (value === 'invalid') {
        problem(h, RULE_MSG.badAmount(rowNumber, h, cellString(raw(h))));
        amounts.push(null);
      } else amounts.push(value);
    }
    const [minAmount, maxAmount] = amounts;
    if (minAmount !== null && maxAmount !== null && minAmount > maxAmount) {
      problem('金額下限', RULE_MSG.amountRange(rowNumber, minAmount, maxAmount));
    }

    const accountText = cellString(raw('口座'));
    const account = accountList(accountText) === null ? null : accountText;

    const 勘定科目 = cellString(raw('勘定科目'));
    if (勘定科目 === '') problem('勘定科目', RULE_MSG.emptyAccount(rowNumber));

    const autoApprove = parseYesNo(raw('自動承認'));
    if (autoApprove === null)
      problem('自動承認', RULE_MSG.badAutoApprove(rowNumber, cellString(raw('自動承認'))));

    // A sheet without the 有効 column has nothing to switch off, so its rules are on.
    const enabled = columns.has('有効') ? parseEnabled(raw('有効')) : true;
    if (enabled === null) problem('有効', RULE_MSG.badEnabled(rowNumber, cellString(raw('有効'))));

    if (rowProblems.length > 0 || priority === null || priority === 'invalid' || !matchType) {
      problems.push(...rowProblems);
      continue;
    }
    const base: Omit<Rule, 'text'> = {
      rowNumber,
      priority,
      matchType,
      keyword,
      direction,
      minAmount,
      maxAmount,
      account,
      勘定科目,
      補助科目: cellString(raw('補助科目')),
      税区分: cellString(raw('税区分')),
      取引先: cellString(raw('取引先')),
      autoApprove: autoApprove === true,
      enabled: enabled === true,
    };
    rules.push({ ...base, text: describeRule(base) });
  }
  rules.sort(compareRules);
  return { rules, problems };
}

function parseYesNo(value: unknown): boolean | null {
  if (value === true || value === false) return value;
  const text = normalizeText(cellString(value));
  if (text === 'はい') return true;
  if (text === 'いいえ' || text === '') return false;
  return null;
}

/**
 * 有効 is a checkbox (true / false). An empty cell counts as off: a rule that might auto-approve
 * postings is only used when someone ticked it.
 */
function parseEnabled(value: unknown): boolean | null {
  if (value === true || value === false) return value;
  const text = normalizeText(cellString(value)).toUpperCase();
  if (text === 'TRUE') return true;
  if (text === 'FALSE' || text === '') return false;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Matching

/** Keyword match forms per keyword text: NFKC once, not once per row and rule. */
const keywordForms = new Map<string, string>();

function keywordForm(keyword: string): string {
  let form = keywordForms.get(keyword);
  if (form === undefined) {
    form = matchForm(keyword);
    keywordForms.set(keyword, form);
  }
  return form;
}

function isSorted(rules: readonly Rule[]): boolean {
  for (let i = 1; i < rules.length; i++) if (compareRules(rules[i - 1], rules[i]) > 0) return false;
  return true;
}

/** A statement line normalised once, so that checking it against many rules does not redo NFKC. */
export interface PreparedLine {
  text: string;
  form: string;
  direction: string;
  amount: number;
  account: string;
}

export function prepareLine(line: RuleLine): PreparedLine {
  const text = normalizeText(line.description);
  return {
    text,
    form: text.toLowerCase(),
    direction: normalizeText(line.direction),
    amount: line.amount,
    account: matchForm(line.account),
  };
}

/** Whether every condition of `rule` holds for the line (ignores 有効: callers decide). */
export function ruleMatches(rule: Rule, line: PreparedLine): boolean {
  return ruleMatcher(rule)(line);
}

const matchers = new WeakMap<Rule, (line: PreparedLine) => boolean>();

/**
 * The rule as one function over prepared lines, its keyword form and 口座 list computed once: the
 * diagnostics check every 台帳 line against every rule. Cheap conditions and the keyword first.
 */
export function ruleMatcher(rule: Rule): (line: PreparedLine) => boolean {
  const cached = matchers.get(rule);
  if (cached) return cached;
  const { direction, minAmount, maxAmount } = rule;
  const accounts = accountList(rule.account);
  const keyword = keywordForm(rule.keyword);
  const regex = rule.matchType === '正規表現' ? cachedRegex(rule.keyword) : null;
  const keywordHolds = (line: PreparedLine): boolean => {
    switch (rule.matchType) {
      case '正規表現':
        return regex ? regex.test(line.text.slice(0, REGEX_INPUT_LIMIT)) : false;
      case '完全一致':
        return line.form === keyword;
      case '部分一致':
        return line.form.includes(keyword);
      case '前方一致':
        return line.form.startsWith(keyword);
      case '後方一致':
        return line.form.endsWith(keyword);
    }
  };
  const matcher = (line: PreparedLine): boolean => {
    if (direction !== null && direction !== line.direction) return false;
    if (keyword === '' && rule.matchType !== '正規表現') return false;
    if (!keywordHolds(line)) return false;
    // Written as negated >= / <= so that a NaN amount never satisfies a bound.
    if (minAmount !== null && !(line.amount >= minAmount)) return false;
    if (maxAmount !== null && !(line.amount <= maxAmount)) return false;
    // 口座 in the 台帳 is "<account> <sub-account>" for MF lines: a rule may name the account alone.
    return accounts === null || accounts.some((a) => line.account === a || line.account.startsWith(`${a} `));
  };
  matchers.set(rule, matcher);
  return matcher;
}

/** The first enabled rule, by priority then row, whose every condition holds for the line. */
export function matchRule(rules: readonly Rule[], line: RuleLine): Rule | null {
  const ordered = isSorted(rules) ? rules : [...rules].sort(compareRules);
  const prepared = prepareLine(line);
  for (const rule of ordered) {
    if (rule.enabled && ruleMatches(rule, prepared)) return rule;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Diagnosis

/**
 * True when every description `narrow` matches is also matched by `wide` (non-regex keywords in
 * match form). Sound, not complete: it only answers yes when containment is certain.
 */
export function keywordCovers(wide: Rule, narrow: Rule): boolean {
  if (wide.matchType === '正規表現' || narrow.matchType === '正規表現') {
    return wide.matchType === narrow.matchType && regexSource(wide.keyword) === regexSource(narrow.keyword);
  }
  const w = matchForm(wide.keyword);
  const k = matchForm(narrow.keyword);
  switch (wide.matchType) {
    case '部分一致':
      return k.includes(w);
    case '前方一致':
      return (narrow.matchType === '前方一致' || narrow.matchType === '完全一致') && k.startsWith(w);
    case '後方一致':
      return (narrow.matchType === '後方一致' || narrow.matchType === '完全一致') && k.endsWith(w);
    case '完全一致':
      return narrow.matchType === '完全一致' && k === w;
  }
}

export function conditionsCover(wide: Rule, narrow: Rule): boolean {
  if (wide.direction !== null && wide.direction !== narrow.direction) return false;
  if (wide.minAmount !== null && (narrow.minAmount === null || narrow.minAmount < wide.minAmount))
    return false;
  if (wide.maxAmount !== null && (narrow.maxAmount === null || narrow.maxAmount > wide.maxAmount))
    return false;
  const wideAccounts = accountList(wide.account);
  if (wideAccounts !== null) {
    const narrowAccounts = accountList(narrow.account);
    // A narrow "A 普通" lies inside a wide "A": the 台帳 口座 it matches starts with "A ".
    const inside = (a: string) => wideAccounts.some((w) => a === w || a.startsWith(`${w} `));
    if (narrowAccounts === null || !narrowAccounts.every(inside)) return false;
  }
  return true;
}

/**
 * Notes for enabled rules that can never be chosen because an earlier enabled rule matches every
 * line they match (same keyword or a keyword it contains, and conditions no narrower). Conservative:
 * overlaps that are only partial, and regular expressions other than identical ones, are not reported.
 */
export function diagnoseRules(rules: readonly Rule[]): RuleNote[] {
  return shadowingPairs(rules).map(({ narrow, wide }) => ({
    rowNumber: narrow.rowNumber,
    message: RULE_MSG.shadowed(narrow.rowNumber, wide.rowNumber, wide.priority),
  }));
}

/** Each enabled rule that can never be chosen, with the first earlier rule that always wins over it. */
export function shadowingPairs(rules: readonly Rule[]): { narrow: Rule; wide: Rule }[] {
  const ordered = isSorted(rules) ? rules : [...rules].sort(compareRules);
  const pairs: { narrow: Rule; wide: Rule }[] = [];
  for (let j = 0; j < ordered.length; j++) {
    const narrow = ordered[j];
    if (!narrow.enabled) continue;
    for (let i = 0; i < j; i++) {
      const wide = ordered[i];
      if (!wide.enabled || !keywordCovers(wide, narrow) || !conditionsCover(wide, narrow)) continue;
      pairs.push({ narrow, wide });
      break;
    }
  }
  return pairs;
}
