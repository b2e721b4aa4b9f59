/**
 * The ルール sheet's 診断 column: for every rule row, what is wrong and what to do, in plain
 * Japanese — cells that cannot be read, rules that can never be used, rules that lose actual 台帳
 * rows to an earlier rule with another account, and names that are not in マスタ. Pure.
 *
 * Cost: O(rules²) for the pairwise checks plus O(distinct lines × rules) for the 台帳 overlap count,
 * where lines that agree on 摘要, 入出金, 金額 and 口座 are counted once.
 */
import { headerIndex } from '../headers';
import { type Masters, resolvePosting } from '../masters';
import { matchForm, normalizeText } from '../text';
import { isSorted, type PreparedLine, prepareLine, ruleMatcher } from './match';
import { RULE_MSG, type Rule, type RuleLine, type RuleNote } from './model';
import { accountList, compareRules, parseRules } from './parse';
import { regexSource } from './regex';

/** What the 診断 cell says about a rule without problems: a person sees it was checked. */
export const DIAGNOSIS_OK = 'OK';

function label(rule: Rule): string {
  return `優先度 ${rule.priority} の『${rule.keyword}』（${rule.rowNumber}行目、${rule.勘定科目}）`;
}

export const DIAGNOSIS_MSG = {
  disabled: '無効です（「有効」にチェックがないため使われません）。使うときはチェックを入れてください。',
  shadowed: (by: Rule): string =>
    `${label(by)}が先に必ず当てはまるため、このルールは使われません。優先度の数字を ${by.priority} より小さくするか、不要なら削除してください。`,
  overlapRows: (by: Rule, rows: number, others: number): string =>
    `台帳の ${rows} 行はこのルールにも当てはまりますが、先に調べられる${label(by)}が使われています` +
    `${others > 0 ? `（ほかに ${others} 件のルールとも重なっています）` : ''}。` +
    'その行をこのルールの勘定科目にしたいなら、優先度を見直すか、入出金・金額・口座の条件で絞ってください。意図どおりならそのままで構いません。',
  overlapKeyword: (by: Rule): string =>
    `キーワードが『${by.keyword}』を含むため、入出金・金額・口座の条件も合う明細には、先に調べられる${label(by)}が使われます。` +
    'このルールを優先したいなら、優先度の数字を小さくしてください。意図どおりならそのままで構いません。',
  mastersMissing: 'マスタがまだ取得されていないため、勘定科目などの名前は確かめていません。',
} as const;

export interface RuleFinding {
  rowNumber: number;
  /** The rule's keyword and account as written, for lists (ドライラン). Empty when unreadable. */
  keyword: string;
  account: string;
  message: string;
}

export interface RuleDiagnosis {
  /** The 診断 cell for each data row (index 0 = sheet row 2); '' for blank rows. */
  cells: string[];
  /** Every rule row with something to say (not OK), in sheet order. */
  findings: RuleFinding[];
}

/** parseRules messages start with 「ルール N行目: 」; in that row's own 診断 cell the prefix is noise. */
function withoutRowPrefix(message: string): string {
  return message.replace(/^ルール \d+行目: /, '');
}

/** Same 勘定科目 and 補助科目: a different 税区分 or 取引先 alone is not worth a warning. */
function sameAccount(a: Rule, b: Rule): boolean {
  return (['勘定科目', '補助科目'] as const).every((f) => normalizeText(a[f]) === normalizeText(b[f]));
}

/** Some amount satisfies both rules' bounds, their directions agree and their 口座 can meet. */
function conditionsMeet(a: Rule, b: Rule): boolean {
  if (a.direction !== null && b.direction !== null && a.direction !== b.direction) return false;
  const low = Math.max(a.minAmount ?? Number.NEGATIVE_INFINITY, b.minAmount ?? Number.NEGATIVE_INFINITY);
  const high = Math.min(a.maxAmount ?? Number.POSITIVE_INFINITY, b.maxAmount ?? Number.POSITIVE_INFINITY);
  if (low > high) return false;
  // Different 口座 lists may still meet through sub-accounts; only claim overlap when either is "all".
  return a.account === null || b.account === null || normalizeText(a.account) === normalizeText(b.account);
}

/**
 * Which rules could match a line, by the first two characters of their keyword: a line is only
 * checked against rules whose keyword start occurs in it (plus regexes and one-character keywords),
 * so the 台帳 pass costs O(lines × line length), not O(lines × rules), for a few hundred rules.
 */
function keywordIndex(rules: readonly Rule[]): (line: PreparedLine) => Rule[] {
  const order = new Map(rules.map((r, i) => [r, i]));
  const always: Rule[] = [];
  const byStart = new Map<string, Rule[]>();
  for (const rule of rules) {
    const form = matchForm(rule.keyword);
    if (rule.matchType === '正規表現' || form.length < 2) always.push(rule);
    else byStart.set(form.slice(0, 2), [...(byStart.get(form.slice(0, 2)) ?? []), rule]);
  }
  return (line) => {
    const found = new Set<Rule>(always);
    for (let i = 0; i + 2 <= line.form.length; i++) {
      for (const r of byStart.get(line.form.slice(i, i + 2)) ?? []) found.add(r);
    }
    return [...found].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  };
}

/**
 * For each enabled rule, the earlier rules with other names that take 台帳 rows it also matches, and
 * how many. Lines are grouped so that repeated statement lines are matched once.
 */
function rowOverlaps(rules: readonly Rule[], lines: readonly RuleLine[]): Map<Rule, Map<Rule, number>> {
  const candidates = keywordIndex(rules.filter((r) => r.enabled));
  const groups = new Map<string, { line: PreparedLine; n: number }>();
  for (const l of lines) {
    const line = prepareLine(l);
    const key = `${line.form}\u0000${line.direction}\u0000${line.amount}\u0000${line.account}`;
    const g = groups.get(key);
    if (g) g.n++;
    else groups.set(key, { line, n: 1 });
  }
  const out = new Map<Rule, Map<Rule, number>>();
  for (const { line, n } of groups.values()) {
    let winner: Rule | null = null;
    for (const rule of candidates(line)) {
      if (!ruleMatcher(rule)(line)) continue;
      if (winner === null) {
        winner = rule;
        continue;
      }
      if (sameAccount(winner, rule)) continue;
      const byWinner = out.get(rule) ?? new Map<Rule, number>();
      byWinner.set(winner, (byWinner.get(winner) ?? 0) + n);
      out.set(rule, byWinner);
    }
  }
  return out;
}

/**
 * Diagnoses the ルール sheet as read (header row first). `lines` are the 台帳 rows to count overlaps
 * on; masters without accounts (never fetched) skip the name check.
 */
export function diagnoseRuleSheet(
  values: readonly (readonly unknown[])[],
  masters: Masters,
  lines: readonly RuleLine[],
): RuleDiagnosis {
  const { rules, problems } = parseRules(values);
  const ordered = [...rules].sort(compareRules);
  const messages = new Map<number, string[]>();
  const say = (row: number, message: string) => messages.set(row, [...(messages.get(row) ?? []), message]);

  // A missing header makes every rule unreadable: say it on each row, the fix is the same.
  const headerProblems = problems.filter((p) => p.rowNumber === 1);
  for (const p of problems) if (p.rowNumber > 1) say(p.rowNumber, withoutRowPrefix(p.message));

  const shadowedBy = new Map<Rule, Rule>();
  for (const { narrow, wide } of shadowingPairs(ordered)) shadowedBy.set(narrow, wide);
  const overlaps = rowOverlaps(ordered, lines);
  const checkNames = masters.accounts.length > 0;

  ordered.forEach((rule, j) => {
    const row = rule.rowNumber;
    if (!rule.enabled) {
      say(row, DIAGNOSIS_MSG.disabled);
      return;
    }
    const wide = shadowedBy.get(rule);
    if (wide) say(row, DIAGNOSIS_MSG.shadowed(wide));
    if (checkNames) {
      const resolved = resolvePosting(masters, rule);
      if (!resolved.ok) for (const p of resolved.problems) say(row, p);
    } else say(row, DIAGNOSIS_MSG.mastersMissing);
    if (wide) return;
    const taken = [...(overlaps.get(rule) ?? new Map<Rule, number>()).entries()].filter(
      ([by]) => !shadowedBy.has(by),
    );
    if (taken.length > 0) {
      taken.sort((a, b) => b[1] - a[1] || compareRules(a[0], b[0]));
      say(row, DIAGNOSIS_MSG.overlapRows(taken[0][0], taken[0][1], taken.length - 1));
      return;
    }
    // No 台帳 row shows it yet: a keyword that contains an earlier one with another account still
    // loses every line where both rules' other conditions hold.
    for (let i = 0; i < j; i++) {
      const earlier = ordered[i];
      if (!earlier.enabled || shadowedBy.has(earlier) || sameAccount(earlier, rule)) continue;
      if (keywordCovers(earlier, rule) && conditionsMeet(earlier, rule) && !conditionsCover(earlier, rule)) {
        say(row, DIAGNOSIS_MSG.overlapKeyword(earlier));
        break;
      }
    }
  });

  const diagnosisColumn = headerIndex(values[0] ?? []).get('診断');
  const byRow = new Map(rules.map((r) => [r.rowNumber, r]));
  const problemRows = new Set(problems.map((p) => p.rowNumber));
  const cells: string[] = [];
  const findings: RuleFinding[] = [];
  for (let i = 1; i < values.length; i++) {
    const row = i + 1;
    const rule = byRow.get(row);
    const said = headerProblems.length > 0 ? headerProblems.map((p) => p.message) : (messages.get(row) ?? []);
    if (!rule && !problemRows.has(row) && headerProblems.length === 0) {
      cells.push('');
      continue;
    }
    if (headerProblems.length > 0 && isBlankRow(values[i], diagnosisColumn)) {
      cells.push('');
      continue;
    }
    // The masters note alone is not a problem with this rule.
    const real = said.filter((m) => m !== DIAGNOSIS_MSG.mastersMissing);
    cells.push(real.length === 0 ? [DIAGNOSIS_OK, ...said].join(' ') : said.join(' '));
    if (real.length > 0) {
      findings.push({
        rowNumber: row,
        keyword: rule?.keyword ?? '',
        account: rule?.勘定科目 ?? '',
        message: real.join(' '),
      });
    }
  }
  return { cells, findings };
}

/** No content outside the 診断 column (our own old text) and unticked checkboxes. */
function isBlankRow(row: readonly unknown[] | undefined, diagnosisColumn: number | undefined): boolean {
  return (row ?? []).every(
    (v, i) =>
      i === diagnosisColumn || v === null || v === undefined || v === false || String(v).trim() === '',
  );
}

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
