/**
 * An MF line's 取引日 / 入出金 / 金額 / 口座 are MF's (DESIGN §3: system-owned). The journal is made
 * from MF's line whatever the 台帳 says, so a row a person edited would be posted with MF's amount
 * while the 台帳 shows another. Before sending, the row is compared with MF's line; a difference
 * stops it (要確認) with MF's value in メモ. Pure.
 */
import type { LedgerRecord } from './ledger';

/** MF's statement line as the 台帳 would show it. */
export interface StatementFacts {
  取引日: string;
  入出金: '入金' | '出金';
  金額: number;
  口座: string;
}

const FIELDS = ['取引日', '入出金', '金額', '口座'] as const;

function shown(field: (typeof FIELDS)[number], value: unknown): string {
  if (field === '金額' && typeof value === 'number') return `${value.toLocaleString('ja-JP')} 円`;
  const text = String(value ?? '').trim();
  return text === '' ? '（空）' : `「${text}」`;
}

/** The fields where the row differs from MF's line, as 「金額: MF 1,200 円 / 台帳 12,000 円」. */
export function statementEdits(record: LedgerRecord, facts: StatementFacts): string[] {
  const out: string[] = [];
  for (const f of FIELDS) {
    const mine = f === '金額' ? Number(record.金額) : record[f].trim();
    if (mine === facts[f]) continue;
    out.push(`${f}: MF ${shown(f, facts[f])} / 台帳 ${shown(f, record[f])}`);
  }
  return out;
}

export const STATEMENT_MSG = {
  edited: (diffs: readonly string[]) =>
    `MFの明細と台帳の内容が違います（${diffs.join('、')}）。MFの明細の 取引日・入出金・金額・口座 は台帳では変えられません（仕訳はMFの明細の内容で作られます）。台帳の値をMFの値に戻してから「承認」を選んでください。`,
  missing: (date: string) =>
    `MFでこの明細が見つかりません（${date} の前後を探しました）。取引日を書き換えた場合は元に戻してから「承認」を選んでください。MFで明細が削除された場合は「除外」を選んでください。`,
  unverified: 'MFの明細と見比べられなかったため送信していません（次の実行で確かめて送ります）',
} as const;
