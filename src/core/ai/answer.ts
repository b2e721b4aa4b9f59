/**
 * Validation of an AI answer and the row's decision. Whatever the model returns, only names that
 * exist in マスタ reach a people column, and a row becomes 送信待ち only when everything is valid,
 * the confidence reaches the threshold and 設定 AI自動承認 is オン. Extra fields are ignored.
 */
import { dataProblems } from '../classify';
import type { LedgerRecord } from '../ledger';
import type { MasterAccount, Masters } from '../masters';
import { normalizeText } from '../text';

export interface AiPolicy {
  model: string;
  threshold: number;
  autoApprove: boolean;
}

/** Model text shown on the sheet is one short line: a reason is a sentence, not an essay. */
const MAX_REASON = 120;
const MAX_SUGGESTION = 40;

export const AI_MSG = {
  review: (model: string) =>
    `AI（${model}）が判定しました。自動承認ではないため、内容を確かめて「承認」を選んでください。`,
  lowConfidence: (confidence: number, threshold: number) =>
    `AIの信頼度 ${confidence} がしきい値 ${threshold} より低いため、確認が必要です。勘定科目を確かめて「承認」を選んでください。`,
  unreadable: (why: string) =>
    `AIの回答を読めませんでした（${why}）。勘定科目を入力して「承認」を選んでください。`,
  noAccount: 'AIは当てはまる勘定科目を選べませんでした。勘定科目を入力して「承認」を選んでください。',
  unknownName: (field: string, name: string) =>
    `AIが提案した${field}「${name}」はマスタにないため、入力していません。`,
  missing: (fields: string) => `AIの回答に ${fields} がありませんでした。`,
} as const;

/** One line, short, so a sheet cell stays readable. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function same(a: string, b: string): boolean {
  return normalizeText(a) === normalizeText(b);
}

function field(answer: Record<string, unknown>, name: string): string | undefined {
  const v = answer[name];
  return typeof v === 'string' ? v.trim() : undefined;
}

interface Checked {
  names: Partial<Pick<LedgerRecord, '勘定科目' | '補助科目' | '税区分' | '取引先'>>;
  problems: string[];
  accountChosen: boolean;
}

/** Each suggested name, checked on its own: valid names are kept (as spelled in マスタ), others reported. */
function checkNames(answer: Record<string, unknown>, masters: Masters): Checked {
  const out: Checked = { names: {}, problems: [], accountChosen: false };
  const unknown = (label: string, name: string) =>
    out.problems.push(AI_MSG.unknownName(label, oneLine(name, MAX_SUGGESTION)));
  const accountName = field(answer, 'account') ?? '';
  let account: MasterAccount | undefined;
  if (accountName !== '') {
    out.accountChosen = true;
    account = masters.accounts.find((a) => a.available && same(a.name, accountName));
    if (account) out.names.勘定科目 = account.name;
    else unknown('勘定科目', accountName);
  }
  const subName = field(answer, 'sub_account') ?? '';
  if (subName !== '') {
    const sub = account?.subAccounts.find((s) => same(s.name, subName));
    if (sub) out.names.補助科目 = sub.name;
    else unknown('補助科目', subName);
  }
  const taxName = field(answer, 'tax') ?? '';
  if (taxName !== '') {
    const tax = masters.taxes.find((t) => t.available && same(t.name, taxName));
    if (tax) out.names.税区分 = tax.name;
    else unknown('税区分', taxName);
  }
  const partnerName = field(answer, 'partner') ?? '';
  if (partnerName !== '') {
    const partner = masters.partners.find((p) => p.available && same(p.name, partnerName));
    if (partner) out.names.取引先 = partner.name;
    else unknown('取引先', partnerName);
  }
  return out;
}

function confidenceOf(answer: Record<string, unknown>): number | undefined {
  const c = answer.confidence;
  return typeof c === 'number' && Number.isFinite(c) && c >= 0 && c <= 1 ? c : undefined;
}

/** Two decimals: what a person needs to compare with the threshold. */
function shown(confidence: number): number {
  return Math.round(confidence * 100) / 100;
}

/** A 2xx without a usable answer (refusal, safety block, cut off): answered, so 要確認. */
export function decideUnreadable(model: string, why: string): Partial<LedgerRecord> {
  return { 状態: '要確認', 判定元: `AI:${model}`, 判定根拠: 'AI: 回答なし', メモ: AI_MSG.unreadable(why) };
}

/**
 * The patch for a row the model answered (any answer, even unusable: the row leaves 未判定 and is
 * never judged again). People columns are set only to names found in マスタ.
 */
export function decideFromAnswer(
  record: LedgerRecord,
  value: unknown,
  masters: Masters,
  policy: AiPolicy,
): Partial<LedgerRecord> {
  const source = `AI:${policy.model}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return decideUnreadable(
      policy.model,
      typeof value === 'string' ? 'JSON ではありませんでした' : '形式が違いました',
    );
  }
  const answer = value as Record<string, unknown>;
  const checked = checkNames(answer, masters);
  const confidence = confidenceOf(answer);
  const reasonText = field(answer, 'reason');
  const missing = [
    ...(answer.account === undefined ? ['勘定科目'] : []),
    ...(confidence === undefined ? ['信頼度（0〜1 の数）'] : []),
    ...(reasonText === undefined || reasonText === '' ? ['理由'] : []),
  ];
  const problems = [...checked.problems];
  if (missing.length > 0) problems.push(AI_MSG.missing(missing.join('・')));
  else if (!checked.accountChosen) problems.push(AI_MSG.noAccount);
  problems.push(...dataProblems(record, masters));

  const reason = oneLine(reasonText ?? '', MAX_REASON);
  const basis = `AI ${confidence === undefined ? '?' : shown(confidence)}: ${reason || '（理由なし）'}`;
  const low = confidence !== undefined && confidence < policy.threshold;
  const approved = problems.length === 0 && !low && policy.autoApprove;
  let memo = '';
  if (problems.length > 0) memo = problems.join(' ');
  else if (low) memo = AI_MSG.lowConfidence(shown(confidence), policy.threshold);
  else if (!approved) memo = AI_MSG.review(policy.model);
  return {
    ...checked.names,
    状態: approved ? '送信待ち' : '要確認',
    判定元: source,
    判定根拠: basis,
    メモ: memo,
  };
}
