/**
 * The 要確認 sheet: every row that needs a person, why, and what to do, in plain Japanese
 * (DESIGN §3, §4). Derived from the 台帳 each run; nothing here changes a row.
 */
import { LEASE_MS } from './budget';
import { fingerprint } from './fingerprint';
import type { LedgerRecord, LedgerTable } from './ledger';

export interface ReviewItem {
  record: LedgerRecord;
  rowNumber: number;
  reason: string;
  action: string;
}

export function reviewItems(table: LedgerTable, nowMs: number, graceMs: number): ReviewItem[] {
  const items: ReviewItem[] = [];
  for (const { record: r, rowNumber } of table.rows) {
    const state = String(r.状態);
    const age = nowMs - (Date.parse(String(r.更新日時)) || 0);
    const memo = String(r.メモ);
    if (state === '要確認' || state === '未判定') {
      items.push({
        record: r,
        rowNumber,
        reason: memo || '勘定科目の確認が必要です。',
        action: '勘定科目などを確かめ、操作で「承認」か「除外」を選んでください。',
      });
    } else if (state === '失敗') {
      items.push({
        record: r,
        rowNumber,
        reason: memo,
        action: '内容を直してから、操作で「再試行」を選んでください。',
      });
    } else if (state === '不明' && age >= graceMs) {
      items.push({
        record: r,
        rowNumber,
        reason: `不明: MFで仕訳を確認中です（${Math.floor(age / 60_000)} 分経過）。`,
        action: '自動で再確認します。長く続くときはMFの仕訳を確認してください。',
      });
    } else if (state === '送信中' && age >= LEASE_MS) {
      items.push({
        record: r,
        rowNumber,
        reason: '送信中のまま止まっています（実行が途中で終わった可能性があります）。',
        action: '次の照合でMFを確認します。そのままお待ちください。',
      });
    } else if (state === '完了' && String(r.指紋) !== '' && fingerprint(r) !== String(r.指紋)) {
      items.push({
        record: r,
        rowNumber,
        reason: '登録した後で内容が変更されています。',
        action: 'MFの仕訳と見比べ、必要ならMFで仕訳を直してください（再送はしません）。',
      });
    }
  }
  return items;
}
