/**
 * インボイス区分 in the simulation (issue 27). In about half the worlds the office is 原則課税 (the fake MF's
 * term settings say INDIVIDUAL_ALLOCATION), drawn from the dataset seed with its own stream, so every seed's
 * fast-check draw is unchanged (like sender.ts and archiver.ts); the rest stay 簡易課税, for which the 区分
 * changes nothing (kicho neither asks nor sends it). In a 原則課税 world people sometimes fill or change the
 * インボイス column of a row not yet sent (適格, 非適格, back to 未判定, a word kicho refuses), often with 承認;
 * and the invariant `invoice-kind` holds every purchase journal to the kind its row's 区分 and 取引日
 * require: 適格 → QUALIFIED, 非適格 → the step of its 取引日 (80 % in the simulation's May 2026), anything
 * else never posted — never a silent 適格 (MF's default for a purchase sent without a kind) or 80 %.
 * The fixed cases of regressions.ts (archiver false) are replayed as found: 簡易課税.
 */
import { fingerprint } from '../../src/core/fingerprint';
import { creditStep } from '../../src/core/invoice';
import type { World } from '../gas/world';
import { mulberry32 } from '../mf/random';
import { ACCOUNTS, type Typed } from './people';
import type { Scenario } from './scenario';

export type OfficeTaxMethod = 'INDIVIDUAL_ALLOCATION' | 'SIMPLE';

/** The office's 課税形式 of a world: 原則課税 in about half, from the dataset seed (a shrunk case keeps it). */
export function taxMethodOf(s: Scenario): OfficeTaxMethod {
  if (s.archiver === false) return 'SIMPLE';
  const next = mulberry32(Math.imul(s.data.seed, 0x27d4eb2d) ^ 0x27);
  return next() < 0.5 ? 'INDIVIDUAL_ALLOCATION' : 'SIMPLE';
}

export const TAX_METHOD_LABEL: Record<OfficeTaxMethod, string> = {
  INDIVIDUAL_ALLOCATION: 'office 原則課税',
  SIMPLE: 'office 簡易課税',
};

/** What a person types into インボイス (a refused word too: kicho holds the row and says why). */
const VALUES = ['適格', '非適格', '適格', '非適格', '未判定', '対象外', '', 'てきかく'] as const;

export interface InvoiceAct {
  at: number;
  pick: number;
  value: (typeof VALUES)[number];
  /** Also 承認 (with a 勘定科目 when the row has none). */
  approve: boolean;
  account: number;
}

/** People's インボイス edits in a 原則課税 world: in about one slot in three, sometimes two. */
export function invoicePlan(s: Scenario, slotStarts: readonly number[]): InvoiceAct[] {
  if (taxMethodOf(s) !== 'INDIVIDUAL_ALLOCATION') return [];
  const next = mulberry32((s.data.seed * 0xc2b2ae35) ^ s.schedule.seed ^ 0x27);
  const out: InvoiceAct[] = [];
  for (const base of slotStarts) {
    if (next() >= 0.35) continue;
    const n = next() < 0.3 ? 2 : 1;
    for (let i = 0; i < n; i++)
      out.push({
        at: base + Math.floor(next() * 600) * 1000,
        pick: Math.floor(next() * 1000),
        value: VALUES[Math.floor(next() * VALUES.length)] ?? '適格',
        approve: next() < 0.6,
        account: Math.floor(next() * ACCOUNTS.length),
      });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Applies one edit on the 台帳 as a person would; a short description, or null when no row fits. */
export function applyInvoiceAct(world: World, a: InvoiceAct, typed: Typed): string | null {
  const s = world.spreadsheet.sheets.find((x) => x.name === '台帳');
  if (!s) return null;
  const cols = new Map<string, number>();
  for (let c = 1; c <= s.lastColumn(); c++) cols.set(String(s.value(1, c)), c);
  const [keyCol, stateCol, invoiceCol] = [cols.get('キー'), cols.get('状態'), cols.get('インボイス')];
  if (keyCol === undefined || stateCol === undefined || invoiceCol === undefined) return null;
  const fit: { row: number; key: string; state: string }[] = [];
  for (let r = 2; r <= s.lastRow(); r++) {
    const key = String(s.value(r, keyCol));
    const state = String(s.value(r, stateCol));
    if (key !== '' && ['未判定', '要確認', '送信待ち', '失敗'].includes(state))
      fit.push({ row: r, key, state });
  }
  const r = fit[a.pick % Math.max(1, fit.length)];
  if (!r) return null;
  const type = (header: 'インボイス' | '勘定科目' | '操作', value: string) => {
    const c = cols.get(header);
    if (c === undefined) return;
    s.setValue(r.row, c, value);
    typed.set(r.key, { ...typed.get(r.key), [header]: value });
  };
  type('インボイス', a.value);
  if (a.approve) {
    const accountCol = cols.get('勘定科目');
    if (accountCol !== undefined && String(s.value(r.row, accountCol)).trim() === '')
      type('勘定科目', ACCOUNTS[a.account % ACCOUNTS.length] ?? '消耗品費');
    type('操作', r.state === '失敗' ? '再試行' : '承認');
  }
  return `インボイス ${r.key} (${r.state}) → 「${a.value}」${a.approve ? ' and 承認' : ''}`;
}

interface KindSide {
  tax_long_name?: string | null;
  tax_name?: string | null;
  invoice_kind?: string;
}
export interface InvoiceJournal {
  id: string;
  branches?: { debitor?: KindSide }[];
}

/** A sheet value as kicho reads it for the 指紋 (a Date as its Tokyo date). */
function text(v: unknown): string | number {
  if (v instanceof Date) return new Date(v.getTime() + 9 * 3_600_000).toISOString().slice(0, 10);
  return typeof v === 'number' ? v : String(v ?? '');
}

/**
 * The invariant `invoice-kind`: each 完了 row of a 原則課税 world whose journal is a purchase (its debit
 * carries a 課税仕入 tax) and whose 指紋 still matches what it says (a person who edits a posted row gets
 * it listed on 要確認 instead: DESIGN §3) has the invoice_kind its インボイス and 取引日 require.
 * Returns the problems, and how many journals were held to it.
 */
export function invoiceKindProblems(
  rows: readonly Record<string, unknown>[],
  journalOf: (row: Record<string, unknown>) => InvoiceJournal | undefined,
): { problems: string[]; checked: number } {
  const problems: string[] = [];
  let checked = 0;
  for (const r of rows) {
    if (r.状態 !== '完了' || String(r.指紋 ?? '') === '') continue;
    const journal = journalOf(r);
    const debit = journal?.branches?.[0]?.debitor;
    const tax = String(debit?.tax_long_name ?? debit?.tax_name ?? '');
    if (!debit || !/^(課税仕入|課仕)/.test(tax)) continue;
    const record = Object.fromEntries(
      ['取引日', '入出金', '金額', '摘要', '勘定科目', '補助科目', '税区分', '取引先', 'インボイス'].map(
        (h) => [h, text(r[h])],
      ),
    );
    if (fingerprint(record as never) !== r.指紋) continue;
    checked++;
    const said = String(record.インボイス).trim();
    const date = String(record.取引日);
    const step = creditStep(date);
    const required =
      said === '適格'
        ? 'INVOICE_KIND_QUALIFIED'
        : said === '非適格' && typeof step === 'object'
          ? step.kind
          : null;
    if (debit.invoice_kind !== required)
      problems.push(
        `${r.キー} (${date}, インボイス「${said}」) was posted with ${debit.invoice_kind}; ${required ?? 'it must not be posted'}`,
      );
  }
  return { problems, checked };
}
