/** Matching a statement line against the rules: the first enabled rule in priority order wins. */
import { matchForm, normalizeText } from '../text';
import type { Rule, RuleLine } from './model';
import { accountList, compareRules } from './parse';
import { cachedRegex, REGEX_INPUT_LIMIT } from './regex';

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

export function isSorted(rules: readonly Rule[]): boolean {
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
