/** Small data builders shared by the unit tests of src/core. */
import type { LedgerRecord } from '../../src/core/ledger';
import { LEDGER_HEADERS, RULE_HEADERS } from '../../src/core/schema';

/** A 台帳 record: every column empty, then a typical 未判定 card line, then `over`. */
export function ledgerRecord(over: Partial<LedgerRecord> = {}): LedgerRecord {
  const base = Object.fromEntries(LEDGER_HEADERS.map((h) => [h, ''])) as LedgerRecord;
  return {
    ...base,
    キー: 'mf:tx-1',
    状態: '未判定',
    取引日: '2026-11-02',
    入出金: '出金',
    金額: 1200,
    摘要: 'ｱﾏｿﾞﾝ ｼﾞﾔﾊﾟﾝ',
    口座: '三井住友銀行',
    試行回数: 0,
    ...over,
  };
}

export type RuleCells = Partial<Record<(typeof RULE_HEADERS)[number], unknown>>;

/** A valid ルール row; tests override the cells they are about. */
export const RULE_DEFAULTS: RuleCells = {
  優先度: 10,
  一致方法: '部分一致',
  キーワード: 'ｱﾏｿﾞﾝ',
  入出金: '',
  金額下限: '',
  金額上限: '',
  口座: '',
  勘定科目: '消耗品費',
  補助科目: '',
  税区分: '',
  取引先: '',
  自動承認: 'いいえ',
  有効: true,
};

/** The ルール sheet as getValues returns it: the header row, then each row over the defaults (null = blank row). */
export function ruleSheet(
  rows: (RuleCells | null)[],
  headers: readonly string[] = RULE_HEADERS,
): unknown[][] {
  return [
    headers.slice(),
    ...rows.map((r) =>
      r === null
        ? headers.map(() => '')
        : headers.map((h) => ({ ...RULE_DEFAULTS, ...r })[h as keyof RuleCells] ?? ''),
    ),
  ];
}
