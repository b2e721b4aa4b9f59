/**
 * Deposits meet receivables: a 入金 line whose payer is a 取引先 with an open invoice of that amount
 * (or short by at most 振込手数料上限) is suggested as 売掛金 for that 取引先. Banks spell payers in
 * half-width kana with abbreviated 法人格 (ﾌﾘｺﾐ ｶ)ﾔﾏﾀﾞｼｮｳｼﾞ), so names are compared in one folded kana
 * form, against both the 取引先 name and its reading (MF search_key). Two possible invoices are shown,
 * never guessed. Pure.
 */
import { enlargeSmallKana } from './kana';
import type { LedgerRow, RowChange } from './ledger';
import { checkMove } from './states';
import { normalizeText } from './text';

export interface OpenReceivable {
  partner: string;
  date: string;
  balance: number;
}

export interface PartnerName {
  name: string;
  reading?: string;
}

export type DepositMatch =
  | { kind: 'one'; item: OpenReceivable; shortfall: number }
  | { kind: 'ambiguous'; items: OpenReceivable[] };

/** Transfer prefixes banks put before the payer. */
const PREFIXES = /^(?:振込み?|フリコミ|入金|振替)\s*/;

/**
 * 法人格 in the forms banks and people write them: 株式会社 / ｶﾌﾞｼｷｶﾞｲｼｬ / カ) / (カ, and the same for
 * 有限 (ユ), 合同 (ド), 合名 (メ), 合資 (シ), 一般社団法人 (シヤ), etc. Removed wherever they stand.
 */
const LEGAL_FORMS = [
  /株式会社|\(株\)|㈱/g,
  /有限会社|\(有\)|㈲/g,
  /合同会社|合名会社|合資会社/g,
  /一般社団法人|一般財団法人|特定非営利活動法人|医療法人|社会福祉法人|学校法人/g,
  /カブシキガイシヤ|ユウゲンガイシヤ|ゴウドウガイシヤ|ゴウメイガイシヤ|ゴウシガイシヤ/g,
  // Abbreviations next to a bracket: カ) (カ ユ) (ユ ド) (ド メ) シ) シヤ) ザイ) イ)
  /(?:シヤ|ザイ|カ|ユ|ド|メ|シ|イ|トク)\)|\((?:シヤ|ザイ|カ|ユ|ド|メ|シ|イ|トク)/g,
];

function toKatakana(text: string): string {
  return text.replace(/[\u3041-\u3096]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60));
}

/**
 * One form for comparing a payer with a 取引先: NFKC (half-width kana to full), hiragana to katakana,
 * small kana to large (bank kana has none), 法人格 and the transfer prefix removed, then spaces,
 * brackets, dots and long-vowel marks dropped.
 */
export function payerForm(text: string): string {
  let t = toKatakana(normalizeText(text)).replace(/[（]/g, '(').replace(/[）]/g, ')');
  t = enlargeSmallKana(t);
  t = t.replace(PREFIXES, '');
  for (const form of LEGAL_FORMS) t = t.replace(form, ' ');
  return t.replace(/[\s()「」[\]【】.,、。・ー\-－―]/g, '');
}

/** Bank kana is cut at a fixed width; a cut payer still names the 取引先 if enough is left. */
const MIN_TRUNCATED = 6;

function sameName(payer: string, partner: string): boolean {
  if (payer === '' || partner === '') return false;
  if (payer === partner) return true;
  return payer.length >= MIN_TRUNCATED && partner.startsWith(payer);
}

/** The 取引先 names a deposit's description may be from. */
export function payerPartners(description: string, partners: readonly PartnerName[]): string[] {
  const payer = payerForm(description);
  return partners
    .filter((p) => sameName(payer, payerForm(p.name)) || sameName(payer, payerForm(p.reading ?? '')))
    .map((p) => p.name);
}

/**
 * The open invoice a deposit settles: the payer names its 取引先, and the amount equals the balance or
 * falls short of it by at most `feeTolerance`. Null when nothing fits.
 */
export function matchDeposit(
  description: string,
  amount: number,
  open: readonly OpenReceivable[],
  partners: readonly PartnerName[],
  feeTolerance: number,
): DepositMatch | null {
  const names = new Set(payerPartners(description, partners));
  if (names.size === 0) return null;
  const items = open.filter(
    (i) => names.has(i.partner) && i.balance > 0 && amount <= i.balance && i.balance - amount <= feeTolerance,
  );
  if (items.length === 0) return null;
  if (items.length === 1) return { kind: 'one', item: items[0], shortfall: items[0].balance - amount };
  return { kind: 'ambiguous', items };
}

export const DEPOSIT_SOURCE = '売掛金照合';

const yen = (n: number) => `${n.toLocaleString('ja-JP')}円`;

export const DEPOSIT_MSG = {
  one: (i: OpenReceivable, shortfall: number) =>
    `${i.partner} の ${i.date} 発生の売掛金（残高 ${yen(i.balance)}）の入金と見られます` +
    (shortfall > 0 ? `（差額 ${yen(shortfall)} は振込手数料と見られます）。` : '。'),
  ambiguous: (items: readonly OpenReceivable[]) =>
    `売掛金の候補が ${items.length} 件あり、どれの入金か決められません: ${items
      .map((i) => `${i.partner} ${i.date} 残高 ${yen(i.balance)}`)
      .join(' / ')}。`,
  review: '売掛金チェックの結果から提案しました。内容を確かめて「承認」を選んでください。',
  reviewAmbiguous:
    '同じ金額の売掛金が複数あるため、どの請求の入金かは決めていません。MFで消し込む請求を確かめてから「承認」を選んでください。',
} as const;

export interface DepositSuggestionInput {
  /** Rows after this run's rule decisions. */
  rows: readonly LedgerRow[];
  /** Keys this run sent to 要確認 because no rule matched, or left 未判定 for the AI. */
  unmatchedKeys: ReadonlySet<string>;
  /** Keys a rule sent to 要確認 as 売掛金 without a 取引先: the match adds who paid and which invoice. */
  enrichKeys?: ReadonlySet<string>;
  open: readonly OpenReceivable[];
  partners: readonly PartnerName[];
  receivableAccount: string;
  feeTolerance: number;
  now: string;
}

/**
 * Suggestions for the 入金 rows no rule decided: 勘定科目 = 売掛金科目 and the 取引先, always 要確認 (a
 * rule with 自動承認 has already decided its rows and is never overridden). An invoice suggested for
 * one deposit is not offered to the next one in the same run.
 */
export function depositSuggestions(input: DepositSuggestionInput): RowChange[] {
  const open = input.open.map((i) => ({ ...i }));
  const changes: RowChange[] = [];
  for (const row of input.rows) {
    const r = row.record;
    const key = r.キー;
    const enrich = input.enrichKeys?.has(key) === true;
    if (!input.unmatchedKeys.has(key) && !enrich) continue;
    if (normalizeText(r.入出金) !== '入金') continue;
    if (!enrich && r.勘定科目.trim() !== '') continue;
    const amount = typeof r.金額 === 'number' ? r.金額 : Number.NaN;
    if (!(amount > 0)) continue;
    const match = matchDeposit(r.摘要, amount, open, input.partners, input.feeTolerance);
    if (!match) continue;
    const partners = new Set(match.kind === 'one' ? [match.item.partner] : match.items.map((i) => i.partner));
    const reason =
      match.kind === 'one'
        ? DEPOSIT_MSG.one(match.item, match.shortfall)
        : DEPOSIT_MSG.ambiguous(match.items);
    const patch: RowChange['patch'] = enrich
      ? // The rule's decision stands; the match only adds who paid and for which invoice.
        {
          判定根拠: `${r.判定根拠} ／ ${reason}`,
          メモ: match.kind === 'one' ? DEPOSIT_MSG.review : DEPOSIT_MSG.reviewAmbiguous,
          更新日時: input.now,
        }
      : {
          状態: '要確認',
          勘定科目: input.receivableAccount,
          判定元: DEPOSIT_SOURCE,
          判定根拠: reason,
          メモ: match.kind === 'one' ? DEPOSIT_MSG.review : DEPOSIT_MSG.reviewAmbiguous,
          更新日時: input.now,
        };
    // Who paid is certain when every candidate is the same 取引先; only which invoice is not.
    if (partners.size === 1) patch.取引先 = [...partners][0];
    if (match.kind === 'one') match.item.balance = 0;
    changes.push({ key, rowNumber: row.rowNumber, patch: checkMove(r.状態, patch, '入金 match') });
  }
  return changes;
}
