/**
 * 取込元 (DESIGN §3): each CSV source names the bank or card side of its journals. A CSV line's
 * journal is one balanced branch between the row's 勘定科目 and this counter account.
 */
import type { LedgerRecord } from '../ledger';
import { type Masters, resolvePosting } from '../masters';
import { normalizeText } from '../text';

export interface CsvSource {
  name: string;
  勘定科目: string;
  補助科目: string;
  /** 「この形式を保存」: the layout kept for this source (saved-layout.ts), '' when none. */
  取込形式?: string;
  /** The sheet row (for messages naming the cell); absent for a source not written yet. */
  row?: number;
}

/** A name not yet listed is added with this account (DESIGN §3). */
export const DEFAULT_SOURCE_ACCOUNT = '普通預金';
/** A new source read with a card layout: the card side of its journals (DESIGN §3: 未払金 / ○○カード). */
export const DEFAULT_CARD_ACCOUNT = '未払金';

/** Records under the headers of rows 2.. of 取込元 (`firstRow` = the sheet row of the first record). */
export function sourcesFromRecords(records: readonly Record<string, unknown>[], firstRow = 2): CsvSource[] {
  const text = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim());
  return records
    .map((r, i) => ({
      name: text(r.名前),
      勘定科目: text(r.勘定科目),
      補助科目: text(r.補助科目),
      取込形式: text(r.取込形式),
      row: firstRow + i,
    }))
    .filter((s) => s.name !== '');
}

export function findSource(sources: readonly CsvSource[], name: string): CsvSource | undefined {
  const wanted = normalizeText(name);
  return sources.find((s) => normalizeText(s.name) === wanted);
}

export function newSource(name: string): CsvSource {
  return { name: name.trim(), 勘定科目: DEFAULT_SOURCE_ACCOUNT, 補助科目: '' };
}

/** A card's name without the note in brackets: 三井住友カード（Vpass） → 三井住友カード. */
function cardCore(name: string): string {
  return normalizeText(name.replace(/[（(].*$/, ''));
}

/**
 * A new source whose file was read with a card layout: the account the office uses for that card in MF
 * (a sub-account named like the card or the source, under 未払金 first), else 未払金 (issue 26).
 */
export function newCardSource(name: string, layoutName: string, masters: Masters): CsvSource {
  const wanted = [cardCore(layoutName), cardCore(name)].filter((w) => w.length >= 2);
  const fits = (sub: string) => {
    const s = normalizeText(sub);
    return wanted.some((w) => s.includes(w) || w.includes(s));
  };
  const accounts = [...masters.accounts].sort(
    (a, b) => Number(b.name === DEFAULT_CARD_ACCOUNT) - Number(a.name === DEFAULT_CARD_ACCOUNT),
  );
  for (const a of accounts) {
    if (!a.available) continue;
    const sub = a.subAccounts.find((s) => s.name.trim() !== '' && fits(s.name));
    if (sub) return { name: name.trim(), 勘定科目: a.name, 補助科目: sub.name };
  }
  return { name: name.trim(), 勘定科目: DEFAULT_CARD_ACCOUNT, 補助科目: '' };
}

/** Checks a source name typed by a person. */
export function sourceNameProblem(name: string): string | null {
  const n = name.trim();
  if (n === '') return '取込元の名前が空です。銀行やカードの名前（例: ○○銀行）を入力してください。';
  if (n.length > 50) return '取込元の名前が長すぎます（50文字まで）。';
  return null;
}

export interface Side {
  account_id: string;
  sub_account_id?: string | null;
  tax_id?: string | null;
  trade_partner_code?: string | null;
  /** インボイス区分 of a purchase (core/invoice.ts); only ever on the debit side. */
  invoice_kind?: string;
  value: number;
}

/** MF limits memo and remark to 200 characters. */
export const MEMO_LIMIT = 200;

/**
 * The POST /journals body for a CSV row: 出金 debits the row's account and credits the source's
 * counter account; 入金 is the reverse. Tax and partner stay on the row's side (the bank side is 対象外).
 */
export function csvJournalRequest(
  record: LedgerRecord,
  source: CsvSource | undefined,
  masters: Masters,
  tag: string,
  /** The purchase's インボイス区分 (core/invoice.ts invoiceForSend), on the expense side of a 出金 only. */
  invoiceKind?: string,
):
  | {
      ok: true;
      request: {
        journal: {
          transaction_date: string;
          journal_type: 'journal_entry';
          tags: string[];
          memo?: string;
          branches: { remark?: string; debitor: Side; creditor: Side }[];
        };
      };
    }
  | { ok: false; problems: string[] } {
  const sourceName = record.口座;
  if (!source)
    return {
      ok: false,
      problems: [
        `取込元「${sourceName}」がシート「取込元」にありません。名前・勘定科目を行に追加してください。`,
      ],
    };
  const row = resolvePosting(masters, {
    勘定科目: record.勘定科目,
    補助科目: record.補助科目,
    税区分: record.税区分,
    取引先: record.取引先,
  });
  const counter = resolvePosting(masters, {
    勘定科目: source.勘定科目,
    補助科目: source.補助科目,
    税区分: '',
    取引先: '',
  });
  const problems = [
    ...(row.ok ? [] : row.problems),
    ...(counter.ok ? [] : counter.problems.map((p) => `取込元「${source.name}」の相手科目: ${p}`)),
  ];
  if (!row.ok || !counter.ok) return { ok: false, problems };
  const value = Number(record.金額);
  if (!Number.isSafeInteger(value) || value <= 0)
    return { ok: false, problems: [`金額「${record.金額}」が正の整数ではありません。`] };
  const r = row.value;
  const rowSide: Side = {
    account_id: r.accountId,
    sub_account_id: r.subAccountId,
    tax_id: r.taxId,
    trade_partner_code: r.partnerCode,
    value,
  };
  const counterSide: Side = {
    account_id: counter.value.accountId,
    sub_account_id: counter.value.subAccountId,
    value,
  };
  // MF counts characters, not UTF-16 units: never cut an emoji's surrogate pair in half.
  const description = Array.from(record.摘要).slice(0, MEMO_LIMIT).join('');
  const expense = record.入出金 !== '入金';
  if (invoiceKind !== undefined && expense) rowSide.invoice_kind = invoiceKind;
  return {
    ok: true,
    request: {
      journal: {
        transaction_date: record.取引日,
        journal_type: 'journal_entry',
        tags: [tag],
        memo: description || undefined,
        branches: [
          {
            remark: description || undefined,
            debitor: expense ? rowSide : counterSide,
            creditor: expense ? counterSide : rowSide,
          },
        ],
      },
    },
  };
}

/**
 * Double counting: a CSV source whose money MF also receives through a connected account would be
 * booked twice (once from MF's feed, once from the CSV). The reliable signal is the ledger account:
 * GET /connected_accounts gives, for each service or its sub-accounts, the account and sub-account MF
 * books that bank's side to (mf-api.md §6); when the source's 勘定科目/補助科目 resolve to the same ids,
 * both feeds post to one account. Names are free text (a person may call the source 「SMBC」), so a
 * name match is only a second, weaker hint.
 */
export function doubleCountWarnings(sources: readonly CsvSource[], masters: Masters): string[] {
  const out: string[] = [];
  for (const s of sources) {
    const counter = resolvePosting(masters, {
      勘定科目: s.勘定科目,
      補助科目: s.補助科目,
      税区分: '',
      取引先: '',
    });
    const hit = counter.ok
      ? masters.connectedAccounts.flatMap((c) =>
          [
            { name: c.name, accountId: c.accountId, subAccountId: c.subAccountId },
            ...c.subs.map((sub) => ({
              name: `${c.name} ${sub.name}`,
              accountId: sub.accountId ?? null,
              subAccountId: sub.subAccountId ?? null,
            })),
          ].filter(
            (x) =>
              x.accountId !== null &&
              x.accountId === counter.value.accountId &&
              (x.subAccountId ?? null) === (counter.value.subAccountId ?? null),
          ),
        )
      : [];
    const account = s.補助科目 ? `${s.勘定科目} / ${s.補助科目}` : s.勘定科目;
    if (hit.length > 0) {
      out.push(
        `取込元「${s.name}」の相手科目（${account}）は、MFの連携口座「${hit[0].name}」と同じです。同じお金がMFの明細とCSVの両方から二重に記帳されるおそれがあります。MFで連携している口座のCSVは取り込まないか、取込元の勘定科目・補助科目を確認してください。`,
      );
      continue;
    }
    const wanted = normalizeText(s.name);
    const named = masters.connectedAccounts.find(
      (c) =>
        normalizeText(c.name) === wanted ||
        c.subs.some((sub) => normalizeText(`${c.name} ${sub.name}`) === wanted),
    );
    if (named)
      out.push(
        `取込元「${s.name}」はMFの連携口座と同じ名前です。MFで連携している口座のCSVを取り込むと二重に記帳されるおそれがあります。`,
      );
  }
  return out;
}
