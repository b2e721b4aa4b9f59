/**
 * A few rules for a first ledger (初期設定's 「例のルールを入れる」): common Japanese statement texts
 * and the MF standard accounts they usually go to. Never auto-approved: a person confirms the first
 * results; only rules whose account and tax exist in マスタ are offered.
 */
import type { Masters } from '../masters';
import { normalizeText } from '../text';

export interface StarterRule {
  一致方法: '部分一致' | '前方一致';
  キーワード: string;
  入出金: '' | '入金' | '出金';
  勘定科目: string;
  税区分: string;
}

export const STARTER_RULES: readonly StarterRule[] = [
  {
    一致方法: '部分一致',
    キーワード: 'ﾃｽｳﾘ',
    入出金: '出金',
    勘定科目: '支払手数料',
    税区分: '課税仕入 10%',
  },
  {
    一致方法: '部分一致',
    キーワード: 'ﾀｸｼｰ',
    入出金: '出金',
    勘定科目: '旅費交通費',
    税区分: '課税仕入 10%',
  },
  { 一致方法: '前方一致', キーワード: 'JR', 入出金: '出金', 勘定科目: '旅費交通費', 税区分: '課税仕入 10%' },
  { 一致方法: '部分一致', キーワード: 'ｱﾏｿﾞﾝ', 入出金: '出金', 勘定科目: '消耗品費', 税区分: '課税仕入 10%' },
  { 一致方法: '部分一致', キーワード: 'NTT', 入出金: '出金', 勘定科目: '通信費', 税区分: '課税仕入 10%' },
  { 一致方法: '部分一致', キーワード: 'ﾄﾞｺﾓ', 入出金: '出金', 勘定科目: '通信費', 税区分: '課税仕入 10%' },
  {
    一致方法: '部分一致',
    キーワード: 'ｽﾀｰﾊﾞ',
    入出金: '出金',
    勘定科目: '会議費',
    税区分: '課税仕入 8%（軽減）',
  },
];

/** The starter rules that fit these masters, numbered after `nextPriority`. */
export function starterRulesFor(masters: Masters, nextPriority: number): Record<string, unknown>[] {
  const accounts = new Set(masters.accounts.filter((a) => a.available).map((a) => normalizeText(a.name)));
  const taxes = new Set(masters.taxes.map((t) => normalizeText(t.name)));
  return STARTER_RULES.filter(
    (r) =>
      accounts.has(normalizeText(r.勘定科目)) && (taxes.size === 0 || taxes.has(normalizeText(r.税区分))),
  ).map((r, i) => ({ 優先度: nextPriority + i * 10, ...r, 自動承認: 'いいえ', 有効: true }));
}
