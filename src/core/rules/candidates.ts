/**
 * Learning from people (ルール候補): when a person approves a row whose names the rules would not
 * give, a rule is suggested — never created. A person adopts a suggestion by ticking 採用; the next
 * run appends it to ルール. Pure: values come in and go out as getValues / setValues hold them.
 *
 * How "a person chose this" is detected: the 承認 operation was applied to the row in this run (so
 * approvals are seen once, whichever run consumes the 操作), and the enabled rules as they are now
 * would not give the row the approved names. That comparison needs no memory of the row's earlier
 * values and does not depend on how 判定元 is written: it covers a row no rule matched (判定元 empty →
 * 手動), a rule's or AI's account that the person changed, and an AI guess the person confirmed.
 * A row the rules already classify this way teaches nothing and is skipped.
 */
import { headerIndex } from '../headers';
import type { LedgerRecord, LedgerRow, RowChange } from '../ledger';
import { RULE_CANDIDATE_HEADERS, RULE_HEADERS } from '../schema';
import { matchForm, normalizeText } from '../text';
import { conditionsCover, keywordCovers } from './diagnostics';
import { matchRule, prepareLine, ruleMatches } from './match';
import type { Rule } from './model';
import { compareRules, parseRules } from './parse';

export type CandidateHeader = (typeof RULE_CANDIDATE_HEADERS)[number];

export const CANDIDATE_STATUS = { open: '候補', adopted: '採用済み' } as const;

const NAME_FIELDS = ['勘定科目', '補助科目', '税区分', '取引先'] as const;

export const CANDIDATE_MSG = {
  reasonNoRule: (account: string, who: string): string =>
    `当てはまるルールがない行を、${who} が ${account} で承認しました。`,
  reasonChanged: (rule: Rule, account: string, who: string): string =>
    `ルール#${rule.priority}（${rule.勘定科目}）が当てはまる行を、${who} が ${account} で承認しました。`,
  learnt: (added: number, updated: number): string =>
    `承認された行から、ルール候補を ${added} 件追加、${updated} 件更新しました。使うときはシート「ルール候補」の「採用」にチェックを入れてください。`,
  adopted: (keyword: string, account: string, row: number, priority: number): string =>
    `ルール候補『${keyword}』（${account}）を、ルール ${row}行目に追加しました（優先度 ${priority}、自動承認 いいえ）。これから判定する明細に使います（判定済みの行はそのままです）。`,
  placedBefore: (rule: Rule): string =>
    `優先度 ${rule.priority} の『${rule.keyword}』（${rule.勘定科目}）より先に調べます。`,
  adoptedStatus: (row: number, priority: number): string =>
    `${CANDIDATE_STATUS.adopted}（ルール ${row}行目、優先度 ${priority}）`,
  refused: (row: number, reason: string): string => `ルール候補 ${row}行目は採用できません: ${reason}`,
  refusedStatus: (reason: string): string => `採用できません: ${reason}`,
} as const;

// ---------------------------------------------------------------------------------------------
// Keywords

/**
 * Words banks put before the counterparty (振込, 口座振替, デビット …), compared after NFKC and
 * lower-casing. Dropped when something else remains, so the keyword is the counterparty itself.
 */
const PREFIX_WORDS: ReadonlySet<string> = new Set(
  [
    '振込',
    '振込み',
    'フリコミ',
    '振替',
    'フリカエ',
    '口座振替',
    'コウザフリカエ',
    '口振',
    '自動振替',
    'ジドウフリカエ',
    'デビット',
    'Vデビット',
    'VISAデビット',
    'JCBデビット',
    'カード',
    'クレジット',
    'ペイジー',
    'PAY-EASY',
    '入金',
    '出金',
    '支払',
    'シハライ',
    '引落',
    '引落し',
    'ヒキオトシ',
  ].map((w) => matchForm(w)),
);

/**
 * Legal-form marks that banks attach to a name: カ) = 株式会社, ユ) = 有限会社, ド) = 合同会社 and the
 * other 全銀 abbreviations, (株), 株式会社 … They vary with how a payer typed the name.
 */
const FORM_MARK = '(?:カ|ユ|ド|メ|シ|ザイ|シヤ|シユウ|ガク|フク|イ|トクヒ|株|有)';
const LEADING_FORM = new RegExp(`^(?:\\(?${FORM_MARK}\\)|株式会社|有限会社|合同会社)`);
const TRAILING_FORM = new RegExp(`(?:\\(${FORM_MARK}\\)?|株式会社|有限会社|合同会社)$`);

/** Characters that separate words in statement text (after NFKC, so ＊ and ／ are included). */
const WORD = /[^\s*/|#,、:;]+/;

/** Keep at most this many adjacent words: enough for 「ニホンコウツウ タクシー」, short of a branch name. */
const MAX_WORDS = 2;

interface Word {
  start: number;
  end: number;
  text: string;
  /** Varies from line to line (numbers, dates, references) or carries no letters. */
  varying: boolean;
  prefix: boolean;
}

function words(text: string): Word[] {
  const out: Word[] = [];
  const pattern = new RegExp(WORD.source, 'g');
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    let start = m.index;
    let end = start + m[0].length;
    const lead = LEADING_FORM.exec(m[0]);
    if (lead && lead[0].length < m[0].length) start += lead[0].length;
    const rest = text.slice(start, end);
    const trail = TRAILING_FORM.exec(rest);
    if (trail && trail[0].length < rest.length) end -= trail[0].length;
    const word = text.slice(start, end);
    const digits = (word.match(/\d/g) ?? []).length;
    // Three digits or a half-numeric word is a number, date or reference (0123, 11月分, AB12CD34);
    // a lone digit in a name stays (7-ELEVEN, 3COINS).
    const varying =
      digits >= 3 || digits * 2 >= word.length || !/\p{L}/u.test(word) || (lead !== null && rest === '');
    out.push({ start, end, text: word, varying, prefix: PREFIX_WORDS.has(matchForm(word)) });
  }
  return out;
}

/**
 * The stable part of a description, as a 部分一致 keyword: the first run of up to MAX_WORDS adjacent
 * words that do not vary, skipping bank prefixes (振込 …) and legal-form marks (カ) …). It is always a
 * substring of the NFKC description, so the suggested rule matches the row it came from. Null when
 * nothing stable is left (a description of numbers only).
 */
export function deriveKeyword(description: string): string | null {
  const text = normalizeText(description);
  const all = words(text);
  for (const skipPrefixes of [true, false]) {
    let run: Word[] = [];
    const pick = (): string | null => {
      if (run.length === 0) return null;
      const keyword = text.slice(run[0].start, run[run.length - 1].end).trim();
      return [...keyword].length >= 2 ? keyword : null;
    };
    for (const w of all) {
      const usable = !w.varying && !(skipPrefixes && w.prefix);
      if (usable && run.length < MAX_WORDS) {
        run.push(w);
        continue;
      }
      const found = pick();
      if (found) return found;
      run = usable ? [w] : [];
    }
    const found = pick();
    if (found) return found;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Learning

/**
 * The rows this run's 承認 operations approved (as they are after the operation). `before` is the
 * 台帳 as read, `ops` what applyOperations returned for it.
 */
export function approvedRows(before: readonly LedgerRow[], ops: readonly RowChange[]): LedgerRecord[] {
  const byRow = new Map(before.map((r) => [r.rowNumber, r]));
  const out: LedgerRecord[] = [];
  for (const op of ops) {
    const row = byRow.get(op.rowNumber);
    if (row?.record.操作.trim() !== '承認' || op.patch.状態 !== '送信待ち') continue;
    out.push({ ...row.record, ...op.patch });
  }
  return out;
}

export interface CandidateTable {
  header: unknown[];
  columns: Map<string, number>;
  /** Data rows as read (index 0 = sheet row 2), other people's columns included. */
  rows: unknown[][];
}

export function parseCandidates(values: readonly (readonly unknown[])[]): CandidateTable {
  const header = [...(values[0] ?? [])];
  return { header, columns: headerIndex(header), rows: values.slice(1).map((r) => [...r]) };
}

function cell(table: CandidateTable, row: unknown[], h: CandidateHeader): string {
  const col = table.columns.get(h);
  const v = col === undefined ? '' : row[col];
  return v === null || v === undefined ? '' : String(v).trim();
}

function setCell(table: CandidateTable, row: unknown[], h: CandidateHeader, value: unknown): void {
  const col = table.columns.get(h);
  if (col !== undefined) row[col] = value;
}

function identity(keyword: string, direction: string, account: string): string {
  return `${matchForm(keyword)}\u0000${normalizeText(direction)}\u0000${normalizeText(account)}`;
}

function recordLine(r: LedgerRecord) {
  return {
    description: r.摘要,
    direction: r.入出金,
    amount: typeof r.金額 === 'number' ? r.金額 : Number.NaN,
    account: r.口座,
  };
}

/** The rule names as decide() in classify.ts applies them: a name the rule leaves empty keeps the row's. */
function ruleGives(rule: Rule, r: LedgerRecord): boolean {
  return NAME_FIELDS.every((f) => rule[f] === '' || normalizeText(rule[f]) === normalizeText(r[f]));
}

/** Our columns say nothing (an unticked checkbox reads as false): a slot for a new candidate. */
function isBlank(table: CandidateTable, row: unknown[]): boolean {
  return RULE_CANDIDATE_HEADERS.every((h) => {
    const v = cell(table, row, h);
    return v === '' || v === 'false';
  });
}

/**
 * The first blank data row, else a new one at the end. Blank rows are reused because checkboxes
 * formatted down the sheet can make every row look used.
 */
function takeBlankRow(table: CandidateTable): unknown[] {
  const blank = table.rows.find((r) => isBlank(table, r));
  if (blank) return blank;
  const row = new Array(Math.max(table.header.length, RULE_CANDIDATE_HEADERS.length)).fill('');
  table.rows.push(row);
  return row;
}

export interface Learnt {
  table: CandidateTable;
  added: number;
  updated: number;
}

/**
 * Adds or updates one candidate per (keyword, 入出金, 勘定科目) for the approved rows the rules would
 * not classify this way. 該当行数 counts the 台帳 rows (`ledger`) the keyword and 入出金 match.
 * Candidates already adopted are left alone. Changes `table` in place and returns it.
 */
export function learnCandidates(input: {
  table: CandidateTable;
  approved: readonly LedgerRecord[];
  rules: readonly Rule[];
  ledger: readonly LedgerRecord[];
  who: string;
  now: string;
}): Learnt {
  const { table } = input;
  const index = new Map<string, unknown[]>();
  for (const row of table.rows) {
    const id = identity(
      cell(table, row, 'キーワード'),
      cell(table, row, '入出金'),
      cell(table, row, '勘定科目'),
    );
    if (!index.has(id)) index.set(id, row);
  }
  const touched = new Set<unknown[]>();
  let added = 0;
  let updated = 0;
  for (const r of input.approved) {
    const line = recordLine(r);
    const rule = matchRule(input.rules, line);
    if (rule && ruleGives(rule, r)) continue;
    const keyword = deriveKeyword(line.description);
    const account = r.勘定科目.trim();
    if (!keyword || account === '') continue;
    const direction = normalizeText(line.direction);
    const id = identity(keyword, direction, account);
    let row = index.get(id);
    if (row && cell(table, row, '状態').startsWith(CANDIDATE_STATUS.adopted)) continue;
    if (!row) {
      row = takeBlankRow(table);
      setCell(table, row, '採用', false);
      setCell(table, row, '状態', CANDIDATE_STATUS.open);
      setCell(table, row, 'キーワード', keyword);
      setCell(table, row, '一致方法', '部分一致');
      setCell(table, row, '入出金', direction);
      index.set(id, row);
      added++;
    } else if (!touched.has(row)) updated++;
    touched.add(row);
    for (const f of NAME_FIELDS) setCell(table, row, f, r[f].trim());
    setCell(table, row, '摘要の例', r.摘要);
    setCell(
      table,
      row,
      '根拠',
      rule
        ? CANDIDATE_MSG.reasonChanged(rule, account, input.who)
        : CANDIDATE_MSG.reasonNoRule(account, input.who),
    );
    setCell(table, row, '更新日時', input.now);
  }
  // Counts for what changed only: O(rows × touched candidates), never every candidate every run.
  if (touched.size === 0) return { table, added, updated };
  const lines = input.ledger.map((r) => prepareLine(recordLine(r)));
  for (const row of touched) {
    const form = matchForm(cell(table, row, 'キーワード'));
    const direction = cell(table, row, '入出金');
    const n = lines.filter(
      (l) => l.form.includes(form) && (direction === '' || l.direction === direction),
    ).length;
    setCell(table, row, '該当行数', n);
  }
  return { table, added, updated };
}

// ---------------------------------------------------------------------------------------------
// Adoption

function ticked(value: string): boolean {
  return value.toUpperCase() === 'TRUE';
}

/** The candidate as a ルール row (values under RULE_HEADERS), priority filled in later. */
function ruleCells(table: CandidateTable, row: unknown[], priority: number): Record<string, unknown> {
  return {
    優先度: priority,
    一致方法: cell(table, row, '一致方法') || '部分一致',
    キーワード: cell(table, row, 'キーワード'),
    入出金: cell(table, row, '入出金'),
    勘定科目: cell(table, row, '勘定科目'),
    補助科目: cell(table, row, '補助科目'),
    税区分: cell(table, row, '税区分'),
    取引先: cell(table, row, '取引先'),
    自動承認: 'いいえ',
    有効: true,
  };
}

/** One rule parsed from cells, or the first reason it cannot be read. */
function parseOne(cells: Record<string, unknown>, rowNumber: number): { rule: Rule } | { reason: string } {
  const headers = [...RULE_HEADERS];
  const { rules, problems } = parseRules([headers, headers.map((h) => cells[h] ?? '')]);
  if (problems.length > 0) return { reason: problems[0].message.replace(/^ルール \d+行目: /, '') };
  return { rule: { ...rules[0], rowNumber } };
}

function samePosting(a: Rule, b: Rule): boolean {
  return NAME_FIELDS.every((f) => normalizeText(a[f]) === normalizeText(b[f]));
}

/**
 * Where an adopted rule goes. Normally after every rule (next free 優先度). When an earlier rule
 * with other names takes the example description — the person overrode it — the new rule goes just
 * before that rule, so it can win; but only when that shadows no rule behind it (a keyword as broad
 * as that rule's would otherwise silently replace it: then it goes last, and its 診断 says so).
 */
function placement(
  candidate: Rule,
  example: string,
  rules: readonly Rule[],
): { priority: number; before?: Rule } {
  const last = rules.reduce((m, r) => Math.max(m, r.priority), 0);
  const atEnd = { priority: Math.floor(last) + 1 };
  // Amount and 口座 of the example are not kept: judge on description and 入出金 alone.
  const line = prepareLine({
    description: example,
    direction: candidate.direction ?? '',
    amount: Number.NaN,
    account: '',
  });
  const loose = (r: Rule): Rule => ({ ...r, minAmount: null, maxAmount: null, account: null });
  const ordered = [...rules].sort(compareRules);
  const winner = ordered.find((r) => r.enabled && ruleMatches(loose(r), line));
  if (!winner || samePosting(winner, candidate)) return atEnd;
  const lower = ordered.filter((r) => r.priority < winner.priority).map((r) => r.priority);
  const prev = lower.length > 0 ? Math.max(...lower) : winner.priority - 2;
  // A whole number when there is room (10, 20 → 19), else halfway (2, 3 → 2.5).
  const priority = winner.priority - prev >= 2 ? winner.priority - 1 : (prev + winner.priority) / 2;
  const behind = ordered.filter((r) => r.enabled && r.priority > priority);
  if (behind.some((r) => keywordCovers(candidate, r) && conditionsCover(candidate, r))) return atEnd;
  return { priority, before: winner };
}

export interface Adoption {
  table: CandidateTable;
  /** ルール rows to append, in order, as records under RULE_HEADERS. */
  newRules: Record<string, unknown>[];
  messages: string[];
}

/**
 * Turns every ticked, not yet adopted candidate into a ルール row (自動承認 いいえ, 有効 on), unticks
 * it and marks it 採用済み; a candidate that would not be a valid rule is unticked with the reason.
 * `ruleValues` is the ルール sheet as read; new rules go below its last row.
 */
export function planAdoption(
  table: CandidateTable,
  ruleValues: readonly (readonly unknown[])[],
  now: string,
): Adoption {
  const rules = [...parseRules(ruleValues).rules];
  const newRules: Record<string, unknown>[] = [];
  const messages: string[] = [];
  table.rows.forEach((row, i) => {
    if (!ticked(cell(table, row, '採用'))) return;
    setCell(table, row, '採用', false);
    setCell(table, row, '更新日時', now);
    if (cell(table, row, '状態').startsWith(CANDIDATE_STATUS.adopted)) return;
    const rowNumber = ruleValues.length + newRules.length + 1;
    const parsed = parseOne(ruleCells(table, row, 1), rowNumber);
    if ('reason' in parsed) {
      setCell(table, row, '状態', CANDIDATE_MSG.refusedStatus(parsed.reason));
      messages.push(CANDIDATE_MSG.refused(i + 2, parsed.reason));
      return;
    }
    const { priority, before } = placement(parsed.rule, cell(table, row, '摘要の例'), rules);
    const cells = ruleCells(table, row, priority);
    newRules.push(cells);
    rules.push({ ...parsed.rule, priority, rowNumber });
    setCell(table, row, '状態', CANDIDATE_MSG.adoptedStatus(rowNumber, priority));
    messages.push(
      CANDIDATE_MSG.adopted(String(cells.キーワード), String(cells.勘定科目), rowNumber, priority) +
        (before ? CANDIDATE_MSG.placedBefore(before) : ''),
    );
  });
  return { table, newRules, messages };
}

/** True when any candidate is ticked: lets a run skip reading ルール when nobody adopted anything. */
export function anyTicked(table: CandidateTable): boolean {
  return table.rows.some((row) => ticked(cell(table, row, '採用')));
}
