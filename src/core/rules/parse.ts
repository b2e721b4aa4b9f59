/** Parsing the ルール sheet's cells into rules, with a plain-Japanese problem per bad cell. */
import { headerIndex } from '../headers';
import { readInvoiceSay } from '../invoice';
import { matchForm, normalizeText } from '../text';
import { MATCH_TYPES, type MatchType, RULE_MSG, type Rule, type RuleProblem, yen } from './model';
import { compileRegex, regexCache, regexSource } from './regex';

const REQUIRED_HEADERS = ['優先度', '一致方法', 'キーワード', '勘定科目'] as const;

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

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === false || String(value).trim() === '';
}

export function accountList(account: string | null): string[] | null {
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
  if (rule.インボイス) extras.push(`インボイス ${rule.インボイス}`);
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

    const invoice = readInvoiceSay(cellString(raw('インボイス')));
    if (invoice === null)
      problem('インボイス', RULE_MSG.badInvoice(rowNumber, cellString(raw('インボイス'))));

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
      インボイス: invoice ?? '',
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
