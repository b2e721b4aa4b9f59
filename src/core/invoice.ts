/**
 * インボイス区分 (issue 27): whether a purchase's seller is a registered invoice issuer, and what MF's
 * `invoice_kind` a journal carries for it. People and rules say whether the seller is registered (the
 * 台帳's インボイス column: 適格 / 非適格 / 対象外 / 未判定); kicho derives the credit from 取引日. Pure.
 *
 * Sources (README 「インボイス区分」 has them in full):
 * - Transitional credit for purchases from unregistered sellers (消費税法 平成28年改正法附則 52条・53条 as
 *   amended by the 令和8年度税制改正): 80 % to 2026-09-30, 70 % to 2028-09-30, 50 % to 2030-09-30, 30 % to
 *   2031-09-30, then none. The NTA's own text is not in our stored material; the dates agree across
 *   nichizei-journal.com (2026-01-26, 令和8年度税制改正大綱), yamada-partners.jp (r8 c01-1), freee's API notice
 *   (developer.freee.co.jp/accounting/accounting-improvement/8133: 控70/控30 tax codes, 2026-07) and htaken/kadobo
 *   (citing the NTA's 2026-04 pamphlet).
 * - MF's write enum: NOT_TARGET, QUALIFIED, UNQUALIFIED_80 (mf-openapi.ja.yaml, POST /journals branches and
 *   POST /transactions/journalize). MF's own MCP server declares UNQUALIFIED_70 and UNQUALIFIED_30 too
 *   (totto2727-org/open-connector src/providers/moneyforward_mcp/actions.ts). Which the office's MF takes is
 *   learnt (本番前チェック and each send: core/mf-behaviour.ts), never assumed.
 * - Left out, MF records QUALIFIED for a taxable tax category (a receipt app's live field table, 2026-05-23;
 *   MF's 仕訳帳 import guide as quoted by the-board.jp): so a purchase never goes out without its 区分 unless
 *   a person chose that (設定 インボイス未判定の扱い).
 */
import type { LedgerRecord } from './ledger';
import { type Masters, TAX_METHOD_LABELS } from './masters';
import { normalizeText } from './text';

export const INVOICE_HEADER = 'インボイス';

/** What the 台帳's インボイス column holds. */
export const INVOICE_CELLS = ['適格', '非適格', '対象外', '未判定'] as const;
export type InvoiceCell = (typeof INVOICE_CELLS)[number];

/**
 * What a rule, the 取引先インボイス sheet or the AI may say. 帳簿のみ: a purchase the law credits in full with
 * the books alone (消費税法施行令 49条1項1号, 施行規則 15条の4: 3万円未満の公共交通機関, 自動販売機, ポストに
 * 差し出す郵便, 回収される入場券 …); it is written to the 台帳 as 適格 with that reason.
 */
export type InvoiceSay = InvoiceCell | '帳簿のみ';

export type InvoiceKind =
  | 'INVOICE_KIND_NOT_TARGET'
  | 'INVOICE_KIND_QUALIFIED'
  | 'INVOICE_KIND_UNQUALIFIED_80'
  | 'INVOICE_KIND_UNQUALIFIED_70'
  | 'INVOICE_KIND_UNQUALIFIED_50'
  | 'INVOICE_KIND_UNQUALIFIED_30';

/** The write enum of MF's published document. */
export const DOCUMENT_WRITE_KINDS: readonly InvoiceKind[] = [
  'INVOICE_KIND_NOT_TARGET',
  'INVOICE_KIND_QUALIFIED',
  'INVOICE_KIND_UNQUALIFIED_80',
];

/** The day the invoice system began (適格請求書等保存方式, 2023-10-01). */
export const INVOICE_START = '2023-10-01';

export interface CreditStep {
  from: string;
  to: string;
  percent: 80 | 70 | 50 | 30;
  kind: InvoiceKind;
}

/** The transitional credit for purchases from unregistered sellers, by 取引日 (sources above). */
export const CREDIT_STEPS: readonly CreditStep[] = [
  { from: '2023-10-01', to: '2026-09-30', percent: 80, kind: 'INVOICE_KIND_UNQUALIFIED_80' },
  { from: '2026-10-01', to: '2028-09-30', percent: 70, kind: 'INVOICE_KIND_UNQUALIFIED_70' },
  { from: '2028-10-01', to: '2030-09-30', percent: 50, kind: 'INVOICE_KIND_UNQUALIFIED_50' },
  { from: '2030-10-01', to: '2031-09-30', percent: 30, kind: 'INVOICE_KIND_UNQUALIFIED_30' },
];

/** The step a 非適格 purchase of `date` falls in; 'before' the system, or 'after' the last step (no credit). */
export function creditStep(date: string): CreditStep | 'before' | 'after' {
  if (date < INVOICE_START) return 'before';
  return CREDIT_STEPS.find((s) => s.from <= date && date <= s.to) ?? 'after';
}

/** How MF's screen and a bookkeeper name each kind. */
export function kindLabel(kind: InvoiceKind): string {
  switch (kind) {
    case 'INVOICE_KIND_NOT_TARGET':
      return '対象外';
    case 'INVOICE_KIND_QUALIFIED':
      return '適格';
    default:
      return `${kind.replace('INVOICE_KIND_UNQUALIFIED_', '')}%控除`;
  }
}

/** 少額特例 (平成28年改正法附則 53条の2): purchases under 1万円 (税込) until 2029-09-30. */
export const SMALL_AMOUNT_LIMIT = 10_000;
export const SMALL_AMOUNT_UNTIL = '2029-09-30';

// The 台帳 cell and what rules and people type

/** A cell or rule value as one of the words, or null when it is none of them ('' is ''). */
export function readInvoiceSay(text: string): InvoiceSay | '' | null {
  const t = normalizeText(text).replace(/\s/g, '');
  if (t === '') return '';
  if (t === '帳簿のみ' || t === '帳簿のみ保存') return '帳簿のみ';
  return (INVOICE_CELLS as readonly string[]).includes(t) ? (t as InvoiceCell) : null;
}

// Registration numbers (適格請求書発行事業者登録番号)

/**
 * The check digit of a 13-digit number: 9 − (Σ Pn × Qn mod 9), Pn the n-th digit of the 12-digit base
 * counted from the right, Qn 1 for odd n and 2 for even n (国税庁 法人番号 「チェックディジットの計算」,
 * houjin-bangou.nta.go.jp/documents/checkdigit.pdf; implemented the same in tychy/houjin-number-util
 * houjin/houjin.go). A registration number is T + 13 digits: a company's 法人番号, or for others a number
 * the NTA gives in the same form (MF's business guide biz.moneyforward.com/invoice/basic/60823/).
 */
export function checkDigit(base12: string): number {
  let sum = 0;
  for (let n = 1; n <= 12; n++) {
    const digit = Number(base12[12 - n]);
    sum += digit * (n % 2 === 1 ? 1 : 2);
  }
  return 9 - (sum % 9);
}

export type RegistrationCheck = { ok: true; number: string } | { ok: false; problem: string };

/** T + 13 digits with a matching check digit (全角 and spaces and hyphens are forgiven). */
export function checkRegistrationNumber(text: string): RegistrationCheck {
  const t = text.normalize('NFKC').replace(/[\s-]/g, '').toUpperCase();
  if (!/^T\d{13}$/.test(t))
    return {
      ok: false,
      problem: `登録番号「${text}」は T と 13 桁の数字の形ではありません（例: T1234567890123）。`,
    };
  if (checkDigit(t.slice(2)) !== Number(t[1]))
    return {
      ok: false,
      problem: `登録番号「${text}」は数字の並びが正しくありません（先頭の検査用数字が合いません）。請求書の番号を確かめてください。`,
    };
  return { ok: true, number: t };
}

// Which rows carry a 区分

/** MF tax names of taxable purchases (課税仕入, 課対仕入, 共通課税仕入 …), returns and imports aside. */
const PURCHASE_TAX =
  /^(課税仕入|課仕|課対仕入|課税対応仕入|非課対仕入|非課税対応仕入|共対仕入|共通課税仕入|共通対応仕入|共課仕|共通仕入)/;
const NOT_A_CREDIT = /返還|仕返|輸入|輸仕|特定/;

export type PurchaseKind =
  | { kind: 'purchase'; taxName: string }
  | { kind: 'not-purchase' }
  /** 出金 with no 税区分 and no known default tax of its account: treated as a purchase until known. */
  | { kind: 'unknown' };

/** The tax MF will use: the row's 税区分, else the sub-account's or account's default (as MF applies it). */
function effectiveTax(record: Pick<LedgerRecord, '勘定科目' | '補助科目' | '税区分'>, masters: Masters) {
  const named = record.税区分.trim();
  if (named !== '') return named;
  const same = (a: string, b: string) => normalizeText(a) === normalizeText(b);
  const account = masters.accounts.find((a) => same(a.name, record.勘定科目));
  if (!account) return null;
  const sub =
    record.補助科目.trim() === ''
      ? undefined
      : account.subAccounts.find((s) => same(s.name, record.補助科目));
  const taxId = sub?.taxId ?? account.taxId;
  if (taxId === undefined) return null;
  if (taxId === null) return '';
  return masters.taxes.find((t) => t.id === taxId)?.name ?? null;
}

/** Whether a row's journal is a taxable purchase (the only rows whose 区分 changes the tax). */
export function purchaseKind(
  record: Pick<LedgerRecord, '入出金' | '勘定科目' | '補助科目' | '税区分'>,
  masters: Masters,
): PurchaseKind {
  // A 入金 is a sale, a receivable collected or a refund: no invoice_kind (MF refuses it on the credit side).
  if (normalizeText(record.入出金) !== '出金') return { kind: 'not-purchase' };
  const tax = effectiveTax(record, masters);
  if (tax === null) return { kind: 'unknown' };
  const t = normalizeText(tax).replace(/\s/g, '');
  return PURCHASE_TAX.test(t) && !NOT_A_CREDIT.test(t)
    ? { kind: 'purchase', taxName: tax }
    : { kind: 'not-purchase' };
}

// Offices for which the 区分 does not matter

/** 設定 消費税の特例: the two 特例 MF cannot tell (chosen when the return is filed). */
export const SPECIAL_RULES = ['なし', '2割特例', '3割特例'] as const;
export type SpecialRule = (typeof SPECIAL_RULES)[number];

/** 2割特例: 課税期間 containing 2026-09-30 at the latest (平成28年改正法附則 51条の2, as issued). */
const TWENTY_PERCENT_LAST_DAY = '2026-09-30';
/** 3割特例 (令和8年度税制改正): individuals' 2027 and 2028 (yamada-partners.jp r8 c01-1). */
const THIRTY_PERCENT = { from: '2027-01-01', to: '2028-12-31' };

/** Why the 区分 of a purchase on `date` changes nothing for this office, or null when it matters. */
export function notNeededReason(date: string, masters: Masters, special: SpecialRule): string | null {
  const term = (masters.taxMethods ?? []).find((t) => t.start <= date && date <= t.end);
  if (term?.method === 'FREE' || term?.method === 'SIMPLE')
    return `この事業者は${TAX_METHOD_LABELS[term.method]}のため（MF の会計年度設定）`;
  if (special === '2割特例') {
    // The period containing the date must begin on or before 2026-09-30 (it then contains it, or ends before).
    const period = (masters.periods ?? []).find((p) => p.start <= date && date <= p.end);
    const begins = period ? period.start : date;
    if (date >= INVOICE_START && begins <= TWENTY_PERCENT_LAST_DAY)
      return '設定「消費税の特例」が 2割特例 のため';
  }
  if (special === '3割特例' && THIRTY_PERCENT.from <= date && date <= THIRTY_PERCENT.to)
    return '設定「消費税の特例」が 3割特例 のため';
  return null;
}

// What a journal carries

/** What MF was seen to do with each kind kicho sent (KICHO_MF_BEHAVIOUR invoiceKinds). */
export type KindsSeen = Partial<Record<InvoiceKind, { seen: 'accepted' | 'refused'; at: string }>>;

export interface InvoicePolicy {
  /** 設定 インボイス未判定の扱い: 保留 (default) keeps 未判定 purchases from being sent. */
  holdUndecided: boolean;
  special: SpecialRule;
  seen: KindsSeen;
}

export const DEFAULT_INVOICE_POLICY: InvoicePolicy = { holdUndecided: true, special: 'なし', seen: {} };

export type InvoiceSend =
  /** Nothing sent: not a purchase, before the system, or the office does not need it. */
  | { kind: 'omit'; reason: string }
  /** A 未判定 purchase sent without a 区分 because a person chose so: MF records it as 適格. */
  | { kind: 'omit-undecided'; note: string }
  | { kind: 'send'; invoiceKind: InvoiceKind; label: string }
  /** Not sent: a person must decide (→ 要確認). */
  | { kind: 'hold'; problem: string }
  /** Not sent: MF was seen refusing the kind this journal needs (→ 失敗). */
  | { kind: 'refused'; problem: string };

/** The kinds MF shows stored, as a bookkeeper names them (the counter side's 対象外 left out). */
function storedLabels(stored: readonly string[]): string {
  const known = (k: string): k is InvoiceKind => /^INVOICE_KIND_/.test(k);
  const kinds = [...new Set(stored)];
  const shown = kinds.length > 1 ? kinds.filter((k) => k !== 'INVOICE_KIND_NOT_TARGET') : kinds;
  return shown.map((k) => (known(k) ? `「${kindLabel(k)}」（${k}）` : k)).join('・');
}

export const INVOICE_MSG = {
  undecided:
    'インボイス区分が未判定です。インボイス欄で、売り手が登録事業者（請求書に T で始まる登録番号がある）なら「適格」、そうでなければ「非適格」を選んでから「承認」を選んでください（インボイス欄がなければ、メニュー「初期設定」で追加されます）。',
  invalidCell: (value: string) =>
    `インボイス欄の「${value}」は使えません。適格・非適格・対象外・未判定 のどれかを選んでください。`,
  notTargetOnPurchase: (tax: string) =>
    `税区分「${tax}」は課税仕入のため、インボイス欄は「適格」か「非適格」です（「対象外」は税区分が対象外・非課税のときだけ使います）。`,
  afterTransition: (date: string) =>
    `取引日 ${date} は免税事業者等からの仕入れの経過措置（2031-09-30 まで）が終わった後のため、非適格の仕入れは仕入税額控除ができません。税区分を「対象外」などに直すか、売り手が登録事業者なら「適格」を選んでください。`,
  unknownTax:
    '税区分が空で、勘定科目の既定の税区分がマスタにないため、インボイス区分が必要か決められません。税区分を入力するか、メニュー「初期設定」でマスタを取り直してください。',
  sentUndecided:
    'インボイス区分が未判定のまま登録しました（設定「インボイス未判定の扱い」が「送信」のため。MF では「適格」として記録されます）。MF で確かめてください。',
  refused: (kind: InvoiceKind, date: string, at: string) =>
    `取引日 ${date} の非適格の仕入れは「${kindLabel(kind)}」（${kind}）で登録する必要がありますが、この MF はこの区分を受け付けませんでした（${at} に確認）。80% や「適格」で登録すると税額が正しくなくなるため、送信していません。MF の画面でこの仕訳を登録してから、この行は「除外」を選んでください。MF が対応したら、本番前チェックをもう一度実行してから「再試行」を選んでください。`,
  storedOther: (sent: InvoiceKind, stored: readonly string[]) =>
    `MF は仕訳を登録しましたが、送ったインボイス区分「${kindLabel(sent)}」（${sent}）ではなく ${storedLabels(stored)} として記録しました。MF の画面でこの仕訳のインボイス区分を「${kindLabel(sent)}」に直してください。この区分の行は、以後送信せずに「失敗」にします。`,
  refusedOnSend: (kind: InvoiceKind) =>
    `送ったインボイス区分「${kindLabel(kind)}」（${kind}）は MF の公開仕様にない値で、MF が受け付けなかった可能性があります。80% や「適格」に変えて送ることはしません。`,
} as const;

/**
 * The invoice_kind a row's journal carries, or why it is not sent. The same function decides for the send
 * (services/mf-sender.ts) and the dry run, so the dry run shows exactly what posting does.
 */
export function invoiceForSend(record: LedgerRecord, masters: Masters, policy: InvoicePolicy): InvoiceSend {
  const purchase = purchaseKind(record, masters);
  if (purchase.kind === 'not-purchase')
    return { kind: 'omit', reason: 'インボイスの対象外（課税仕入ではありません）' };
  const date = record.取引日;
  if (date < INVOICE_START) return { kind: 'omit', reason: 'インボイス制度の開始前' };
  const notNeeded = notNeededReason(date, masters, policy.special);
  if (notNeeded) return { kind: 'omit', reason: `インボイス区分は不要（${notNeeded}）` };
  if (purchase.kind === 'unknown') return { kind: 'hold', problem: INVOICE_MSG.unknownTax };
  const said = readInvoiceSay(String(record.インボイス));
  if (said === null) return { kind: 'hold', problem: INVOICE_MSG.invalidCell(String(record.インボイス)) };
  if (said === '' || said === '未判定') {
    if (policy.holdUndecided) return { kind: 'hold', problem: INVOICE_MSG.undecided };
    return { kind: 'omit-undecided', note: INVOICE_MSG.sentUndecided };
  }
  if (said === '対象外') return { kind: 'hold', problem: INVOICE_MSG.notTargetOnPurchase(purchase.taxName) };
  if (said === '適格' || said === '帳簿のみ')
    return { kind: 'send', invoiceKind: 'INVOICE_KIND_QUALIFIED', label: '適格' };
  const step = creditStep(date);
  if (step === 'before' || step === 'after')
    return { kind: 'hold', problem: INVOICE_MSG.afterTransition(date) };
  const seen = policy.seen[step.kind];
  if (seen?.seen === 'refused')
    return { kind: 'refused', problem: INVOICE_MSG.refused(step.kind, date, seen.at) };
  return { kind: 'send', invoiceKind: step.kind, label: `非適格（${step.percent}%控除）` };
}

/** Whether a kind is outside the document's write enum (a refusal may be about it). */
export function isUndocumentedWrite(kind: InvoiceKind): boolean {
  return !DOCUMENT_WRITE_KINDS.includes(kind);
}

/** KICHO_INVOICE_KINDS as stored: what MF did with each kind; anything unreadable is nothing known. */
export function parseKindsSeen(raw: string | null): KindsSeen {
  if (!raw) return {};
  try {
    const value = JSON.parse(raw) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    const out: KindsSeen = {};
    for (const [kind, entry] of Object.entries(value as Record<string, unknown>)) {
      const e = entry as { seen?: unknown; at?: unknown } | null;
      if (!/^INVOICE_KIND_[A-Z0-9_]+$/.test(kind) || !e || typeof e.at !== 'string') continue;
      if (e.seen === 'accepted' || e.seen === 'refused')
        out[kind as InvoiceKind] = { seen: e.seen, at: e.at };
    }
    return out;
  } catch (_e) {
    return {};
  }
}

/** The 区分 policy of a run: its 設定 and what MF was seen taking. */
export function invoicePolicy(
  settings: { holdUndecidedInvoice: boolean; specialRule: SpecialRule },
  seen: KindsSeen,
): InvoicePolicy {
  return { holdUndecided: settings.holdUndecidedInvoice, special: settings.specialRule, seen };
}
