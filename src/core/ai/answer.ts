/**
 * Validation of an AI answer and the row's decision. Whatever the model returns, only names that
 * exist in マスタ reach a people column, and a row becomes 送信待ち only when everything is valid,
 * the confidence reaches the threshold and 設定 AI自動承認 is オン. Extra fields are ignored.
 */
import { CLASSIFY_MSG, dataProblems, type InvoiceJudging, invoicePatch } from '../classify';
import type { InvoiceSay } from '../invoice';
import type { LedgerRecord } from '../ledger';
import type { MasterAccount, Masters } from '../masters';
import { checkMove } from '../states';
import { normalizeText } from '../text';
import type { AiReply } from './providers';

export interface AiPolicy {
  model: string;
  threshold: number;
  autoApprove: boolean;
  /** インボイス区分 at 判定 (issue 27); absent: the column is left as it is. */
  invoice?: InvoiceJudging;
}

/** The AI's インボイス answer as a 区分 it may say ('' for 不明 or anything else: never a guess of ours). */
function invoiceSay(answer: Record<string, unknown>): InvoiceSay | '' {
  const v = typeof answer.invoice === 'string' ? answer.invoice.normalize('NFKC').trim() : '';
  return v === '適格' || v === '非適格' || v === '帳簿のみ' ? v : '';
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
  // インボイス区分: the AI's answer comes after the rule's (none here) and the MF 取引先's (issue 27).
  const inv = invoicePatch(record, { ...checked.names, 判定根拠: basis }, policy.invoice, {
    ai: {
      say: invoiceSay(answer),
      source: 'AI',
      reason: oneLine(field(answer, 'invoice_reason') ?? '', MAX_REASON) || '（理由なし）',
    },
  });
  problems.push(...inv.notes);
  // The AI step looks numbers up as it goes (services/nta-lookup.ts): a number still not asked is not 適格.
  if (inv.pending) problems.push(CLASSIFY_MSG.invoiceUndecided);
  if (inv.held) problems.push(CLASSIFY_MSG.invoiceUndecided);
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
    ...inv.patch,
  };
}

/** What a person reads about an AI 判定 run (ログ and the run's messages). */
export const AI_RUN_MSG = {
  noKey: (provider: string) =>
    `設定「AI判定」は ${provider} ですが、スクリプトプロパティ AI_API_KEY がありません。ルールに当てはまらない明細は要確認にしました。`,
  perRunCap: (left: number, cap: number) =>
    `AI1回の上限（${cap} 件）を超えた ${left} 件は未判定のまま、次回の実行で判定します。`,
  dailyCap: (left: number, cap: number) =>
    `本日のAI判定が上限（AI1日の上限 ${cap} 件）に達したため、${left} 件は未判定のままです（翌日以降に判定します）。`,
  later: (why: string) => `AI判定はまだです（${why}）。次回の実行で判定します。`,
  rateLimited: 'AIの提供元から「混雑しています（429）」と返されました',
  unavailable: (status: number) => `AIの提供元が一時的に応答できません（${status}）`,
  timeout: 'AIの応答がタイムアウトしました',
  network: (message: string) => `AIの提供元に接続できませんでした: ${message}`,
  refused: (status: number, message: string) =>
    status === 401 || status === 403
      ? `AIの提供元が認証エラー（${status}）を返しました。スクリプトプロパティ AI_API_KEY を確かめてください${message ? `: ${message}` : ''}`
      : status === 404
        ? `AIの提供元がモデルまたは URL を見つけられません（404）。AI_MODEL・AI_BASE_URL を確かめてください${message ? `: ${message}` : ''}`
        : `AIの提供元が要求を受け付けませんでした（${status}）${message ? `: ${message}` : ''}`,
  stoppedEarly: 'この実行ではAIへの問い合わせを止めました',
  timeBudget: '実行時間の上限が近いため',
  summary: (provider: string, model: string, answered: number, approved: number, review: number) =>
    `AI判定（${provider}・${model}）: ${answered} 件に回答がありました（送信待ち ${approved} 件、要確認 ${review} 件）。`,
  notYet: (n: number, why: string) => `${n} 件は未判定のままです（${why}）。次回の実行で判定します。`,
  personWon: (n: number) => `AIの回答待ちの間に人が変更した ${n} 件には、AIの結果を書き込んでいません。`,
  lockLost:
    'AIの結果を書き込む前に別の実行がロックを持っていたため、結果は書き込んでいません（次回判定し直します）。',
} as const;

/** What one provider reply means for its row: judged now, or not yet (and whether to stop asking). */
export type AiOutcome =
  | { kind: 'judged'; patch: Partial<LedgerRecord> }
  | { kind: 'not-yet'; why: string; stop: boolean; burst: boolean };

export function outcomeOf(
  reply: AiReply,
  claimed: LedgerRecord,
  masters: Masters,
  policy: AiPolicy,
): AiOutcome {
  switch (reply.kind) {
    case 'answer':
      return {
        kind: 'judged',
        patch: checkMove(claimed.状態, decideFromAnswer(claimed, reply.value, masters, policy), 'AI 判定'),
      };
    case 'malformed':
      return {
        kind: 'judged',
        patch: checkMove(claimed.状態, decideUnreadable(policy.model, reply.reason), 'AI 判定 unreadable'),
      };
    case 'rate-limited':
      return { kind: 'not-yet', why: AI_RUN_MSG.rateLimited, stop: true, burst: false };
    case 'unavailable':
      return { kind: 'not-yet', why: AI_RUN_MSG.unavailable(reply.status), stop: false, burst: true };
    case 'refused':
      // Every request would be refused the same way (key, model, account): stop at the first.
      return {
        kind: 'not-yet',
        why: AI_RUN_MSG.refused(reply.status, reply.message.slice(0, 200)),
        stop: true,
        burst: false,
      };
  }
}
